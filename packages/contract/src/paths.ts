/**
 * Call paths (spec §7) as the constants the server and console used before the endpoint table.
 * Every path now lives in the endpoint table (endpoints.ts: `endpoints.<area>.<call>.path`);
 * these constants stay until the server and the console have moved, and a test keeps each of
 * them equal to an endpoint's path. They are kept as plain strings (not read from the table) so
 * that a page importing one path does not pull every schema into its bundle.
 */

/**
 * Sign-in, session, own settings and the menu list.
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.user.login.path`.
 */
export const ApiPath = {
  login: '/api-bms/user/login',
  getUserInfo: '/api-bms/user/getUserInfo',
  getLanguageMenu: '/api-bms/user/getLanguageMenu',
  refreshToken: '/api-bms/user/refreshToken',
  loginOut: '/api-bms/user/loginOut',
  getPermission: '/api-bms/user/getPermission',
  updatePassword: '/api-bms/employee/updatePassword',
  getEmail: '/api-bms/employee/getEmail',
  updateEmail: '/api-bms/employee/updateEmail',
  menuList: '/api-bms/menu/menuList',
} as const;

/**
 * Devices issue: sites and devices (paths ours; spec §2 names the screen only).
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const RegistryPath = {
  sitePageList: '/api-bms/site/pageList',
  siteSave: '/api-bms/site/save',
  siteUpdate: '/api-bms/site/update',
  siteDelete: '/api-bms/site/delete',
  devicePageList: '/api-bms/device/pageList',
  deviceSave: '/api-bms/device/save',
  deviceUpdate: '/api-bms/device/update',
  deviceDelete: '/api-bms/device/delete',
  deviceResetSecret: '/api-bms/device/resetSecret',
} as const;

/**
 * ToU issue: schemes of time tariffs and charge strategy, pushed to the EMS (paths ours).
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const TouPath = {
  pageList: '/api-bms/tou/pageList',
  detail: '/api-bms/tou/detail',
  save: '/api-bms/tou/save',
  update: '/api-bms/tou/update',
  delete: '/api-bms/tou/delete',
  assign: '/api-bms/tou/assign',
  pushStatus: '/api-bms/tou/pushStatus',
  push: '/api-bms/tou/push',
} as const;

/**
 * Devices issue: the operational overview (path ours).
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const DashboardPath = {
  overview: '/api-bms/dashboard/overview',
} as const;

/**
 * Monitoring issue, real-time data (`/realTimeShow`) and history (paths ours): site/device
 * pickers, a device's latest points, a point's trend, history series, two-period comparison and
 * energy bars (docs/api.md "Real-time data and history").
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const MonitorPath = {
  realtimeOptions: '/api-bms/monitor/realtime/options',
  realtime: '/api-bms/monitor/realtime/points',
  realtimeTrend: '/api-bms/monitor/realtime/trend',
  historyOptions: '/api-bms/monitor/history/options',
  history: '/api-bms/monitor/history/series',
  compare: '/api-bms/monitor/history/compare',
  energy: '/api-bms/monitor/history/energy',
} as const;

/**
 * Monitoring issue, big screens (paths ours): public and signed-in cockpit, site screens.
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const ScreenPath = {
  /** public: aggregates of the installation only (no names, no exact positions). */
  cockpitPublic: '/api-bms/screen/cockpitPublic',
  /** signed in: the caller's fleet with site names. */
  cockpit: '/api-bms/screen/cockpit',
  sites: '/api-bms/screen/sites',
  site: '/api-bms/screen/site',
} as const;

/**
 * Monitoring issue, data export (paths ours; spec §5, §9). `xlsx` answers the file itself when
 * the request is valid (docs/api.md "Export"), `{code, msg}` otherwise.
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const ExportPath = {
  sites: '/api-bms/export/sites',
  devices: '/api-bms/export/devices',
  xlsx: '/api-bms/export/xlsx',
} as const;

/**
 * Monitoring issue, site monitoring `/zdjkshow` (paths ours; permission `monitor:site:list`):
 * the sites for the map and list, and one site's energy flow and device panels.
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const SiteMonitorPath = {
  sites: '/api-bms/monitor/siteList',
  site: '/api-bms/monitor/siteDetail',
} as const;

/**
 * Organisation and access-control issue (spec §7 for departments, employees, roles, menus).
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const OrgPath = {
  departmentList: '/api-bms/department/departmentList',
  departmentSave: '/api-bms/department/save',
  departmentUpdate: '/api-bms/department/update',
  departmentDelete: '/api-bms/department/delete',
  employeePageList: '/api-bms/employee/pageList',
  employeeSave: '/api-bms/employee/save',
  employeeUpdate: '/api-bms/employee/update',
  employeeDelete: '/api-bms/employee/delete',
  employeeDetail: '/api-bms/employee/detail',
  employeeStatus: '/api-bms/employee/status',
  /** ours: an administrator sets a new password that must be changed at next sign-in. */
  employeeResetPassword: '/api-bms/employee/resetPassword',
  rolePageList: '/api-bms/role/pageList',
  roleSave: '/api-bms/role/save',
  roleUpdate: '/api-bms/role/update',
  roleDelete: '/api-bms/role/delete',
  roleDetail: '/api-bms/role/detail',
  roleCopy: '/api-bms/role/copy',
  /** ours: the menu rows the caller may grant to a role (the role authority tree). */
  roleMenuOptions: '/api-bms/role/menuOptions',
  menuSave: '/api-bms/menu/save',
  menuUpdate: '/api-bms/menu/update',
  menuDelete: '/api-bms/menu/delete',
  /** ours: the operation log. */
  logPageList: '/api-bms/log/pageList',
  /** ours: every company the caller may see, for company pickers. */
  companyOptions: '/api-bms/company/options',
  /** ours: devices of an agent, and (un)assigning them. */
  agentDevices: '/api-bms/agent/devices',
  agentAssignDevices: '/api-bms/agent/assignDevices',
  agentUnassignDevices: '/api-bms/agent/unassignDevices',
} as const;

/**
 * Company calls per kind (ours; spec §1 names the screens): `/api-bms/<kind>/pageList`,
 * `save`, `update`, `status`, each needing `org:<kind>:list|save|save|status`.
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export function companyPath(
  kind: 'agent' | 'investor' | 'construction' | 'owner',
  action: CompanyAction,
): string {
  return `/api-bms/${kind}/${action}`;
}
export const COMPANY_ACTIONS = ['pageList', 'save', 'update', 'status'] as const;
export type CompanyAction = (typeof COMPANY_ACTIONS)[number];

/**
 * Monitoring issue: alarms and the mail outbox (paths ours).
 *
 * @deprecated use `endpoints.*` (endpoints.ts), e.g. `endpoints.tou.save.path`.
 */
export const AlarmPath = {
  activeList: '/api-bms/alarm/activeList',
  historyList: '/api-bms/alarm/historyList',
  ack: '/api-bms/alarm/ack',
  filterOptions: '/api-bms/alarm/filterOptions',
  outboxList: '/api-bms/mail/outboxList',
  outboxDetail: '/api-bms/mail/outboxDetail',
} as const;
