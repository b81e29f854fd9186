/**
 * Error catalogue (spec §8): every answer code with its Chinese and English text.
 *
 * The server uses it for the `msg` of each `{code, msg, data}` answer (in the caller's
 * language); the console uses it to show a translated message for a known code.
 *
 * Codes not numbered by the spec but named by it, and codes the foundation needs, are marked
 * "ours" below; they are documented in docs/api.md.
 */
import type { Lang } from './lang';
import { fillTemplate } from './validation';

export interface CatalogueEntry {
  zh: string;
  en: string;
}

/** Code 0: success (spec §8). */
export const SUCCESS = 0;

export const ErrorCode = {
  PARAM_ERROR: -100,
  SYSTEM_ERROR: -101,
  LOGIN_EXPIRED: -102,
  TASK_GET_TRIGGER_FAILED: 2000,
  TASK_CREATE_FAILED: 2001,
  TASK_RUN_FAILED: 2002,
  TASK_PAUSE_FAILED: 2003,
  TASK_RECOVER_FAILED: 2004,
  TASK_UPDATE_FAILED: 2005,
  TASK_DELETE_FAILED: 2006,
  TASK_NOT_FOUND: 2007,
  DEVICE_NOT_FOUND: 3030,
  DEVICE_NO_MQTT_CONFIG: 3031,
  DEVICE_SN_EXISTS: 3032,
  DEVICE_NOT_CONNECTED: 3033,
  DEVICE_OFFLINE: 3034,
  DEVICE_SEND_FAILED: 3035,
  /** ours: the site does not exist (or is outside the caller's companies). */
  SITE_NOT_FOUND: 3036,
  /** ours: a site with devices cannot be deleted. */
  SITE_HAS_DEVICES: 3037,
  /** ours: a gateway with devices reporting through it cannot be deleted or demoted. */
  GATEWAY_HAS_DEVICES: 3038,
  /** ours: the site code is taken. */
  SITE_CODE_EXISTS: 3039,
  /**
   * ours: a device that reports through a gateway lives on its gateway's site: moved to another
   * site, it needs a gateway of that site (or its gateway moves, taking it along).
   */
  DEVICE_GATEWAY_ON_OTHER_SITE: 3040,
  /** ours: the device is already on that site, or the site already in that company. */
  ALREADY_THERE: 3041,
  /** ours: a device changes site, and a site company, only through their move calls. */
  MOVE_BY_ACTION: 3042,
  /** ours (issue 15): another debugging session is open on the gateway (`{name}`, `{until}`). */
  DEBUG_SESSION_BUSY: 3043,
  /** ours: the debugging session ended (idle timeout, closed, or never existed). */
  DEBUG_SESSION_ENDED: 3044,
  /** ours: more debugging frames per minute than allowed (`{max}`). */
  DEBUG_RATE_LIMITED: 3045,
  /** ours: a write frame needs the second confirmation. */
  DEBUG_WRITE_NOT_CONFIRMED: 3046,
  /** ours: parameters copied to a device of another type or model. */
  PARAMS_MODEL_MISMATCH: 3047,
  /** ours: no parameter change of the device is outstanding. */
  PARAMS_NOTHING_TO_SEND: 3048,
  /** ours, the spec's text (§8 "initialization already performed"), its code not shown. */
  INITIALIZATION_DONE: 3049,
  NO_EMS_TIME_PERIOD_CONFIG: 3060,
  NO_UPGRADE_FIRMWARE: 3061,
  /** ours: ToU plan rules (spec §5 "Plans", §9 limits); see tou/rules.ts. */
  TOU_LAST_END_NOT_MIDNIGHT: 3070,
  TOU_PERIODS_CONFLICT: 3071,
  /** ours: a daily plan covers the whole day from 00:00 without gaps. */
  TOU_PERIODS_GAP: 3072,
  TOU_PERIOD_TIER_PRICE_REQUIRED: 3073,
  TOU_PERIOD_STRATEGY_REQUIRED: 3074,
  TOU_EXCEPTION_DATE_REPEATED: 3075,
  TOU_YEAR_BEFORE_CURRENT: 3076,
  TOU_DAILY_PLAN_REFERENCED: 3077,
  TOU_WEEKLY_PLAN_REFERENCED: 3078,
  TOU_KEEP_ONE_PLAN_AND_ITEM: 3079,
  TOU_TOO_MANY_DAILY_PLANS: 3080,
  TOU_TOO_MANY_WEEKLY_PLANS: 3081,
  TOU_TOO_MANY_YEARLY_PLANS: 3082,
  TOU_TOO_MANY_DAILY_ITEMS: 3083,
  TOU_TOO_MANY_OTHER_ITEMS: 3084,
  /** spec §5 "number must be greater than 0" (prices, power setpoints). */
  TOU_NUMBER_NOT_POSITIVE: 3085,
  /** ours: SOC floor below ceiling, both within 0–100 %. */
  TOU_SOC_WINDOW_INVALID: 3086,
  /** ours: a date or yearly range that does not exist, is inverted or overlaps another. */
  TOU_YEAR_RANGE_INVALID: 3087,
  /** ours: two plans of one kind with the same number. */
  TOU_PLAN_KEY_REPEATED: 3088,
  /** ours: at most 16 exception plans per scheme. */
  TOU_TOO_MANY_EXCEPTION_PLANS: 3089,
  /** ours: the ToU scheme does not exist (or is outside the caller's companies). */
  TOU_SCHEME_NOT_FOUND: 3090,
  /** ours: the company already has a scheme with this name. */
  TOU_SCHEME_NAME_EXISTS: 3091,
  /** ours: a scheme assigned to sites cannot be deleted. */
  TOU_SCHEME_IN_USE: 3092,
  /** ours: the scheme changed since it was read (optimistic concurrency). */
  TOU_SCHEME_STALE: 3093,
  /** ours: a period time that is not HH:MM. */
  TOU_TIME_INVALID: 3094,
  /** ours (issue 17 item 6): the site has no storage capacity or PCS rating to plan a schedule for. */
  TOU_SITE_NO_BATTERY: 3095,
  /** ours: the alarm does not exist (or is outside the caller's companies). */
  ALARM_NOT_FOUND: 3100,
  /** ours: every alarm named was already acknowledged. */
  ALARM_ALREADY_ACKNOWLEDGED: 3101,
  /** ours: the mail does not exist in the caller's outbox. */
  MAIL_NOT_FOUND: 3103,
  /** ours: a time range whose end is not after its start (api/time-range.ts). */
  RANGE_INVERTED: 3120,
  /** ours: a time range longer than the call allows (`{maxDays}`). */
  RANGE_TOO_LONG: 3121,
  /** ours: a time range that starts in the future. */
  RANGE_IN_FUTURE: 3122,
  /** ours: a history request with more series than allowed (`{max}`). */
  HISTORY_TOO_MANY_SERIES: 3123,
  /** ours: a history point key that is not a point name (`{point}`). */
  HISTORY_POINT_INVALID: 3124,
  /** ours (spec §5 export): data to export must be selected. */
  EXPORT_DATA_REQUIRED: 3130,
  /** ours (spec §5/§9 export): at most `{max}` entries (energy-storage devices). */
  EXPORT_TOO_MANY_ENTRIES: 3131,
  /** ours (spec §5/§9 export): start and end at most `{maxDays}` days apart. */
  EXPORT_RANGE_TOO_LONG: 3132,
  /** ours (spec §5 export): the agent must be chosen first. */
  EXPORT_AGENT_REQUIRED: 3133,
  /** ours (spec §5 export): the time must be chosen first. */
  EXPORT_TIME_REQUIRED: 3134,
  /** ours (spec §5): a site must be selected for actions (the station, chosen first). */
  EXPORT_SITE_REQUIRED: 3135,
  /** ours (spec §5 export): the export type must be chosen first. */
  EXPORT_TYPE_REQUIRED: 3136,
  /** ours (spec §5 export): the energy-storage device must be chosen first. */
  EXPORT_DEVICE_REQUIRED: 3137,
  /** ours: a data item that the export type does not have (`{item}`). */
  EXPORT_ITEM_INVALID: 3138,
  DEPARTMENT_NOT_FOUND: 5000,
  /** ours: a department with sub-departments cannot be deleted. */
  DEPARTMENT_HAS_CHILDREN: 5001,
  /** ours: a department with employees cannot be deleted. */
  DEPARTMENT_HAS_EMPLOYEES: 5002,
  /** ours: a department cannot move under itself or one of its sub-departments. */
  DEPARTMENT_PARENT_INVALID: 5003,
  /** ours: a sibling department already has this name. */
  DEPARTMENT_NAME_EXISTS: 5004,
  ROLE_NOT_FOUND: 5031,
  ROLE_IN_USE: 5032,
  ROLE_ADMIN_UNDELETABLE: 5033,
  /** ours: the caller's roles do not grant the call's permission string. */
  NO_PERMISSION: 5034,
  /** ours: the role was changed by someone else since it was read (optimistic version check). */
  ROLE_VERSION_CONFLICT: 5035,
  /** ours: the company already has a role with this name or code. */
  ROLE_NAME_OR_CODE_EXISTS: 5036,
  /** ours: the menu entry does not exist. */
  MENU_NOT_FOUND: 5037,
  /** ours: a menu entry with children cannot be deleted. */
  MENU_HAS_CHILDREN: 5038,
  /** ours: built-in menu entries (seeded by migrations) cannot be deleted; hide them instead. */
  MENU_BUILT_IN: 5039,
  /** ours: the parent is missing, a button, or the entry itself or one below it. */
  MENU_PARENT_INVALID: 5040,
  ACCOUNT_HAS_EMPLOYEE: 5050,
  EMPLOYEE_NOT_FOUND: 5051,
  EMPLOYEE_DISABLED: 5052,
  EMPLOYEE_ADMIN_UNDELETABLE: 5053,
  OLD_PASSWORD_INCORRECT: 5054,
  PASSWORD_CONFIRM_MISMATCH: 5055,
  PASSWORD_SAME_AS_OLD: 5056,
  /** ours: an employee cannot disable or delete themself. */
  EMPLOYEE_SELF_ACTION: 5057,
  /**
   * ours: the account still has a password an administrator set (new account, reset); every
   * call but those marked `beforePasswordChange` (password change, user info, menu, logout) is
   * refused until it is changed.
   */
  PASSWORD_CHANGE_REQUIRED: 5058,
  /**
   * ours: the employee has not signed in yet (a new account, or an existing one that has not
   * accepted the company's invitation), so its password cannot be reset.
   */
  EMPLOYEE_AWAITING_SIGN_IN: 5059,
  /** ours: no pending invitation of the caller's account from that company. */
  INVITATION_NOT_FOUND: 5060,
  BAD_CREDENTIALS: 5080,
  TOKEN_OBTAIN_FAILED: 5081,
  /** ours: sign-in throttled after repeated failures. */
  LOGIN_THROTTLED: 5082,
  /** ours: a rate-limited call was made too often. */
  TOO_MANY_REQUESTS: 5083,
  COMPANY_NOT_FOUND: 6000,
  COMPANY_DISABLED: 6001,
  COMPANY_NAME_OR_PHONE_EXISTS: 6002,
  DEVICE_ASSIGNED_TO_OTHER_AGENT: 6003,
  DEVICE_BOUND_TO_PROJECT: 6004,
  /** ours: the caller's own company cannot be disabled (or moved) by itself. */
  COMPANY_SELF_ACTION: 6005,
  PROJECT_NAME_EXISTS: 7000,
  PROJECT_NOT_FOUND: 7001,
  /** ours (issue 17): a project with sites bound cannot be deleted; unbind them first. */
  PROJECT_HAS_SITES: 7002,
  /** ours (issue 17): the status change is not allowed (the reason names the allowed ones). */
  PROJECT_STATUS_CHANGE_REFUSED: 7003,
  /** ours (issue 17 meter swap): the swap instant is after now. */
  METER_SWAP_IN_FUTURE: 7004,
  /**
   * ours (issue 17 meter swap): the swap instant is in a settled month of the site: it cannot be
   * before `{date}` (the same rule as 7020, devices/tariff-history.ts `firstUnsettledDate`).
   */
  METER_SWAP_SETTLED: 7005,
  /**
   * ours (issue 17 meter swap): the old meter's final `{register}` reading `{final}` kWh is lower
   * than its last stored reading before the swap, `{last}` kWh at `{at}` (site-local).
   */
  METER_SWAP_READING_BACKWARDS: 7006,
  /** ours (issue 17 meter swap): the meter already has a swap at `{at}`, at or after the new one. */
  METER_SWAP_NOT_LATEST: 7007,
  /**
   * ours (issue 17 meter swap): only the meter's latest swap, in an unsettled month, can be
   * deleted (or the swap does not exist / is outside the caller's companies).
   */
  METER_SWAP_NOT_DELETABLE: 7008,
  /** ours (issue 17 item 2): a tariff version cannot start before `{date}` (a settled month). */
  TARIFF_DATE_SETTLED: 7020,
  /** The firmware package does not exist, or is outside the caller's companies (issue 16). */
  INSTALL_PACKAGE_NOT_FOUND: 7030,
  /** ours (issue 16): a package larger than `{maxMiB}` MiB, refused while it streams. */
  FIRMWARE_TOO_LARGE: 7031,
  /** ours: the device type already has a package of this version (`{version}`). */
  FIRMWARE_VERSION_EXISTS: 7032,
  /** ours: the SHA-256 the uploader expected is not the file's; nothing stored. */
  FIRMWARE_CHECKSUM_MISMATCH: 7033,
  /** ours: the upload was cut short (fewer bytes than announced, aborted) or empty; nothing stored. */
  FIRMWARE_UPLOAD_INCOMPLETE: 7034,
  /** ours: the package's state (`{state}`) does not allow the change. */
  FIRMWARE_STATE_INVALID: 7035,
  /** ours: an upgrade batch names the package, so it cannot be deleted. */
  FIRMWARE_IN_USE: 7036,
  /** ours: the upgrade batch does not exist, or is outside the caller's companies. */
  UPGRADE_BATCH_NOT_FOUND: 7037,
  /** ours: the batch's state (`{state}`) does not allow the action. */
  UPGRADE_BATCH_STATE_INVALID: 7038,
  /** ours: a chosen device cannot be upgraded (`{sn}`, `{reason}` translated). */
  UPGRADE_DEVICE_EXCLUDED: 7039,
  /** ours: no failed device to retry. */
  UPGRADE_NOTHING_TO_RETRY: 7040,
  /** ours: no device that has not started, to cancel. */
  UPGRADE_NOTHING_TO_CANCEL: 7041,
  /** ours: the batch's deadline is not in the future. */
  UPGRADE_DEADLINE_PAST: 7042,
  /** ours: spec §8 names the text without a number. */
  SETTLEMENT_ALREADY_DONE: 7060,
  /** ours: spec §8 names the text without a number. */
  INITIALIZATION_ALREADY_DONE: 7061,
  /** ours (issue 17 item 5): the bill does not exist (or is outside the caller's companies). */
  BILL_NOT_FOUND: 7062,
  /** ours (issue 17 item 5): only the month's latest version, once settled, can be corrected. */
  BILL_NOT_CORRECTABLE: 7063,
  /**
   * ours (issue 17 item 5 review): the bill's month has not ended in the zone of every site bound
   * to the project in it (money/bill.ts `billMonthEndMs`); it can be drafted (month to date) but
   * not settled yet.
   */
  BILL_MONTH_NOT_ENDED: 7064,
  /**
   * ours (issue 17 review): no site was bound to the project on any day of the month (before its
   * first binding, after its last one ended): there is no energy to bill, only costs.
   */
  BILL_NO_SITE_BOUND: 7065,
  TIME_INCONSISTENT: 9996,
  TOKEN_KEY_INCORRECT: 9997,
  TOKEN_INVALID: 9999,
  /** ours (vue-element-admin convention named by spec §8): malformed token. */
  ILLEGAL_TOKEN: 50008,
  /** ours: the session was ended elsewhere (logout, disabled employee, refresh-token reuse). */
  SESSION_REVOKED: 50012,
  /** ours: the access token expired; the client refreshes it once with its refresh token. */
  ACCESS_TOKEN_EXPIRED: 50014,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** zh and en text of every code. `{field}`-style placeholders are filled by {@link errorMessage}. */
export const errorCatalogue: Record<ErrorCodeValue, CatalogueEntry> = {
  [-100]: { zh: '请求参数错误', en: 'Request parameter error' },
  [-101]: { zh: '系统异常，请联系管理员', en: 'System exception, please contact the administrator' },
  [-102]: { zh: '登录已过期，请重新登录', en: 'Login expired, please log in again' },
  2000: { zh: '获取定时任务触发器失败', en: 'Failed to get the scheduled task trigger' },
  2001: { zh: '创建定时任务失败', en: 'Failed to create the scheduled task' },
  2002: { zh: '执行定时任务失败', en: 'Failed to run the scheduled task' },
  2003: { zh: '暂停定时任务失败', en: 'Failed to pause the scheduled task' },
  2004: { zh: '恢复定时任务失败', en: 'Failed to recover the scheduled task' },
  2005: { zh: '更新定时任务失败', en: 'Failed to update the scheduled task' },
  2006: { zh: '删除定时任务失败', en: 'Failed to delete the scheduled task' },
  2007: { zh: '定时任务不存在', en: 'Scheduled task not found' },
  3030: { zh: '未查询到设备', en: 'No device found' },
  3031: { zh: '设备没有MQTT配置', en: 'The device has no MQTT configuration' },
  3032: { zh: '设备SN已存在', en: 'Device SN already exists' },
  3033: { zh: '设备未连接', en: 'Device not connected' },
  3034: { zh: '设备离线', en: 'Device offline' },
  3035: { zh: '向设备发送数据异常', en: 'Sending data to the device failed' },
  3036: { zh: '站点不存在', en: 'Site not found' },
  3037: { zh: '站点下还有设备，不能删除', en: 'The site still has devices and cannot be deleted' },
  3038: {
    zh: '还有设备经此网关上报，不能删除',
    en: 'Devices still report through this gateway; it cannot be deleted',
  },
  3039: { zh: '站点编码已存在', en: 'Site code already exists' },
  3040: {
    zh: '经网关上报的设备只能在其网关所在的站点：请选择目标站点的网关，或移动网关',
    en: 'A device that reports through a gateway lives on its gateway’s site: choose a gateway of the target site, or move the gateway',
  },
  3041: { zh: '已在目标站点或公司，无需移动', en: 'It is already there: nothing to move' },
  3042: {
    zh: '更换设备的站点或站点的所属公司，请使用“移动”操作',
    en: 'A device changes site, and a site changes company, only through the move action',
  },
  3043: {
    zh: '{name}正在调试该网关（至{until}），请稍后再试',
    en: '{name} is debugging this gateway (until {until}); try again later',
  },
  3044: { zh: '调试会话已结束，请重新开始', en: 'The debugging session has ended; open a new one' },
  3045: {
    zh: '发送过于频繁：每分钟最多{max}帧',
    en: 'Too many frames: at most {max} per minute',
  },
  3046: { zh: '写操作需要再次确认', en: 'A write needs a second confirmation' },
  3047: {
    zh: '目标设备的类型或型号与源设备不同',
    en: 'The target device is of another type or model than the source',
  },
  3048: { zh: '没有待下发的参数修改', en: 'No parameter change is waiting to be sent' },
  3049: { zh: '已经执行过初始化', en: 'Initialization already performed' },
  3060: { zh: '没有EMS时段配置', en: 'No EMS time period configuration' },
  3061: { zh: '没有升级固件信息', en: 'No upgrade firmware information' },
  3070: {
    zh: '日计划最后一个时段的结束时间必须为00:00',
    en: 'The last end time of a daily plan must be 00:00',
  },
  3071: { zh: '时段不能重叠或冲突', en: 'Periods must not overlap or conflict' },
  3072: {
    zh: '时段须从00:00开始且首尾相接，不能有空档',
    en: 'Periods must start at 00:00 and follow one another without gaps',
  },
  3073: { zh: '每个时段都需要峰谷类型和电价', en: 'Every period needs a peak-valley type and a price' },
  3074: { zh: '每个时段都需要配置策略', en: 'A strategy must be configured for each period' },
  3075: { zh: '例外计划日期不能重复', en: 'Exception plan dates must not repeat' },
  3076: {
    zh: '当前年份之前的年/月设置必须删除',
    en: 'Year/month settings before the current year must be deleted',
  },
  3077: {
    zh: '日计划被周计划或例外计划引用，不能删除',
    en: 'The daily plan is referenced by a weekly cycle or an exception plan and cannot be deleted',
  },
  3078: {
    zh: '周计划被年/月设置引用，不能删除',
    en: 'The weekly cycle is referenced by a year/month setting and cannot be deleted',
  },
  3079: { zh: '至少保留一个日计划和一个条目', en: 'At least one daily plan and one item must remain' },
  3080: { zh: '日计划最多{max}个', en: 'At most {max} daily plans' },
  3081: { zh: '周计划最多{max}个', en: 'At most {max} weekly plans' },
  3082: { zh: '年计划最多{max}个', en: 'At most {max} yearly plans' },
  3083: { zh: '每个日计划最多{max}个时段', en: 'At most {max} periods per daily plan' },
  3084: { zh: '每个计划最多{max}个条目', en: 'At most {max} items per plan' },
  3085: { zh: '数字必须大于0', en: 'Number must be greater than 0' },
  3086: {
    zh: 'SOC下限必须小于上限，且在0–100%之间',
    en: 'The SOC floor must be below the ceiling, within 0–100 %',
  },
  3087: {
    zh: '日期或日期范围无效或与其他范围重叠',
    en: 'The date or date range is invalid or overlaps another',
  },
  3088: { zh: '计划编号重复', en: 'Plan number repeated' },
  3089: { zh: '例外计划最多{max}个', en: 'At most {max} exception plans' },
  3090: { zh: '电价方案不存在', en: 'ToU scheme not found' },
  3091: { zh: '电价方案名称已存在', en: 'A ToU scheme with this name already exists' },
  3092: {
    zh: '电价方案已分配给站点，不能删除',
    en: 'The ToU scheme is assigned to sites and cannot be deleted',
  },
  3093: {
    zh: '电价方案已被他人修改，请刷新后重试',
    en: 'The ToU scheme was changed by someone else; reload it and try again',
  },
  3094: { zh: '时间格式应为HH:MM', en: 'Times must be written HH:MM' },
  3095: {
    zh: '该站点没有储能容量或PCS额定功率，无法计算最优计划',
    en: 'The site has no storage capacity or PCS rating to plan a schedule for',
  },
  3100: { zh: '告警不存在', en: 'Alarm not found' },
  3101: { zh: '告警已被确认', en: 'The alarm was already acknowledged' },
  3103: { zh: '邮件不存在', en: 'Mail not found' },
  3120: { zh: '结束时间必须晚于开始时间', en: 'The end time must be after the start time' },
  3121: { zh: '时间范围不能超过{maxDays}天', en: 'The time range cannot exceed {maxDays} days' },
  3122: { zh: '开始时间不能晚于当前时间', en: 'The time range cannot start in the future' },
  3123: { zh: '最多选择{max}条曲线', en: 'At most {max} series can be chosen' },
  3124: { zh: '测点名称无效：{point}', en: 'Invalid point name: {point}' },
  3130: { zh: '请选择要导出的数据', en: 'Please select the data to export' },
  3131: { zh: '最多只能导出{max}条', en: 'At most {max} entries can be exported' },
  3132: {
    zh: '开始时间和结束时间相差不能超过{maxDays}天',
    en: 'Start and end time can be at most {maxDays} days apart',
  },
  3133: { zh: '请先选择代理商', en: 'Please choose the agent first' },
  3134: { zh: '请先选择时间', en: 'Please choose the time first' },
  3135: { zh: '请先选择站点再操作', en: 'A site must be selected for actions' },
  3136: { zh: '请先选择导出类型', en: 'Please choose the export type first' },
  3137: { zh: '请先选择储能设备', en: 'Please choose the energy storage device first' },
  3138: { zh: '导出数据项无效：{item}', en: 'Invalid data item to export: {item}' },
  5000: { zh: '部门不存在', en: 'Department not found' },
  5001: {
    zh: '该部门存在下级部门，不能删除',
    en: 'The department has sub-departments and cannot be deleted',
  },
  5002: { zh: '该部门存在员工，不能删除', en: 'The department has employees and cannot be deleted' },
  5003: {
    zh: '上级部门不能是自己或自己的下级部门',
    en: 'A department cannot be placed under itself or one of its sub-departments',
  },
  5004: { zh: '同级部门名称已存在', en: 'A department with this name already exists at this level' },
  5031: { zh: '角色不存在', en: 'Role not found' },
  5032: { zh: '角色已被使用，不能删除', en: 'The role is in use and cannot be deleted' },
  5033: { zh: '管理员角色不能删除', en: 'The administrator role cannot be deleted' },
  5034: { zh: '没有该操作的权限', en: 'You do not have permission for this operation' },
  5035: {
    zh: '角色已被他人修改，请刷新后重试',
    en: 'The role was changed by someone else; reload it and try again',
  },
  5036: { zh: '角色名称或编码已存在', en: 'The role name or code already exists' },
  5037: { zh: '菜单不存在', en: 'Menu entry not found' },
  5038: { zh: '存在子菜单，不能删除', en: 'The menu entry has children and cannot be deleted' },
  5039: {
    zh: '内置菜单不能删除，可设为隐藏',
    en: 'Built-in menu entries cannot be deleted; hide them instead',
  },
  5040: {
    zh: '上级菜单无效（不存在、是按钮，或是自己及下级）',
    en: 'Invalid parent menu (missing, a button, or the entry itself or one below it)',
  },
  5050: { zh: '该账号已存在员工', en: 'This account already has an employee' },
  5051: { zh: '员工不存在', en: 'Employee does not exist' },
  5052: { zh: '账号已禁用，无法登录', en: 'Account disabled, cannot log in' },
  5053: { zh: '管理员员工不能删除', en: 'An administrator employee cannot be deleted' },
  5054: { zh: '原密码错误', en: 'The original password is incorrect' },
  5055: { zh: '新密码与确认密码不一致', en: 'The new and confirmed passwords do not match' },
  5056: { zh: '新密码不能与原密码相同', en: 'The new password is the same as the original' },
  5057: { zh: '不能禁用或删除自己', en: 'You cannot disable or delete yourself' },
  5058: {
    zh: '管理员为您设置了初始密码，请先修改密码',
    en: 'An administrator set your password; please change it first',
  },
  5059: {
    zh: '该员工尚未首次登录，不能重置密码；可删除后重新添加',
    en: 'The employee has not signed in yet, so the password cannot be reset; delete and add them again',
  },
  5060: { zh: '邀请不存在或已处理', en: 'The invitation does not exist or was already answered' },
  5080: { zh: '账号或密码错误', en: 'Incorrect account or password' },
  5081: { zh: '获取令牌失败，请重新登录', en: 'Failed to obtain a token, please log in again' },
  5082: {
    zh: '登录失败次数过多，请{minutes}分钟后再试',
    en: 'Too many failed sign-in attempts, try again in {minutes} minute(s)',
  },
  5083: { zh: '操作过于频繁，请稍后再试', en: 'Too many requests, please try again later' },
  6000: { zh: '公司不存在', en: 'Company does not exist' },
  6001: { zh: '公司已禁用', en: 'Company disabled' },
  6002: { zh: '名称或联系电话已存在', en: 'Name or contact number already exists' },
  6003: { zh: '设备已分配给其他代理商', en: 'The device is already assigned to another agent' },
  6004: { zh: '设备已绑定项目', en: 'The device is already bound to a project' },
  6005: { zh: '不能禁用或移动自己所在的公司', en: 'You cannot disable or move your own company' },
  7000: { zh: '项目名称已存在', en: 'Project name already exists' },
  7001: { zh: '项目不存在', en: 'Project does not exist' },
  7002: {
    zh: '项目仍绑定站点，请先解绑站点再删除',
    en: 'The project still has sites bound; unbind them before deleting it',
  },
  7003: { zh: '项目状态不能这样变更', en: 'The project status cannot change this way' },
  7004: { zh: '换表时间不能晚于当前时间', en: 'The meter swap cannot be in the future' },
  7005: {
    zh: '换表时间不能早于{date}（之前的月份已结算）',
    en: 'The meter swap cannot be before {date} (the months before are settled)',
  },
  7006: {
    zh: '旧表{register}止码{final} kWh低于换表前最后一次读数{last} kWh（{at}）',
    en: 'The old meter’s final {register} reading, {final} kWh, is lower than its last reading before the swap, {last} kWh ({at})',
  },
  7007: {
    zh: '该电表在{at}已有换表记录，新的换表时间须晚于它',
    en: 'This meter already has a swap at {at}; a new swap must be later',
  },
  7008: {
    zh: '只能删除该电表最近一次、且在未结算月份的换表记录',
    en: 'Only the meter’s latest swap, in a month not settled, can be deleted',
  },
  7020: {
    zh: '电价生效日期不能早于{date}（之前的月份已结算）',
    en: 'The tariff cannot apply before {date} (the months before are settled)',
  },
  7030: { zh: '安装包不存在', en: 'Installation package does not exist' },
  7031: { zh: '固件包不能超过{maxMiB} MiB', en: 'A firmware package cannot exceed {maxMiB} MiB' },
  7032: {
    zh: '该设备类型已有版本为{version}的固件包',
    en: 'This device type already has a firmware package of version {version}',
  },
  7033: {
    zh: '文件的SHA-256与填写的不一致，未保存',
    en: 'The file’s SHA-256 differs from the one given; nothing was stored',
  },
  7034: {
    zh: '上传未完成（文件被截断、中断或为空），未保存',
    en: 'The upload did not complete (file cut short, aborted or empty); nothing was stored',
  },
  7035: {
    zh: '固件包当前状态为“{state}”，不能进行此操作',
    en: 'The package is {state}: this is not allowed',
  },
  7036: {
    zh: '固件包已被升级批次使用，不能删除',
    en: 'An upgrade batch uses this package, so it cannot be deleted',
  },
  7037: { zh: '升级批次不存在', en: 'Upgrade batch not found' },
  7038: {
    zh: '升级批次当前状态为“{state}”，不能进行此操作',
    en: 'The batch is {state}: this is not allowed',
  },
  7039: { zh: '设备{sn}不能升级：{reason}', en: 'Device {sn} cannot be upgraded: {reason}' },
  7040: { zh: '没有可重试的失败设备', en: 'No failed device to retry' },
  7041: { zh: '没有未开始的设备可取消', en: 'No device that has not started, to cancel' },
  7042: { zh: '截止时间必须晚于当前时间', en: 'The deadline must be in the future' },
  7060: { zh: '电费已结算', en: 'Electricity settlement already done' },
  7061: { zh: '已执行过初始化', en: 'Initialization already performed' },
  7062: { zh: '账单不存在', en: 'Bill not found' },
  7063: {
    zh: '只能更正该月最新且已结算的账单',
    en: 'Only the month’s latest settled bill can be corrected',
  },
  7064: {
    zh: '账单月份尚未结束，月末后才能结算',
    en: 'The month has not ended yet; it can be settled after its last day',
  },
  7065: {
    zh: '该月项目没有绑定站点，无法生成账单',
    en: 'No site was bound to the project in that month; there is nothing to bill',
  },
  9996: { zh: '时间与服务器不一致', en: 'Time inconsistent with the server' },
  9997: { zh: '令牌密钥错误', en: 'Token key incorrect' },
  9999: { zh: '令牌无效，请重新登录', en: 'Token invalid, please log in again' },
  50008: { zh: '非法令牌', en: 'Illegal token' },
  50012: { zh: '您的会话已在其他地方结束', en: 'Your session was ended elsewhere' },
  50014: { zh: '令牌已过期', en: 'Token expired' },
};

/** Codes after which the console clears the session and reloads after 100 ms (spec §8). */
export const CLEAR_SESSION_CODES: readonly number[] = [ErrorCode.LOGIN_EXPIRED, ErrorCode.TOKEN_INVALID];

/** Codes after which the console asks the user to log in again (spec §8). */
export const RELOGIN_CONFIRM_CODES: readonly number[] = [
  ErrorCode.ILLEGAL_TOKEN,
  ErrorCode.SESSION_REVOKED,
  ErrorCode.ACCESS_TOKEN_EXPIRED,
];

/** True when `code` is in the catalogue. */
export function isKnownCode(code: number): code is ErrorCodeValue {
  return Object.hasOwn(errorCatalogue, code);
}

/**
 * The text of `code` in `lang`, with `{name}` placeholders replaced from `params`.
 * Unknown codes give the generic 'Error' text the console shows for them (spec §8).
 */
export function errorMessage(code: number, lang: Lang, params: Record<string, string | number> = {}): string {
  const entry = isKnownCode(code) ? errorCatalogue[code] : { zh: '错误', en: 'Error' };
  return fillTemplate(entry[lang], params);
}
