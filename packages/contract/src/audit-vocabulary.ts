/**
 * The closed vocabulary of the operation log: every action the
 * server records and every target type, with their Chinese and English names.
 *
 * An action is `<resource>.<verb>` and is recorded by the call that declares it in the endpoint
 * table (endpoints.ts `audit`); the table's entries are typed with {@link AuditAction}, and a
 * test checks that this list holds exactly the actions of the table (nothing missing, nothing
 * extra). Wordings follow the console's operation-log screen.
 */
import type { Lang } from './lang';

/** Company kinds with their own screens; each records `<kind>.save|update|status`. */
const COMPANY_KIND_LABELS = {
  agent: { zh: '代理商', en: 'agent' },
  investor: { zh: '投资方', en: 'investor' },
  construction: { zh: '施工方', en: 'construction party' },
  owner: { zh: '用户公司', en: 'owner company' },
} as const;

const companyActions = <K extends keyof typeof COMPANY_KIND_LABELS>(kind: K) => {
  const { zh, en } = COMPANY_KIND_LABELS[kind];
  return {
    [`${kind}.save`]: { zh: `新增${zh}`, en: `Add ${en}` },
    [`${kind}.update`]: { zh: `修改${zh}`, en: `Update ${en}` },
    [`${kind}.status`]: { zh: `启用/禁用${zh}`, en: `Enable/disable ${en}` },
  } as Record<`${K}.${'save' | 'update' | 'status'}`, { zh: string; en: string }>;
};

/**
 * Every recorded action and its name (zh, en). Grouped as the operation-log filter offers them:
 * sign-in and own account, people and access, companies, devices, ToU, alarms.
 */
const ACTION_LABELS = {
  'user.login': { zh: '登录', en: 'Sign in' },
  'user.logout': { zh: '退出登录', en: 'Sign out' },
  'account.updatePassword': { zh: '修改密码', en: 'Change password' },
  'account.updateEmail': { zh: '修改邮件订阅', en: 'Change e-mail subscription' },
  'account.acceptInvitation': { zh: '接受公司邀请', en: 'Accept company invitation' },
  'account.declineInvitation': { zh: '拒绝公司邀请', en: 'Decline company invitation' },

  'employee.save': { zh: '新增员工', en: 'Add employee' },
  'employee.update': { zh: '修改员工', en: 'Update employee' },
  'employee.status': { zh: '启用/禁用员工', en: 'Enable/disable employee' },
  'employee.delete': { zh: '删除员工', en: 'Delete employee' },
  'employee.resetPassword': { zh: '重置员工密码', en: 'Reset employee password' },
  'department.save': { zh: '新增部门', en: 'Add department' },
  'department.update': { zh: '修改部门', en: 'Update department' },
  'department.delete': { zh: '删除部门', en: 'Delete department' },
  'role.save': { zh: '新增角色', en: 'Add role' },
  'role.update': { zh: '修改角色', en: 'Update role' },
  'role.delete': { zh: '删除角色', en: 'Delete role' },
  'role.copy': { zh: '复制角色', en: 'Copy role' },
  'menu.save': { zh: '新增菜单', en: 'Add menu' },
  'menu.update': { zh: '修改菜单', en: 'Update menu' },
  'menu.delete': { zh: '删除菜单', en: 'Delete menu' },

  ...companyActions('agent'),
  'agent.assignDevices': { zh: '为代理商分配设备', en: 'Assign devices to agent' },
  'agent.unassignDevices': { zh: '收回代理商的设备', en: 'Take devices back from agent' },
  ...companyActions('investor'),
  ...companyActions('construction'),
  ...companyActions('owner'),

  'site.save': { zh: '新增站点', en: 'Add site' },
  'site.update': { zh: '修改站点', en: 'Update site' },
  'site.delete': { zh: '删除站点', en: 'Delete site' },
  'site.moveCompany': { zh: '移动站点到其他公司', en: 'Move site to another company' },
  'device.save': { zh: '新增设备', en: 'Add device' },
  'device.update': { zh: '修改设备', en: 'Update device' },
  'device.delete': { zh: '删除设备', en: 'Delete device' },
  'device.resetSecret': { zh: '重置设备密钥', en: 'Re-issue device secret' },
  'device.moveSite': { zh: '移动设备到其他站点', en: 'Move device to another site' },

  'tou.save': { zh: '新建电价方案', en: 'Add ToU scheme' },
  'tou.update': { zh: '修改电价方案', en: 'Update ToU scheme' },
  'tou.delete': { zh: '删除电价方案', en: 'Delete ToU scheme' },
  'tou.assign': { zh: '为电价方案分配站点', en: 'Assign sites to ToU scheme' },
  'tou.push': { zh: '下发电价方案', en: 'Push ToU scheme' },

  'params.set': { zh: '修改设备参数', en: 'Change device parameters' },
  'params.retry': { zh: '重发设备参数', en: 'Re-send device parameters' },
  'params.copy': { zh: '复制设备参数', en: 'Copy device parameters' },
  'params.initialize': { zh: '站点初始化', en: 'Initialize site' },
  'debug.open': { zh: '开始透明调试', en: 'Open debugging session' },
  'debug.send': { zh: '透明调试发送帧', en: 'Send debugging frame' },
  'debug.close': { zh: '结束透明调试', en: 'Close debugging session' },

  'firmware.upload': { zh: '上传固件包', en: 'Upload firmware package' },
  'firmware.publish': { zh: '发布固件包', en: 'Publish firmware package' },
  'firmware.disable': { zh: '禁用固件包', en: 'Disable firmware package' },
  'firmware.delete': { zh: '删除固件包', en: 'Delete firmware package' },
  'upgrade.create': { zh: '创建升级批次', en: 'Start upgrade batch' },
  'upgrade.retry': { zh: '重试升级失败设备', en: 'Retry failed upgrades' },
  'upgrade.cancel': { zh: '取消未开始的升级', en: 'Cancel upgrades not started' },
  'upgrade.pause': { zh: '暂停升级批次', en: 'Pause upgrade batch' },
  'upgrade.resume': { zh: '继续升级批次', en: 'Resume upgrade batch' },

  'alarm.ack': { zh: '确认告警', en: 'Acknowledge alarms' },

  'job.create': { zh: '新增定时任务', en: 'Create scheduled task' },
  'job.update': { zh: '修改定时任务', en: 'Edit scheduled task' },
  'job.delete': { zh: '删除定时任务', en: 'Delete scheduled task' },
  'job.pause': { zh: '暂停定时任务', en: 'Pause scheduled task' },
  'job.recover': { zh: '恢复定时任务', en: 'Recover scheduled task' },
  'job.trigger': { zh: '手动执行定时任务', en: 'Trigger scheduled task' },

  'project.save': { zh: '新增项目', en: 'Add project' },
  'project.update': { zh: '修改项目', en: 'Update project' },
  'project.delete': { zh: '删除项目', en: 'Delete project' },
  'project.status': { zh: '变更项目状态', en: 'Change project status' },
  'project.bind': { zh: '项目绑定站点', en: 'Bind sites to project' },
  'project.unbind': { zh: '项目解绑站点', en: 'Unbind site from project' },
  'project.meterSwap': { zh: '记录更换电表', en: 'Record meter swap' },
  'project.meterSwapDelete': { zh: '删除换表记录', en: 'Delete meter swap' },

  'bill.draft': { zh: '生成账单', en: 'Draft bill' },
  'bill.confirm': { zh: '确认结算账单', en: 'Settle bill' },
  'bill.correct': { zh: '更正账单', en: 'Correct bill' },
} as const satisfies Record<string, Readonly<Record<Lang, string>>>;

/** An action the operation log records, e.g. `role.update`, `tou.push`, `user.login`. */
export type AuditAction = keyof typeof ACTION_LABELS;

/** Every recorded action, in the order the operation-log filter offers them. */
export const AUDIT_ACTIONS = Object.keys(ACTION_LABELS) as readonly AuditAction[];

/** Names of the recorded actions (zh, en): the console's operation log shows these. */
export const AUDIT_ACTION_LABELS: Readonly<Record<AuditAction, Readonly<Record<Lang, string>>>> =
  ACTION_LABELS;

/** True when `action` is in the vocabulary. */
export function isAuditAction(action: string): action is AuditAction {
  return Object.hasOwn(ACTION_LABELS, action);
}

/**
 * The name of `action` in `lang` ('tou.push' → '下发电价方案' / 'Push ToU scheme'). An action
 * outside the vocabulary (an entry written by an older version) answers its own key.
 */
export function auditActionLabel(action: string, lang: Lang): string {
  return isAuditAction(action) ? ACTION_LABELS[action][lang] : action;
}

const TARGET_LABELS = {
  account: { zh: '账号', en: 'Account' },
  session: { zh: '会话', en: 'Session' },
  employee: { zh: '员工', en: 'Employee' },
  department: { zh: '部门', en: 'Department' },
  role: { zh: '角色', en: 'Role' },
  menu: { zh: '菜单', en: 'Menu' },
  company: { zh: '公司', en: 'Company' },
  site: { zh: '站点', en: 'Site' },
  device: { zh: '设备', en: 'Device' },
  tou_scheme: { zh: '电价方案', en: 'ToU scheme' },
  firmware_package: { zh: '固件包', en: 'Firmware package' },
  upgrade_batch: { zh: '升级批次', en: 'Upgrade batch' },
  alarm: { zh: '告警', en: 'Alarm' },
  job: { zh: '定时任务', en: 'Scheduled task' },
  project: { zh: '项目', en: 'Project' },
  bill: { zh: '电费账单', en: 'Monthly bill' },
} as const satisfies Record<string, Readonly<Record<Lang, string>>>;

/** The type of row an operation-log entry names as its target (`targetType`). */
export type AuditTargetType = keyof typeof TARGET_LABELS;

/** Every target type, in the order the operation-log filter offers them. */
export const AUDIT_TARGET_TYPES = Object.keys(TARGET_LABELS) as readonly AuditTargetType[];

/** Names of the target types (zh, en), capitalised in English: they stand alone in a column. */
export const AUDIT_TARGET_LABELS: Readonly<Record<AuditTargetType, Readonly<Record<Lang, string>>>> =
  TARGET_LABELS;

/** True when `type` is in the vocabulary. */
export function isAuditTargetType(type: string): type is AuditTargetType {
  return Object.hasOwn(TARGET_LABELS, type);
}

/** The name of target type `type` in `lang` ('tou_scheme' → '电价方案' / 'ToU scheme'); unknown → itself. */
export function auditTargetLabel(type: string, lang: Lang): string {
  return isAuditTargetType(type) ? TARGET_LABELS[type][lang] : type;
}
