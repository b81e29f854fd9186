/**
 * Organisation and access control (spec §1, §3, §4, §6, §7): companies of each kind,
 * departments, employees, roles with menu rights and data scope. Lists take
 * `{pageNum, pageSize, …filters}` and answer `{list, total}` (design §4); the department list
 * answers the whole flat list (the console builds the tree with `buildTree`).
 *
 * Every call is scoped on the server by the caller's company and data scope; a row outside it
 * answers as if it did not exist (6000, 5000, 5051, 5031).
 */
import { z } from 'zod';
import { EMAIL_PATTERN, PHONE_PATTERN, validationMessages } from '../validation';
import { userInfoEcho } from './envelope';
import { menuRowSchema } from './menu';
import {
  idSchema as id,
  keywordSchema,
  optionalText,
  pageRequest,
  pageResponse,
  TEXT_LIMITS,
  trimmedText,
  versionSchema,
} from './primitives';
import { passwordHashSchema } from './user';

/** A mainland mobile number, or nothing (spec §5 "please enter the correct phone number"). */
const optionalPhone = optionalText(TEXT_LIMITS.phone).refine(
  (v) => v === null || PHONE_PATTERN.test(v),
  validationMessages.phoneInvalid.en,
);
const status = z.enum(['enabled', 'disabled']);
export type EnabledStatus = z.infer<typeof status>;

/* ───────────── Companies ───────────── */

/**
 * Kinds of company managed on their own screens (spec §1: agents, investors, construction
 * parties, "users and companies" = site owners). The platform operator is seeded, never created.
 */
export const COMPANY_KINDS = ['agent', 'investor', 'construction', 'owner'] as const;
export type CompanyKind = (typeof COMPANY_KINDS)[number];

export const companyListRequest = pageRequest.extend({
  /** Matches name, contact or phone. */
  keyword: keywordSchema,
  status: status.optional(),
});

export const companyRowSchema = z.object({
  id,
  type: z.string(),
  parentId: id.nullable(),
  parentName: z.string().nullable(),
  name: z.string(),
  contact: z.string().nullable(),
  phone: z.string().nullable(),
  status,
  employeeCount: z.number().int(),
  siteCount: z.number().int(),
  /** Agents: devices assigned to them. */
  assignedDeviceCount: z.number().int(),
  createdAt: z.string(),
});
export type CompanyRow = z.infer<typeof companyRowSchema>;
export const companyListResponse = pageResponse(companyRowSchema);

export const companyInput = z.object({
  userInfo: userInfoEcho,
  name: trimmedText(TEXT_LIMITS.companyName),
  contact: optionalText(TEXT_LIMITS.companyContact),
  phone: optionalPhone,
  /** The company above this one; defaults to the caller's. Must be within the caller's scope. */
  parentId: id.nullish(),
});
export type CompanyInput = z.infer<typeof companyInput>;
export const companyUpdate = companyInput.extend({ id });
export const companyStatusRequest = z.object({ userInfo: userInfoEcho, id, status });

/** Every company the caller may see (any kind), for company pickers. */
export const companyOptionsRequest = z.object({ userInfo: userInfoEcho });
export const companyOptionSchema = z.object({
  id,
  name: z.string(),
  /** platform | agent | investor | construction | owner */
  type: z.string(),
  parentId: id.nullable(),
  status,
});
export type CompanyOption = z.infer<typeof companyOptionSchema>;
export const companyOptionsResponse = z.object({ list: z.array(companyOptionSchema) });

/** Devices of an agent (gateways and their devices, by SN). */
export const agentDevicesRequest = z.object({ userInfo: userInfoEcho, agentId: id });
export const agentDeviceSchema = z.object({
  id,
  sn: z.string(),
  type: z.string(),
  siteName: z.string(),
  companyName: z.string(),
  /** The agent it is assigned to, if any. */
  agentId: id.nullable(),
  agentName: z.string().nullable(),
  /** Bound to a project: its agent can no longer change (6004). */
  projectBound: z.boolean(),
});
export type AgentDevice = z.infer<typeof agentDeviceSchema>;
export const agentDevicesResponse = z.object({
  /** Assigned to this agent. */
  assigned: z.array(agentDeviceSchema),
  /** In the caller's scope and assigned to no agent. */
  available: z.array(agentDeviceSchema),
});
export const agentAssignRequest = z.object({
  userInfo: userInfoEcho,
  agentId: id,
  deviceIds: z.array(id).min(1).max(500),
});

/* ───────────── Departments ───────────── */

export const departmentListRequest = z.object({
  userInfo: userInfoEcho,
  /** Company whose tree to list; defaults to the caller's. */
  companyId: id.optional(),
  keyword: keywordSchema,
});
export const departmentRowSchema = z.object({
  id,
  companyId: id,
  parentId: id.nullable(),
  name: z.string(),
  sort: z.number().int(),
  leader: z.string().nullable(),
  phone: z.string().nullable(),
  status,
  /** Employees directly in this department. */
  employeeCount: z.number().int(),
  createdAt: z.string(),
});
export type DepartmentRow = z.infer<typeof departmentRowSchema>;
export const departmentListResponse = z.object({ list: z.array(departmentRowSchema) });

export const departmentInput = z.object({
  userInfo: userInfoEcho,
  /** Defaults to the caller's company; ignored on update. */
  companyId: id.optional(),
  parentId: id.nullish(),
  name: trimmedText(TEXT_LIMITS.departmentName),
  sort: z.number().int().min(0).max(9999).default(0),
  leader: optionalText(TEXT_LIMITS.departmentLeader),
  phone: optionalPhone,
  status: status.default('enabled'),
});
export type DepartmentInput = z.infer<typeof departmentInput>;
export const departmentUpdate = departmentInput.extend({ id });

/* ───────────── Employees ───────────── */

export const employeeListRequest = pageRequest.extend({
  /** Matches account, name or phone. */
  keyword: keywordSchema,
  /** This department and the ones below it. */
  departmentId: id.optional(),
  status: status.optional(),
  companyId: id.optional(),
});

/**
 * One employee as the employee list and detail show it. The account's own id and state are
 * not in it: a row added for an account that already existed elsewhere must look the same as
 * one that created a new account (docs/api.md "Adding an existing account").
 */
export const employeeRowSchema = z.object({
  id,
  companyId: id,
  companyName: z.string(),
  account: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  departmentId: id.nullable(),
  departmentName: z.string().nullable(),
  roles: z.array(z.object({ id, name: z.string() })),
  status,
  isAdmin: z.boolean(),
  isSubAlarm: z.enum(['Y', 'N']),
  /**
   * Not yet active: the person has not signed in to this company yet (a new account), or has not
   * accepted the company's invitation (an account that already existed) — shown alike.
   */
  awaitingSignIn: z.boolean(),
  /**
   * The person must replace a password an administrator set (new account, reset); true
   * whenever `awaitingSignIn` is.
   */
  mustChangePassword: z.boolean(),
  createdAt: z.string(),
});
export type EmployeeRow = z.infer<typeof employeeRowSchema>;
export const employeeListResponse = pageResponse(employeeRowSchema);

const employeeFields = {
  userInfo: userInfoEcho,
  name: trimmedText(TEXT_LIMITS.employeeName),
  phone: optionalPhone,
  email: optionalText(TEXT_LIMITS.email).refine(
    (v) => v === null || EMAIL_PATTERN.test(v),
    validationMessages.emailInvalid.en,
  ),
  departmentId: id.nullish(),
  roleIds: z.array(id).max(50).default([]),
  isAdmin: z.boolean().default(false),
};

export const employeeSaveRequest = z.object({
  ...employeeFields,
  /**
   * Sign-in name. A new one creates the account; one that already exists is added as is (its
   * password kept) — at once when it already belongs to a company the caller sees, else as an
   * invitation its holder accepts after signing in. The answer does not tell these apart.
   */
  account: trimmedText(TEXT_LIMITS.account),
  /**
   * Initial password of a new account as the browser's SHA-256 digest; must be changed at first
   * sign-in. Not used when the account already exists.
   */
  password: passwordHashSchema,
  companyId: id.optional(),
});
export type EmployeeSaveRequest = z.infer<typeof employeeSaveRequest>;
/** The new employee: the same for a new account and an existing one (no hint which it was). */
export const employeeSaveResponse = z.object({ id });
export const employeeUpdateRequest = z.object({ ...employeeFields, id });
export const employeeStatusRequest = z.object({ userInfo: userInfoEcho, id, status });
export const employeeResetPasswordRequest = z.object({
  userInfo: userInfoEcho,
  id,
  password: passwordHashSchema,
});

/* ───────────── Roles ───────────── */

/**
 * Data scope of a role (RuoYi): which rows its holders see. `all` = every company the caller's
 * company may see (the platform: all; others: itself and its sub-companies); `company` = own
 * company and its sub-companies; `department_and_below`, `department`, `self` = own company
 * only, with employees and departments limited to the own department (and below), or to
 * oneself. An employee with several roles gets the widest.
 */
export const DATA_SCOPES = ['all', 'company', 'department_and_below', 'department', 'self'] as const;
export type DataScopeKind = (typeof DATA_SCOPES)[number];

export const roleListRequest = pageRequest.extend({
  keyword: keywordSchema,
  status: status.optional(),
  companyId: id.optional(),
});
export const roleRowSchema = z.object({
  id,
  companyId: id,
  companyName: z.string(),
  name: z.string(),
  code: z.string(),
  remark: z.string().nullable(),
  status,
  isAdmin: z.boolean(),
  dataScope: z.enum(DATA_SCOPES),
  /** Optimistic lock: send it back on update; a stale one answers 5035. */
  version: z.number().int(),
  employeeCount: z.number().int(),
  createdAt: z.string(),
});
export type RoleRow = z.infer<typeof roleRowSchema>;
export const roleListResponse = pageResponse(roleRowSchema);
export const roleDetailSchema = roleRowSchema.extend({
  /** Menu, page and button ids granted (every id the company may hold, for an administrator role). */
  menuIds: z.array(id),
});
export type RoleDetail = z.infer<typeof roleDetailSchema>;

/** Role code: 2–32 letters, digits, '_' or '-' (RuoYi's role key). */
export const ROLE_CODE_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{1,31}$/;

const roleFields = {
  userInfo: userInfoEcho,
  name: trimmedText(TEXT_LIMITS.roleName),
  code: z.string().trim().regex(ROLE_CODE_PATTERN, '2–32 letters, digits, _ or -, starting with a letter'),
  remark: optionalText(TEXT_LIMITS.roleRemark),
  status: status.default('enabled'),
  dataScope: z.enum(DATA_SCOPES).default('company'),
  menuIds: z.array(id).max(2000).default([]),
};
export const roleSaveRequest = z.object({ ...roleFields, companyId: id.optional() });
export type RoleSaveRequest = z.infer<typeof roleSaveRequest>;
export const roleUpdateRequest = z.object({ ...roleFields, id, version: versionSchema });
export type RoleUpdateRequest = z.infer<typeof roleUpdateRequest>;
export const roleCopyRequest = z.object({
  userInfo: userInfoEcho,
  id,
  name: trimmedText(TEXT_LIMITS.roleName),
  code: roleFields.code,
});

/** The menu rows a role of `companyId` (default: the caller's) may be given by the caller. */
export const roleMenuOptionsRequest = z.object({ userInfo: userInfoEcho, companyId: id.optional() });
export const roleMenuOptionsResponse = z.object({
  /** Rows to show in the role authority tree (with both titles). */
  list: z.array(menuRowSchema),
  /** Ids the caller may add to or remove from a role (the others are shown locked). */
  grantable: z.array(id),
});
export type RoleMenuOptions = z.infer<typeof roleMenuOptionsResponse>;
