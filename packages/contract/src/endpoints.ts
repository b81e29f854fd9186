/**
 * The endpoint table (design §2 "Inside the server", issue 11 items 3 and 6): every
 * `/api-bms/*` call once — its path, request and response schemas, who may call it, what the
 * operation log records, and its API-reference summary. The server registers its routes from
 * this table and the console's client is typed from it.
 *
 * Conventions of every call (spec §7, design §4): `POST` with a JSON body; HTTP 200 with
 * `{code, msg, data}`; `data` is the endpoint's `response` on success (`code` 0) and `null` on
 * any error (use {@link envelopeFor}). Bad input answers -100 naming the field. Error codes of
 * each call are listed in its `summary` / `description` (texts in errors.ts).
 *
 * The one exception is `export.xlsx` (`file` set): a valid request answers the file itself,
 * a refusal the usual envelope with `data: null`.
 *
 * Organised as `endpoints.<area>.<call>`; {@link ALL_ENDPOINTS} lists them flat.
 */
import type { z } from 'zod';
import {
  alarmAckRequest,
  alarmAckResponse,
  alarmActiveListRequest,
  alarmActiveListResponse,
  alarmFilterOptionsRequest,
  alarmFilterOptionsResponse,
  alarmHistoryListRequest,
  alarmHistoryListResponse,
  mailOutboxDetailRequest,
  mailOutboxDetailResponse,
  mailOutboxListRequest,
  mailOutboxListResponse,
} from './api/alarm';
import { operationLogListRequest, operationLogListResponse } from './api/audit';
import { dashboardRequest, dashboardResponse } from './api/dashboard';
import {
  emailSettingsSchema,
  getEmailRequest,
  updateEmailRequest,
  updatePasswordRequest,
} from './api/employee';
import { type API_PREFIX, envelopeOf } from './api/envelope';
import {
  exportDevicesRequest,
  exportDevicesResponse,
  exportRequest,
  exportSitesRequest,
  exportSitesResponse,
  exportXlsxResponse,
  XLSX_MIME,
} from './api/export';
import {
  getLanguageMenuRequest,
  getLanguageMenuResponse,
  menuInput,
  menuListRequest,
  menuListResponse,
  menuUpdate,
} from './api/menu';
import {
  compareRequest,
  compareResponse,
  energyRequest,
  energyResponse,
  historyRequest,
  historyResponse,
  pickOptionsRequest,
  pickOptionsResponse,
  realtimeRequest,
  realtimeResponse,
  trendRequest,
} from './api/monitor';
import {
  agentAssignRequest,
  agentDevicesRequest,
  agentDevicesResponse,
  type CompanyKind,
  companyInput,
  companyListRequest,
  companyListResponse,
  companyOptionsRequest,
  companyOptionsResponse,
  companyStatusRequest,
  companyUpdate,
  departmentInput,
  departmentListRequest,
  departmentListResponse,
  departmentUpdate,
  employeeListRequest,
  employeeListResponse,
  employeeResetPasswordRequest,
  employeeRowSchema,
  employeeSaveRequest,
  employeeSaveResponse,
  employeeStatusRequest,
  employeeUpdateRequest,
  roleCopyRequest,
  roleDetailSchema,
  roleListRequest,
  roleListResponse,
  roleMenuOptionsRequest,
  roleMenuOptionsResponse,
  roleSaveRequest,
  roleUpdateRequest,
} from './api/organisation';
import { createdIdResponse, idRequest, nullResponse } from './api/primitives';
import {
  deviceInput,
  deviceListRequest,
  deviceListResponse,
  deviceSaveResponse,
  deviceSecretResponse,
  deviceUpdate,
  siteInput,
  siteListRequest,
  siteListResponse,
  siteUpdate,
} from './api/registry';
import {
  cockpitAggregatesSchema,
  cockpitResponse,
  screenRequest,
  screenSiteRequest,
  screenSiteResponse,
  screenSitesResponse,
} from './api/screen';
import {
  siteMonitorDetailRequest,
  siteMonitorDetailResponse,
  siteMonitorListRequest,
  siteMonitorListResponse,
} from './api/site-monitor';
import {
  touPushRequest,
  touPushRowSchema,
  touPushStatusResponse,
  touSchemeAssignRequest,
  touSchemeDetailSchema,
  touSchemeListRequest,
  touSchemeListResponse,
  touSchemeSaveRequest,
  touSchemeUpdateRequest,
  touSchemeUpdateResponse,
} from './api/tou';
import {
  getPermissionRequest,
  getPermissionResponse,
  getUserInfoRequest,
  loginOutRequest,
  loginRequest,
  loginResponse,
  refreshTokenRequest,
  refreshTokenResponse,
  userInfoResponse,
} from './api/user';
import type { AuditAction, AuditTargetType } from './audit-vocabulary';
import { Perm, type PermissionString } from './permissions';

/** The path of a call: always under `/api-bms/` (spec §7). */
export type EndpointPath = `${typeof API_PREFIX}/${string}`;

/**
 * Who may call (exactly one; the server refuses to register a route without one):
 * - `{public: true}`: no X-Token (sign-in, token refresh, user info with a login ticket, the
 *   public cockpit);
 * - `{signedIn: true}`: any valid X-Token (own settings, own menu, the dashboard, logout);
 * - `{permission}`: a valid X-Token whose roles grant the string (or `*:*:*`); else 5034.
 */
export type EndpointAccess = { permission: PermissionString } | { signedIn: true } | { public: true };

/** What the operation log records for every answer of the call (http/audit.ts on the server). */
export interface EndpointAudit {
  action: AuditAction;
  targetType: AuditTargetType;
}

/** One call of the API. */
export interface Endpoint<
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
  P extends EndpointPath = EndpointPath,
> {
  /** `/api-bms/<resource>/<call>`, answered to `POST` only. */
  readonly path: P;
  /** The JSON body. Parse with it; `z.input` is what a client sends, `z.output` what a handler gets. */
  readonly request: Req;
  /** The envelope's `data` on success (see {@link envelopeFor}). */
  readonly response: Res;
  readonly access: EndpointAccess;
  /** Present when every answer of the call is written to the operation log. */
  readonly audit?: EndpointAudit;
  /** One line for the API reference (with the call's error codes where short). */
  readonly summary: string;
  /** Longer notes for the API reference (error codes, side effects). */
  readonly description?: string;
  /** API-reference groups. */
  readonly tags: readonly string[];
  /**
   * Set when a successful answer is a file, not an envelope (`export.xlsx`): its MIME type.
   * A refusal is still `{code, msg, data: null}`.
   */
  readonly file?: { readonly mime: string };
}

/**
 * Declares one endpoint, keeping the exact types of its path and schemas so that
 * {@link EndpointRequest} and {@link EndpointResponse} infer. Returns its argument unchanged.
 *
 * @example
 * const save = defineEndpoint({
 *   path: '/api-bms/tou/save',
 *   request: touSchemeSaveRequest,
 *   response: createdIdResponse,
 *   access: { permission: Perm.touSave },
 *   audit: { action: 'tou.save', targetType: 'tou_scheme' },
 *   summary: 'Create a ToU scheme',
 *   tags: ['tou'],
 * });
 */
export function defineEndpoint<const P extends EndpointPath, Req extends z.ZodType, Res extends z.ZodType>(
  endpoint: Endpoint<Req, Res, P>,
): Endpoint<Req, Res, P> {
  return endpoint;
}

/** The body a client sends to `E` (defaults may be left out). */
export type EndpointRequest<E extends Endpoint> = z.input<E['request']>;
/** The body a handler of `E` receives once the request schema has parsed it (defaults filled in). */
export type EndpointBody<E extends Endpoint> = z.output<E['request']>;
/** The `data` of a successful answer of `E`. */
export type EndpointResponse<E extends Endpoint> = z.output<E['response']>;

/** The schema of the whole answer of `endpoint`: `{code, msg, data: response | null}`. */
export function envelopeFor<Res extends z.ZodType>(endpoint: Endpoint<z.ZodType, Res>) {
  return envelopeOf(endpoint.response.nullable());
}

/* ───────────── Sign-in, session and own settings (spec §7) ───────────── */

const user = {
  login: defineEndpoint({
    path: '/api-bms/user/login',
    request: loginRequest,
    response: loginResponse,
    access: { public: true },
    audit: { action: 'user.login', targetType: 'account' },
    summary: 'Sign in: check account and password digest; answer companies and a login ticket',
    description:
      'Errors: 5080 unknown account or wrong password, 5052 employee disabled, 6001 company disabled, 5082 throttled.',
    tags: ['user'],
  }),
  getUserInfo: defineEndpoint({
    path: '/api-bms/user/getUserInfo',
    request: getUserInfoRequest,
    response: userInfoResponse,
    access: { public: true },
    summary: 'User info: open a session with a login ticket, or reload it with X-Token',
    description:
      'With loginTicket: 5081 ticket unknown/used/expired, 5051 not an employee of companyId, 5052, 6001. ' +
      'With X-Token: the token errors (9999, 50012, 50014, -102) and 5081 when userId/companyId are not the session’s.',
    tags: ['user'],
  }),
  getLanguageMenu: defineEndpoint({
    path: '/api-bms/user/getLanguageMenu',
    request: getLanguageMenuRequest,
    response: getLanguageMenuResponse,
    access: { signedIn: true },
    summary: "The caller's menu tree in 'cn' (Chinese) or 'en', filtered by the caller's roles",
    tags: ['user'],
  }),
  refreshToken: defineEndpoint({
    path: '/api-bms/user/refreshToken',
    request: refreshTokenRequest,
    response: refreshTokenResponse,
    access: { public: true },
    summary: 'Rotate the refresh token and issue a new access token',
    description:
      'Errors: 9999 unknown token, 50012 session revoked or rotated token reused (the session is then revoked), -102 session past its absolute end.',
    tags: ['user'],
  }),
  loginOut: defineEndpoint({
    path: '/api-bms/user/loginOut',
    request: loginOutRequest,
    response: nullResponse,
    access: { signedIn: true },
    audit: { action: 'user.logout', targetType: 'session' },
    summary: "Log out: revoke this terminal's session",
    tags: ['user'],
  }),
  getPermission: defineEndpoint({
    path: '/api-bms/user/getPermission',
    request: getPermissionRequest,
    response: getPermissionResponse,
    access: { signedIn: true },
    summary: "The caller's permission strings (`module:resource:action`; administrators also `*:*:*`)",
    tags: ['user'],
  }),
};

/** The signed-in employee's own settings (paths under `/employee/`, spec §7). */
const account = {
  updatePassword: defineEndpoint({
    path: '/api-bms/employee/updatePassword',
    request: updatePasswordRequest,
    response: nullResponse,
    access: { signedIn: true },
    audit: { action: 'account.updatePassword', targetType: 'account' },
    summary: "Change the caller's password (digests as sent by the browser)",
    description:
      'Errors: 5055 new and confirmation differ, 5054 original password incorrect, 5056 new equals original. ' +
      "On success the account's other sessions end; this one stays.",
    tags: ['employee'],
  }),
  getEmail: defineEndpoint({
    path: '/api-bms/employee/getEmail',
    request: getEmailRequest,
    response: emailSettingsSchema,
    access: { signedIn: true },
    summary: "The caller's alarm e-mail and subscription flag (isSubAlarm 'Y' or 'N')",
    tags: ['employee'],
  }),
  updateEmail: defineEndpoint({
    path: '/api-bms/employee/updateEmail',
    request: updateEmailRequest,
    response: nullResponse,
    access: { signedIn: true },
    audit: { action: 'account.updateEmail', targetType: 'employee' },
    summary: "Set the caller's alarm e-mail and whether device alarms are mailed to it",
    tags: ['employee'],
  }),
};

/* ───────────── Organisation and access control (issue 5) ───────────── */

const employee = {
  pageList: defineEndpoint({
    path: '/api-bms/employee/pageList',
    request: employeeListRequest,
    response: employeeListResponse,
    access: { permission: Perm.employeeList },
    summary:
      'Employees the caller sees (data scope), newest first; departmentId includes the departments below it',
    tags: ['employee'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/employee/detail',
    request: idRequest,
    response: employeeRowSchema,
    access: { permission: Perm.employeeList },
    summary: 'One employee with department and roles. Errors: 5051',
    tags: ['employee'],
  }),
  save: defineEndpoint({
    path: '/api-bms/employee/save',
    request: employeeSaveRequest,
    response: employeeSaveResponse,
    access: { permission: Perm.employeeSave },
    audit: { action: 'employee.save', targetType: 'employee' },
    summary:
      'Create an employee; a new account gets the initial password (must be changed at first sign-in), an existing one is linked. Errors: 6000, 5000, 5031, 5034, 5050',
    tags: ['employee'],
  }),
  update: defineEndpoint({
    path: '/api-bms/employee/update',
    request: employeeUpdateRequest,
    response: nullResponse,
    access: { permission: Perm.employeeSave },
    audit: { action: 'employee.update', targetType: 'employee' },
    summary:
      'Update name, phone, e-mail, department, roles and the administrator flag. Errors: 5051, 5000, 5031, 5034',
    tags: ['employee'],
  }),
  status: defineEndpoint({
    path: '/api-bms/employee/status',
    request: employeeStatusRequest,
    response: nullResponse,
    access: { permission: Perm.employeeStatus },
    audit: { action: 'employee.status', targetType: 'employee' },
    summary: 'Enable or disable; disabling ends the employee’s sessions at once. Errors: 5051, 5057 yourself',
    tags: ['employee'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/employee/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.employeeDelete },
    audit: { action: 'employee.delete', targetType: 'employee' },
    summary:
      'Delete an employee (and the account when it has no other company). Errors: 5051, 5053 administrator, 5057 yourself',
    tags: ['employee'],
  }),
  resetPassword: defineEndpoint({
    path: '/api-bms/employee/resetPassword',
    request: employeeResetPasswordRequest,
    response: nullResponse,
    access: { permission: Perm.employeeResetPassword },
    audit: { action: 'employee.resetPassword', targetType: 'employee' },
    summary:
      'Set a new password (digest) that must be changed at next sign-in; ends the account’s sessions. Errors: 5051, 5034 the account also belongs to a company outside your scope',
    tags: ['employee'],
  }),
};

const department = {
  list: defineEndpoint({
    path: '/api-bms/department/departmentList',
    request: departmentListRequest,
    response: departmentListResponse,
    access: { permission: Perm.deptList },
    summary:
      'Departments of a company (default: the caller’s) that the caller sees, flat, by sort. Errors: 6000',
    tags: ['department'],
  }),
  save: defineEndpoint({
    path: '/api-bms/department/save',
    request: departmentInput,
    response: createdIdResponse,
    access: { permission: Perm.deptSave },
    audit: { action: 'department.save', targetType: 'department' },
    summary:
      'Create a department. Errors: 6000 company outside the scope, 5000 parent missing, 5004 name exists at this level',
    tags: ['department'],
  }),
  update: defineEndpoint({
    path: '/api-bms/department/update',
    request: departmentUpdate,
    response: nullResponse,
    access: { permission: Perm.deptSave },
    audit: { action: 'department.update', targetType: 'department' },
    summary: 'Update a department. Errors: 5000, 5003 parent is itself or below it, 5004',
    tags: ['department'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/department/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.deptDelete },
    audit: { action: 'department.delete', targetType: 'department' },
    summary: 'Delete a department. Errors: 5000, 5001 has sub-departments, 5002 has employees',
    tags: ['department'],
  }),
};

const role = {
  pageList: defineEndpoint({
    path: '/api-bms/role/pageList',
    request: roleListRequest,
    response: roleListResponse,
    access: { permission: Perm.roleList },
    summary: 'Roles of the companies in the caller’s scope, newest first, with holder counts',
    tags: ['role'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/role/detail',
    request: idRequest,
    response: roleDetailSchema,
    access: { permission: Perm.roleList },
    summary: 'A role with its granted menu, page and button ids. Errors: 5031',
    tags: ['role'],
  }),
  menuOptions: defineEndpoint({
    path: '/api-bms/role/menuOptions',
    request: roleMenuOptionsRequest,
    response: roleMenuOptionsResponse,
    access: { permission: Perm.roleList },
    summary:
      'The menu rows a role of the company may be given by the caller (every holdable row for an administrator, else the caller’s own), and which of them the caller may add or remove. Errors: 6000',
    tags: ['role'],
  }),
  save: defineEndpoint({
    path: '/api-bms/role/save',
    request: roleSaveRequest,
    response: roleDetailSchema,
    access: { permission: Perm.roleSave },
    audit: { action: 'role.save', targetType: 'role' },
    summary:
      'Create a role. Errors: 6000, 5036 name or code exists, 5037 unknown menu, 5034 granting menus you do not hold',
    tags: ['role'],
  }),
  update: defineEndpoint({
    path: '/api-bms/role/update',
    request: roleUpdateRequest,
    response: roleDetailSchema,
    access: { permission: Perm.roleSave },
    audit: { action: 'role.update', targetType: 'role' },
    summary:
      'Update a role with the version read. Errors: 5031, 5035 changed by someone else, 5036, 5037, 5034, 5033 disabling or rescoping an administrator role',
    tags: ['role'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/role/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.roleDelete },
    audit: { action: 'role.delete', targetType: 'role' },
    summary: 'Delete a role. Errors: 5031, 5032 held by employees, 5033 administrator role',
    tags: ['role'],
  }),
  copy: defineEndpoint({
    path: '/api-bms/role/copy',
    request: roleCopyRequest,
    response: roleDetailSchema,
    access: { permission: Perm.roleCopy },
    audit: { action: 'role.copy', targetType: 'role' },
    summary:
      'Copy a role under a new name and code, with the same rights and data scope. Errors: 5031, 5036, 5034',
    tags: ['role'],
  }),
};

const menu = {
  list: defineEndpoint({
    path: '/api-bms/menu/menuList',
    request: menuListRequest,
    response: menuListResponse,
    access: { permission: Perm.menuList },
    summary:
      'All menu rows (directories, pages, buttons) in display order. Needs system:menu:list (else 5034)',
    tags: ['menu'],
  }),
  save: defineEndpoint({
    path: '/api-bms/menu/save',
    request: menuInput,
    response: createdIdResponse,
    access: { permission: Perm.menuSave },
    audit: { action: 'menu.save', targetType: 'menu' },
    summary: 'Create a menu row (directory, page or button). Errors: 5040 invalid parent',
    tags: ['menu'],
  }),
  update: defineEndpoint({
    path: '/api-bms/menu/update',
    request: menuUpdate,
    response: nullResponse,
    access: { permission: Perm.menuSave },
    audit: { action: 'menu.update', targetType: 'menu' },
    summary: 'Update a menu row. Errors: 5037 missing, 5040 invalid parent',
    tags: ['menu'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/menu/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.menuDelete },
    audit: { action: 'menu.delete', targetType: 'menu' },
    summary: 'Delete a menu row. Errors: 5037 missing, 5038 has children, 5039 built-in',
    tags: ['menu'],
  }),
};

const log = {
  pageList: defineEndpoint({
    path: '/api-bms/log/pageList',
    request: operationLogListRequest,
    response: operationLogListResponse,
    access: { permission: Perm.logList },
    summary:
      'Operation log, newest first: who, company, when, action, target, before → after (secrets masked), answer code, address',
    tags: ['log'],
  }),
};

const company = {
  options: defineEndpoint({
    path: '/api-bms/company/options',
    request: companyOptionsRequest,
    response: companyOptionsResponse,
    access: { signedIn: true },
    summary: 'Every company the caller may see (its data scope), any kind, by name: for company pickers',
    tags: ['company'],
  }),
};

/** The permissions of each company kind's calls: `org:<kind>:list|save|status`. */
const COMPANY_PERMISSIONS = {
  agent: { list: Perm.agentList, save: Perm.agentSave, status: Perm.agentStatus },
  investor: { list: Perm.investorList, save: Perm.investorSave, status: Perm.investorStatus },
  construction: { list: Perm.constructionList, save: Perm.constructionSave, status: Perm.constructionStatus },
  owner: { list: Perm.ownerList, save: Perm.ownerSave, status: Perm.ownerStatus },
} as const satisfies Record<CompanyKind, Record<'list' | 'save' | 'status', PermissionString>>;

/**
 * The four calls of one company kind (spec §1 screens; paths ours): `/api-bms/<kind>/pageList`,
 * `save`, `update`, `status`, needing `org:<kind>:list|save|save|status`, recorded as
 * `<kind>.save|update|status` on target type `company`. Codes: 6000, 6002, 6005.
 */
function companyEndpoints<K extends CompanyKind>(kind: K) {
  const perms = COMPANY_PERMISSIONS[kind];
  const tags = [kind];
  const audit = (verb: 'save' | 'update' | 'status'): EndpointAudit => ({
    action: `${kind}.${verb}`,
    targetType: 'company',
  });
  return {
    pageList: defineEndpoint({
      path: `/api-bms/${kind}/pageList`,
      request: companyListRequest,
      response: companyListResponse,
      access: { permission: perms.list },
      summary: `${kind} companies in the caller’s scope, newest first, with employee, site and assigned-device counts`,
      tags,
    }),
    save: defineEndpoint({
      path: `/api-bms/${kind}/save`,
      request: companyInput,
      response: createdIdResponse,
      access: { permission: perms.save },
      audit: audit('save'),
      summary: `Create a ${kind} company (with its administrator role). Errors: 6000 parent outside the scope, 6002 name or phone exists`,
      tags,
    }),
    update: defineEndpoint({
      path: `/api-bms/${kind}/update`,
      request: companyUpdate,
      response: nullResponse,
      access: { permission: perms.save },
      audit: audit('update'),
      summary: `Update a ${kind} company’s name, contact and phone (the parent stays). Errors: 6000, 6002`,
      tags,
    }),
    status: defineEndpoint({
      path: `/api-bms/${kind}/status`,
      request: companyStatusRequest,
      response: nullResponse,
      access: { permission: perms.status },
      audit: audit('status'),
      summary: `Enable or disable a ${kind} company; disabling signs its employees out. Errors: 6000, 6005 own company`,
      tags,
    }),
  };
}

const agent = {
  ...companyEndpoints('agent'),
  devices: defineEndpoint({
    path: '/api-bms/agent/devices',
    request: agentDevicesRequest,
    response: agentDevicesResponse,
    access: { permission: Perm.agentList },
    summary: 'Gateways assigned to the agent and the unassigned ones in the caller’s scope. Errors: 6000',
    tags: ['agent'],
  }),
  assignDevices: defineEndpoint({
    path: '/api-bms/agent/assignDevices',
    request: agentAssignRequest,
    response: nullResponse,
    access: { permission: Perm.agentAssign },
    audit: { action: 'agent.assignDevices', targetType: 'company' },
    summary:
      'Assign gateways (and the devices behind them) to the agent. Errors: 6000, 3030, 6003 another agent has it, 6004 bound to a project',
    tags: ['agent'],
  }),
  unassignDevices: defineEndpoint({
    path: '/api-bms/agent/unassignDevices',
    request: agentAssignRequest,
    response: nullResponse,
    access: { permission: Perm.agentAssign },
    audit: { action: 'agent.unassignDevices', targetType: 'company' },
    summary: 'Release gateways from the agent. Errors: 6000, 3030 not this agent’s, 6004 bound to a project',
    tags: ['agent'],
  }),
};

/* ───────────── Sites and devices (spec §2 /deviceconfig) ───────────── */

const site = {
  pageList: defineEndpoint({
    path: '/api-bms/site/pageList',
    request: siteListRequest,
    response: siteListResponse,
    access: { permission: Perm.siteList },
    summary: 'Sites in the caller’s companies, with device counts, capacity (kWh) and PCS power (kW)',
    tags: ['site'],
  }),
  save: defineEndpoint({
    path: '/api-bms/site/save',
    request: siteInput,
    response: createdIdResponse,
    access: { permission: Perm.siteSave },
    audit: { action: 'site.save', targetType: 'site' },
    summary: 'Create a site. Errors: 3039 code exists, 6000 company outside the caller’s scope',
    tags: ['site'],
  }),
  update: defineEndpoint({
    path: '/api-bms/site/update',
    request: siteUpdate,
    response: nullResponse,
    access: { permission: Perm.siteSave },
    audit: { action: 'site.update', targetType: 'site' },
    summary: 'Update a site. Errors: 3036 not found, 3039 code exists, 6000',
    tags: ['site'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/site/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.siteDelete },
    audit: { action: 'site.delete', targetType: 'site' },
    summary: 'Delete an empty site. Errors: 3036 not found, 3037 it still has devices',
    tags: ['site'],
  }),
};

const device = {
  pageList: defineEndpoint({
    path: '/api-bms/device/pageList',
    request: deviceListRequest,
    response: deviceListResponse,
    access: { permission: Perm.siteList },
    summary: 'Devices in the caller’s companies; filter by site, type, SN/model keyword, online',
    tags: ['device'],
  }),
  save: defineEndpoint({
    path: '/api-bms/device/save',
    request: deviceInput,
    response: deviceSaveResponse,
    access: { permission: Perm.deviceSave },
    audit: { action: 'device.save', targetType: 'device' },
    summary: 'Register a device; a gateway’s MQTT secret is answered once',
    description: 'Errors: 3036 site not found, 3030 gateway not found in that site, 3032 SN exists.',
    tags: ['device'],
  }),
  update: defineEndpoint({
    path: '/api-bms/device/update',
    request: deviceUpdate,
    response: nullResponse,
    access: { permission: Perm.deviceSave },
    audit: { action: 'device.update', targetType: 'device' },
    summary: 'Update a device. Errors: 3030, 3032, 3036, 3038 (a gateway with devices behind it)',
    tags: ['device'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/device/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.deviceDelete },
    audit: { action: 'device.delete', targetType: 'device' },
    summary: 'Delete a device. Errors: 3030 not found, 3038 devices still report through this gateway',
    tags: ['device'],
  }),
  resetSecret: defineEndpoint({
    path: '/api-bms/device/resetSecret',
    request: idRequest,
    response: deviceSecretResponse,
    access: { permission: Perm.deviceSecret },
    audit: { action: 'device.resetSecret', targetType: 'device' },
    summary: 'Issue a new MQTT secret for a gateway (the old one stops working at its next connect)',
    description: 'Errors: 3030 not found, 3031 not a gateway (it has no MQTT connection of its own).',
    tags: ['device'],
  }),
};

/* ───────────── ToU schemes (issue 6) ───────────── */

const tou = {
  pageList: defineEndpoint({
    path: '/api-bms/tou/pageList',
    request: touSchemeListRequest,
    response: touSchemeListResponse,
    access: { permission: Perm.touList },
    summary: 'ToU schemes in the caller’s companies, with plan counts and the number of sites running each',
    tags: ['tou'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/tou/detail',
    request: idRequest,
    response: touSchemeDetailSchema,
    access: { permission: Perm.touList },
    summary: 'One ToU scheme: its document and the sites running it. Errors: 3090',
    tags: ['tou'],
  }),
  save: defineEndpoint({
    path: '/api-bms/tou/save',
    request: touSchemeSaveRequest,
    response: createdIdResponse,
    access: { permission: Perm.touSave },
    audit: { action: 'tou.save', targetType: 'tou_scheme' },
    summary: 'Create a ToU scheme',
    description:
      'Errors: 3070–3089, 3094 the first plan rule broken (msg says where), 3091 name exists, 6000 company outside the scope.',
    tags: ['tou'],
  }),
  update: defineEndpoint({
    path: '/api-bms/tou/update',
    request: touSchemeUpdateRequest,
    response: touSchemeUpdateResponse,
    access: { permission: Perm.touSave },
    audit: { action: 'tou.update', targetType: 'tou_scheme' },
    summary: 'Save a ToU scheme over the version read; sites running it get it pushed',
    description:
      'Errors: 3090 not found, 3070–3089, 3094 the first plan rule broken, 3091 name exists, 3093 saved by someone else meanwhile.',
    tags: ['tou'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/tou/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.touDelete },
    audit: { action: 'tou.delete', targetType: 'tou_scheme' },
    summary: 'Delete a ToU scheme no site runs. Errors: 3090 not found, 3092 sites still run it',
    tags: ['tou'],
  }),
  assign: defineEndpoint({
    path: '/api-bms/tou/assign',
    request: touSchemeAssignRequest,
    response: touPushStatusResponse,
    access: { permission: Perm.touPush },
    audit: { action: 'tou.assign', targetType: 'tou_scheme' },
    summary: 'Set exactly the sites that run a ToU scheme; newly assigned sites get it pushed',
    description:
      'Sites are moved from other schemes. Errors: 3090 scheme not found, 3036 a site outside the scope or not of the scheme’s company (or one below it).',
    tags: ['tou'],
  }),
  pushStatus: defineEndpoint({
    path: '/api-bms/tou/pushStatus',
    request: idRequest,
    response: touPushStatusResponse,
    access: { permission: Perm.touList },
    summary: 'Delivery of a ToU scheme per site: pending, sent, applied (with time) or failed (with reason)',
    description: 'Body: the scheme id. Errors: 3090.',
    tags: ['tou'],
  }),
  push: defineEndpoint({
    path: '/api-bms/tou/push',
    request: touPushRequest,
    response: touPushRowSchema,
    access: { permission: Perm.touPush },
    audit: { action: 'tou.push', targetType: 'site' },
    summary: 'Push a site’s ToU scheme to its EMS now and wait for the reply (up to 10 s)',
    description:
      'Errors: 3036 site not found, 3060 the site runs no scheme, 3033 no gateway or it never connected, 3034 gateway offline (sent when it reconnects), 3035 the send failed, was refused or timed out (msg gives the reason).',
    tags: ['tou'],
  }),
};

/* ───────────── Monitoring (issue 4) ───────────── */

const dashboard = {
  overview: defineEndpoint({
    path: '/api-bms/dashboard/overview',
    request: dashboardRequest,
    response: dashboardResponse,
    access: { signedIn: true },
    summary: 'Fleet KPIs (kW, kWh, %), today’s 15-minute power curve, site status and the latest alarms',
    tags: ['dashboard'],
  }),
};

const pickOptionsSummary =
  'Sites in the caller’s companies; with siteId also its devices (type, gateway online, point names). Errors: 3036';

const monitor = {
  realtimeOptions: defineEndpoint({
    path: '/api-bms/monitor/realtime/options',
    request: pickOptionsRequest,
    response: pickOptionsResponse,
    access: { permission: Perm.monitorRealtimeList },
    summary: pickOptionsSummary,
    tags: ['monitor'],
  }),
  realtime: defineEndpoint({
    path: '/api-bms/monitor/realtime/points',
    request: realtimeRequest,
    response: realtimeResponse,
    access: { permission: Perm.monitorRealtimeList },
    summary:
      'Latest value and report time (UTC ms) of every point of a device, gateway state, reporting interval and stale threshold (ms). Errors: 3030',
    tags: ['monitor'],
  }),
  realtimeTrend: defineEndpoint({
    path: '/api-bms/monitor/realtime/trend',
    request: trendRequest,
    response: historyResponse,
    access: { permission: Perm.monitorRealtimeList },
    summary:
      'A point over the last hour (raw rows when at most 3000, else 15-minute rollups). Errors: 3030, 3124',
    tags: ['monitor'],
  }),
  historyOptions: defineEndpoint({
    path: '/api-bms/monitor/history/options',
    request: pickOptionsRequest,
    response: pickOptionsResponse,
    access: { permission: Perm.monitorHistoryList },
    summary: pickOptionsSummary,
    tags: ['monitor'],
  }),
  history: defineEndpoint({
    path: '/api-bms/monitor/history/series',
    request: historyRequest,
    response: historyResponse,
    access: { permission: Perm.monitorHistoryList },
    summary:
      'Series of points over [startMs, endMs) — raw or 15 min / 1 h / 1 day rollups chosen by the server, ≤ 3000 points each, min/max/avg per bucket, totals. Errors: 3030, 3120–3124',
    tags: ['monitor'],
  }),
  compare: defineEndpoint({
    path: '/api-bms/monitor/history/compare',
    request: compareRequest,
    response: compareResponse,
    access: { permission: Perm.monitorHistoryList },
    summary:
      'One point over periods A and B at one resolution (the longer period’s). Errors: 3030, 3120–3122, 3124',
    tags: ['monitor'],
  }),
  energy: defineEndpoint({
    path: '/api-bms/monitor/history/energy',
    request: energyRequest,
    response: energyResponse,
    access: { permission: Perm.monitorHistoryList },
    summary:
      'Charged / discharged kWh of a site’s PCS (or one PCS) per site-local day or month, null where no reading. Errors: 3030, 3036, 3120–3122',
    tags: ['monitor'],
  }),
};

const siteMonitor = {
  sites: defineEndpoint({
    path: '/api-bms/monitor/siteList',
    request: siteMonitorListRequest,
    response: siteMonitorListResponse,
    access: { permission: Perm.monitorSiteList },
    summary:
      'Sites in scope for the monitoring map and list: status, position, SOC %, battery kW, today’s kWh, active alarms',
    tags: ['monitor'],
  }),
  site: defineEndpoint({
    path: '/api-bms/monitor/siteDetail',
    request: siteMonitorDetailRequest,
    response: siteMonitorDetailResponse,
    access: { permission: Perm.monitorSiteList },
    summary:
      'One site: devices with latest points and the energy-flow, PCS, BMS, meter, PV, environment, air-conditioner panels (3036)',
    tags: ['monitor'],
  }),
};

const screen = {
  cockpitPublic: defineEndpoint({
    path: '/api-bms/screen/cockpitPublic',
    request: screenRequest,
    response: cockpitAggregatesSchema,
    access: { public: true },
    summary: 'Public cockpit: installation-wide aggregates only (kW, kWh, CNY, alarm counts, 1° map cells)',
    description:
      'No token needed. Answers nothing per site: no names, codes, SNs, companies or exact positions ' +
      '(map cells are whole degrees). Computed at most every 5 s; rate-limited per client address.',
    tags: ['screen'],
  }),
  cockpit: defineEndpoint({
    path: '/api-bms/screen/cockpit',
    request: screenRequest,
    response: cockpitResponse,
    access: { permission: Perm.screenView },
    summary:
      "Signed-in cockpit (screen:view): the caller's fleet aggregates, its sites (names, exact positions, revenue) and top sites",
    tags: ['screen'],
  }),
  sites: defineEndpoint({
    path: '/api-bms/screen/sites',
    request: screenRequest,
    response: screenSitesResponse,
    access: { permission: Perm.screenView },
    summary: 'Site picker of the big screens: sites in the caller’s scope',
    tags: ['screen'],
  }),
  site: defineEndpoint({
    path: '/api-bms/screen/site',
    request: screenSiteRequest,
    response: screenSiteResponse,
    access: { permission: Perm.screenView },
    summary:
      'One site for the screens: devices with latest points and BMS cells, today’s energy (kWh) and revenue (CNY), 15-min curves, active alarms',
    description: 'Errors: 3036 site not found (also for a site outside the caller’s scope).',
    tags: ['screen'],
  }),
};

const alarm = {
  activeList: defineEndpoint({
    path: '/api-bms/alarm/activeList',
    request: alarmActiveListRequest,
    response: alarmActiveListResponse,
    access: { permission: Perm.alarmList },
    summary:
      'Active alarms in the caller’s companies, newest first (filters: site, device, level, code, keyword, range of raise time, acknowledged). Errors: 3120–3122 range',
    tags: ['alarm'],
  }),
  historyList: defineEndpoint({
    path: '/api-bms/alarm/historyList',
    request: alarmHistoryListRequest,
    response: alarmHistoryListResponse,
    access: { permission: Perm.alarmList },
    summary:
      'Alarm events (produce, disappear) and EMS online/offline changes, newest first, with the alarm’s state and acknowledgement. Errors: 3120–3122 range',
    tags: ['alarm'],
  }),
  ack: defineEndpoint({
    path: '/api-bms/alarm/ack',
    request: alarmAckRequest,
    response: alarmAckResponse,
    access: { permission: Perm.alarmAck },
    audit: { action: 'alarm.ack', targetType: 'alarm' },
    summary:
      'Acknowledge alarms (who and when are recorded). Errors: 3100 an alarm not found (nothing changed), 3101 all already acknowledged',
    tags: ['alarm'],
  }),
  filterOptions: defineEndpoint({
    path: '/api-bms/alarm/filterOptions',
    request: alarmFilterOptionsRequest,
    response: alarmFilterOptionsResponse,
    access: { permission: Perm.alarmList },
    summary: 'Sites of the caller’s companies with their devices, for the alarm filters',
    tags: ['alarm'],
  }),
};

const mail = {
  outboxList: defineEndpoint({
    path: '/api-bms/mail/outboxList',
    request: mailOutboxListRequest,
    response: mailOutboxListResponse,
    access: { permission: Perm.mailOutboxList },
    summary:
      'Alarm mails to employees of the caller’s data scope (companies; with a department or self data scope only mails to employees of those departments or to oneself), newest first, with delivery state, attempts and last error',
    tags: ['mail'],
  }),
  outboxDetail: defineEndpoint({
    path: '/api-bms/mail/outboxDetail',
    request: mailOutboxDetailRequest,
    response: mailOutboxDetailResponse,
    access: { permission: Perm.mailOutboxList },
    summary: 'One mail of the outbox with its text. Errors: 3103 not found',
    tags: ['mail'],
  }),
};

const exportCalls = {
  sites: defineEndpoint({
    path: '/api-bms/export/sites',
    request: exportSitesRequest,
    response: exportSitesResponse,
    access: { permission: Perm.exportRun },
    summary:
      'Sites of an agent for the export form: in the caller’s scope, of the agent’s companies or with a device assigned to it. Errors: 6000',
    tags: ['export'],
  }),
  devices: defineEndpoint({
    path: '/api-bms/export/devices',
    request: exportDevicesRequest,
    response: exportDevicesResponse,
    access: { permission: Perm.exportRun },
    summary: 'Devices of a site for the export form (EMS first, by type and SN). Errors: 3036',
    tags: ['export'],
  }),
  xlsx: defineEndpoint({
    path: '/api-bms/export/xlsx',
    request: exportRequest,
    response: exportXlsxResponse,
    access: { permission: Perm.exportRun },
    summary:
      'Streams the xlsx of an export (raw points, daily energy, alarms). Success answers the file, not an envelope; refusals answer {code, msg}: 3130–3138, 3120, 3122, 6000, 3036, 3030',
    tags: ['export'],
    file: { mime: XLSX_MIME },
  }),
};

/** Every `/api-bms/*` call, by area and call (see the module comment). */
export const endpoints = {
  user,
  account,
  employee,
  department,
  role,
  menu,
  log,
  company,
  agent,
  investor: companyEndpoints('investor'),
  construction: companyEndpoints('construction'),
  owner: companyEndpoints('owner'),
  site,
  device,
  tou,
  dashboard,
  monitor,
  siteMonitor,
  screen,
  alarm,
  mail,
  export: exportCalls,
} as const;

/** The areas of {@link endpoints}. */
export type EndpointArea = keyof typeof endpoints;

/** Every call of the table, flat, in table order (for route registration and checks). */
export const ALL_ENDPOINTS: readonly Endpoint[] = Object.values(endpoints).flatMap(
  (area) => Object.values(area) as Endpoint[],
);
