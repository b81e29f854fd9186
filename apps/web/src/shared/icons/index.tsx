/**
 * Menu icons (spec §3 "icon"): the server names an @ant-design/icons component, e.g.
 * 'SettingOutlined'. Only the icons listed here are bundled (importing the whole set would add
 * hundreds of KB); an unknown name falls back to {@link FALLBACK_ICON}. Short lower-case names
 * ('dashboard', 'setting') resolve to the matching Outlined icon as well.
 */
import {
  AccountBookOutlined,
  AlertOutlined,
  ApartmentOutlined,
  ApiOutlined,
  AppstoreOutlined,
  AreaChartOutlined,
  BankOutlined,
  BarChartOutlined,
  BellOutlined,
  BugOutlined,
  BuildOutlined,
  CalendarOutlined,
  ClockCircleOutlined,
  CloudOutlined,
  CloudServerOutlined,
  CloudUploadOutlined,
  ClusterOutlined,
  CodeOutlined,
  ControlOutlined,
  DashboardOutlined,
  DatabaseOutlined,
  DesktopOutlined,
  EnvironmentOutlined,
  ExportOutlined,
  FieldTimeOutlined,
  FileSearchOutlined,
  FileTextOutlined,
  FundOutlined,
  FundProjectionScreenOutlined,
  GlobalOutlined,
  HeatMapOutlined,
  HistoryOutlined,
  HomeOutlined,
  IdcardOutlined,
  InfoCircleOutlined,
  LineChartOutlined,
  LinkOutlined,
  LockOutlined,
  MailOutlined,
  MenuOutlined,
  MoneyCollectOutlined,
  MonitorOutlined,
  PartitionOutlined,
  PieChartOutlined,
  ProjectOutlined,
  SafetyCertificateOutlined,
  ScheduleOutlined,
  SettingOutlined,
  ShopOutlined,
  SolutionOutlined,
  StopOutlined,
  TeamOutlined,
  ThunderboltOutlined,
  ToolOutlined,
  UsergroupAddOutlined,
  UserOutlined,
} from '@ant-design/icons';
import type { ComponentType, ReactNode } from 'react';

type IconComponent = ComponentType<{ className?: string }>;

const REGISTRY: Record<string, IconComponent> = {
  AccountBookOutlined,
  AlertOutlined,
  ApartmentOutlined,
  ApiOutlined,
  AppstoreOutlined,
  AreaChartOutlined,
  BankOutlined,
  BarChartOutlined,
  BellOutlined,
  BugOutlined,
  BuildOutlined,
  CalendarOutlined,
  ClockCircleOutlined,
  CloudOutlined,
  CloudServerOutlined,
  CloudUploadOutlined,
  ClusterOutlined,
  CodeOutlined,
  ControlOutlined,
  DashboardOutlined,
  DatabaseOutlined,
  DesktopOutlined,
  EnvironmentOutlined,
  ExportOutlined,
  FieldTimeOutlined,
  FileSearchOutlined,
  FileTextOutlined,
  FundOutlined,
  FundProjectionScreenOutlined,
  GlobalOutlined,
  HeatMapOutlined,
  HistoryOutlined,
  HomeOutlined,
  IdcardOutlined,
  InfoCircleOutlined,
  LineChartOutlined,
  LinkOutlined,
  LockOutlined,
  MailOutlined,
  MenuOutlined,
  MoneyCollectOutlined,
  MonitorOutlined,
  PartitionOutlined,
  PieChartOutlined,
  ProjectOutlined,
  SafetyCertificateOutlined,
  ScheduleOutlined,
  SettingOutlined,
  ShopOutlined,
  SolutionOutlined,
  StopOutlined,
  TeamOutlined,
  ThunderboltOutlined,
  ToolOutlined,
  UsergroupAddOutlined,
  UserOutlined,
};

/** Names of every bundled icon, for icon pickers (menu management). */
export const ICON_NAMES: readonly string[] = Object.keys(REGISTRY);

/** Icon shown for a name that is not in the registry. */
export const FALLBACK_ICON: IconComponent = AppstoreOutlined;

/** Lower-case short names → registry names ('dashboard' → 'DashboardOutlined'). */
const SHORT: Record<string, string> = Object.fromEntries(
  Object.keys(REGISTRY).map((name) => [name.replace(/Outlined$/, '').toLowerCase(), name]),
);

/** The icon component registered for `name`, or undefined. */
export function findIcon(name: string | null | undefined): IconComponent | undefined {
  if (!name) return undefined;
  const exact = REGISTRY[name];
  if (exact) return exact;
  const short = SHORT[name.replace(/[-_\s]/g, '').toLowerCase()];
  return short ? REGISTRY[short] : undefined;
}

/** True when `name` resolves to a bundled icon. */
export function hasIcon(name: string | null | undefined): boolean {
  return findIcon(name) !== undefined;
}

/**
 * The icon element for a menu `icon` name: the registered icon, the fallback for an unknown
 * name, nothing when no name is given.
 */
export function menuIcon(name: string | null | undefined, className?: string): ReactNode {
  if (!name) return null;
  const Icon = findIcon(name) ?? FALLBACK_ICON;
  return <Icon className={className} />;
}
