/**
 * The one view registry (spec §2): menu `component` strings → lazily loaded views. Add an
 * entry here when a feature brings a new page. Keys are normalised component strings
 * (`normaliseComponent`: no leading '/', no '.vue'); 'x/y' also finds 'x/y/index'.
 * An unknown component renders the translated "view not found" notice naming it.
 */
import { type ComponentType, type LazyExoticComponent, lazy, Suspense } from 'react';
import { ViewNotFound } from '@/features/errors';
import { normaliseComponent } from '@/shared/routing';
import { ErrorBoundary } from '@/shared/ui/ErrorBoundary';
import { PageLoading } from '@/shared/ui/PageLoading';

type View = LazyExoticComponent<ComponentType>;

export const VIEW_REGISTRY: Record<string, View> = {
  'dashboard/index': lazy(() => import('@/features/dashboard/DashboardPage')),
  'monitor/alarm/index': lazy(() => import('@/features/alarm/AlarmPage')),
  'monitor/outbox/index': lazy(() => import('@/features/alarm/OutboxPage')),
  'monitor/deadletter/index': lazy(() => import('@/features/devices/dead-letter/DeadLetterPage')),
  'monitor/zdjkshow/index': lazy(() => import('@/features/site-monitor/SiteMonitorPage')),
  'monitor/export/index': lazy(() => import('@/features/export/ExportPage')),
  'device/deviceconfig/index': lazy(() => import('@/features/devices/pages/DeviceConfigPage')),
  'device/paramsconfig/index': lazy(() => import('@/features/params/pages/ParamsConfigPage')),
  'device/debugging/index': lazy(() => import('@/features/debugging/pages/DebuggingPage')),
  'device/firmware/index': lazy(() => import('@/features/firmware/pages/FirmwarePage')),
  'device/upgradeRecord/index': lazy(() => import('@/features/firmware/pages/UpgradeRecordPage')),
  'device/upgradeRecordDetail/index': lazy(() => import('@/features/firmware/pages/UpgradeRecordDetailPage')),
  'system/menu/index': lazy(() => import('@/features/system/menu/MenuListPage')),
  'system/dept/index': lazy(() => import('@/features/org-people/pages/DepartmentsPage')),
  'system/employee/index': lazy(() => import('@/features/org-people/pages/EmployeesPage')),
  'system/role/index': lazy(() => import('@/features/system/role/RoleListPage')),
  'system/log/index': lazy(() => import('@/features/system/log/OperationLogPage')),
  'system/job/index': lazy(() => import('@/features/job/pages/JobPage')),
  'project/bill/index': lazy(() => import('@/features/bill/pages/BillPage')),
  'project/list/index': lazy(() => import('@/features/project/pages/ProjectListPage')),
  'project/detail/index': lazy(() => import('@/features/project/pages/ProjectDetailPage')),
  'project/revenue/index': lazy(() => import('@/features/revenue/pages/RevenuePage')),
  'strategy/timetariff/index': lazy(() => import('@/features/tou/pages/TimeTariffPage')),
  'strategy/chargestrategy/index': lazy(() => import('@/features/tou/pages/ChargeStrategyPage')),
  'monitor/realtime/index': lazy(() => import('@/features/monitor-data/RealtimePage')),
  'monitor/history/index': lazy(() => import('@/features/monitor-data/HistoryPage')),
  'org/agent/index': lazy(() =>
    import('@/features/org/pages/CompanyPage').then((m) => ({ default: m.companyViews.agent })),
  ),
  'org/investor/index': lazy(() =>
    import('@/features/org/pages/CompanyPage').then((m) => ({ default: m.companyViews.investor })),
  ),
  'org/construction/index': lazy(() =>
    import('@/features/org/pages/CompanyPage').then((m) => ({ default: m.companyViews.construction })),
  ),
  'org/owner/index': lazy(() =>
    import('@/features/org/pages/CompanyPage').then((m) => ({ default: m.companyViews.owner })),
  ),
  // Big screens: the menu entry opens the wall display itself (features/bigscreen ScreenLauncher).
  ...Object.fromEntries(
    (['cockpit', 'sys', 'pcs', 'bms', 'dhxx', 'syfsys'] as const).map((key) => [
      `bigscreen/${key}/index`,
      lazy(() =>
        import('@/features/bigscreen/pages/ScreenLauncher').then((m) => ({ default: m.launcherViews[key] })),
      ),
    ]),
  ),
};

/** The view registered for a component string, if any. */
export function findView(component: string): View | undefined {
  const key = normaliseComponent(component);
  return VIEW_REGISTRY[key] ?? VIEW_REGISTRY[`${key}/index`];
}

/** Renders the view of `component` with a loading state and a load-failure fallback. */
export function RouteView({ component }: { component: string }) {
  const View = findView(component);
  if (!View) return <ViewNotFound component={component} />;
  return (
    <ErrorBoundary fallback={<ViewNotFound />} resetKey={component}>
      <Suspense fallback={<PageLoading />}>
        <View />
      </Suspense>
    </ErrorBoundary>
  );
}
