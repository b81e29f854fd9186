/**
 * Permission strings (`module:resource:action`, RuoYi's convention): the same string
 * sits on a menu row (a page or a button, seeded by migration), on the server route that needs
 * it, and on the console's button that it shows. Administrator roles hold the wildcard `*:*:*`.
 *
 * Routes that every signed-in user may call (own settings, own menu, the dashboard) declare
 * `signedIn` instead; sign-in calls declare `public`. No route goes without a declaration.
 */
export const Perm = {
  menuList: 'system:menu:list',
  menuSave: 'system:menu:save',
  menuDelete: 'system:menu:delete',

  deptList: 'system:dept:list',
  deptSave: 'system:dept:save',
  deptDelete: 'system:dept:delete',

  employeeList: 'system:employee:list',
  employeeSave: 'system:employee:save',
  employeeDelete: 'system:employee:delete',
  employeeStatus: 'system:employee:status',
  employeeResetPassword: 'system:employee:resetPwd',

  roleList: 'system:role:list',
  roleSave: 'system:role:save',
  roleDelete: 'system:role:delete',
  roleCopy: 'system:role:copy',

  logList: 'system:log:list',

  /** Scheduled tasks (/system/job, platform only): list them, their kinds and run log. */
  jobList: 'monitor:job:list',
  /** Create and edit tasks. */
  jobSave: 'monitor:job:save',
  jobDelete: 'monitor:job:delete',
  /** Pause and recover tasks. */
  jobStatus: 'monitor:job:changeStatus',
  /** Run a task now. */
  jobTrigger: 'monitor:job:trigger',

  agentList: 'org:agent:list',
  agentSave: 'org:agent:save',
  agentStatus: 'org:agent:status',
  agentAssign: 'org:agent:assign',
  investorList: 'org:investor:list',
  investorSave: 'org:investor:save',
  investorStatus: 'org:investor:status',
  constructionList: 'org:construction:list',
  constructionSave: 'org:construction:save',
  constructionStatus: 'org:construction:status',
  ownerList: 'org:owner:list',
  ownerSave: 'org:owner:save',
  ownerStatus: 'org:owner:status',

  siteList: 'device:site:list',
  siteSave: 'device:site:save',
  siteDelete: 'device:site:delete',
  deviceSave: 'device:device:save',
  deviceDelete: 'device:device:delete',
  deviceSecret: 'device:device:secret',
  /** Move a site, with its devices and data, to another company (site/moveCompany). */
  siteMove: 'device:site:move',
  /** Move a device (a gateway with the devices behind it) to another site (device/moveSite). */
  deviceMove: 'device:device:move',

  /** ToU schemes: both screens (/timetariff, /chargestrategy) list and read with this. */
  touList: 'tou:scheme:list',
  touSave: 'tou:scheme:save',
  touDelete: 'tou:scheme:delete',
  /** Assign schemes to sites and push them to the EMS. */
  touPush: 'tou:scheme:push',

  /** Device parameters (/paramsconfig): read the tree, a device's shadow, its history; ask the device. */
  paramsList: 'device:params:list',
  /** Change, retry, copy parameters and initialize a site. */
  paramsEdit: 'device:params:edit',
  /** Transparent debugging (/deviceDebugging): sessions and raw frames through a gateway. */
  debugUse: 'device:debug:use',

  /** Firmware packages (/firmware): list and read them. */
  firmwarePackageList: 'firmware:package:list',
  /** Upload a package. */
  firmwarePackageUpload: 'firmware:package:upload',
  /** Publish and disable a package. */
  firmwarePackagePublish: 'firmware:package:publish',
  firmwarePackageDelete: 'firmware:package:delete',
  /** Upgrade records (/upgradeRecord, /upgradeRecordDetail): list and read batches. */
  upgradeList: 'firmware:upgrade:list',
  /** Choose devices and start a batch. */
  upgradeCreate: 'firmware:upgrade:create',
  /** Retry, cancel, pause and resume a batch. */
  upgradeManage: 'firmware:upgrade:manage',

  /** Monitoring. */
  monitorSiteList: 'monitor:site:list',
  monitorRealtimeList: 'monitor:realtime:list',
  monitorHistoryList: 'monitor:history:list',
  alarmList: 'monitor:alarm:list',
  alarmAck: 'monitor:alarm:ack',
  exportRun: 'monitor:export:run',
  mailOutboxList: 'monitor:mail:list',
  /** Device messages the database refused (dead letters, devices/ingest.ts). */
  deadLetterList: 'monitor:deadletter:list',
  /** The big screens inside the console (the public /newscreen cockpit needs none). */
  screenView: 'screen:view:list',

  /** Projects (/project/list, /project/detail; issue 17 item 1): list and read projects, their history. */
  projectList: 'project:project:list',
  /** Create and edit projects (contract, investors, meters). */
  projectSave: 'project:project:save',
  projectDelete: 'project:project:delete',
  /** Bind sites to a project and unbind them. */
  projectBind: 'project:project:bind',
  /** Change a project's status (to be started → under construction → in operation …). */
  projectStatus: 'project:project:status',

  /** Monthly bills (/project/bill; issue 17 item 5): list and read bills, print them. */
  billList: 'bill:bill:list',
  /** Draft a project's month now. */
  billDraft: 'bill:bill:draft',
  /** Confirm (settle) a bill. */
  billConfirm: 'bill:bill:confirm',
  /** Correct a settled bill (a new version with its reason). */
  billCorrect: 'bill:bill:correct',
  /** Export a bill as xlsx. */
  billExport: 'bill:bill:export',

  /** Revenue statistics (/project/revenue; issue 17 item 4): energy per tier and its value per site, project, company. */
  revenueStatList: 'revenue:stat:list',
} as const;
export type PermissionString = (typeof Perm)[keyof typeof Perm];

/** The wildcard permission of administrator roles (RuoYi). */
export const ALL_PERMISSIONS = '*:*:*';

/** True when the permission list allows `permission` (the wildcard allows everything). */
export function allows(permissions: readonly string[], permission: string): boolean {
  return permissions.includes(ALL_PERMISSIONS) || permissions.includes(permission);
}
