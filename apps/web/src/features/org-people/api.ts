/**
 * Department and employee calls (issue 5; shapes in @ess/contract api/organisation.ts, paths
 * `OrgPath`). Every function resolves with the answer's `data` or rejects with `ApiError` after
 * the client's spec §8 handling: the catalogue text of the code in the UI language, e.g.
 * 5000–5004 for departments, 5050–5057, 5031 and 5034 for employees; -100 shows the server's
 * msg, which names the field.
 */
import {
  type DepartmentRow,
  type EmployeeRow,
  type EnabledStatus,
  OrgPath,
  type RoleRow,
} from '@ess/contract';
import { userInfoEcho } from '@/features/auth';
import { request } from '@/shared/api/client';
import { sha256Hex } from '@/shared/crypto/sha256';

export interface Page<T> {
  list: T[];
  total: number;
}

/** Largest page the server answers (contract `pageQuery`). */
export const MAX_PAGE_SIZE = 500;

/* ───────────── Departments ───────────── */

/** `department/departmentList`: every department of the caller's company, flat (build the tree with `buildTree`). */
export async function fetchDepartments(): Promise<DepartmentRow[]> {
  const data = await request<{ list: DepartmentRow[] }>(OrgPath.departmentList, { userInfo: userInfoEcho() });
  return data.list;
}

/** What the department dialog sends (contract `departmentInput`). */
export interface DepartmentForm {
  parentId: number | null;
  name: string;
  sort: number;
  leader: string | null;
  phone: string | null;
  status: EnabledStatus;
}

/**
 * `department/save` (no id) or `department/update`. Errors: 5000 (parent or department
 * missing), 5003 the parent is the department itself or below it, 5004 the name exists at
 * this level.
 */
export function saveDepartment(form: DepartmentForm, id?: number): Promise<unknown> {
  const body = { userInfo: userInfoEcho(), ...form };
  return id === undefined
    ? request(OrgPath.departmentSave, body)
    : request(OrgPath.departmentUpdate, { ...body, id });
}

/** `department/delete`. Errors: 5000 missing, 5001 has sub-departments, 5002 has employees. */
export function deleteDepartment(id: number): Promise<unknown> {
  return request(OrgPath.departmentDelete, { userInfo: userInfoEcho(), id });
}

/* ───────────── Employees ───────────── */

export interface EmployeeQuery {
  pageNum: number;
  pageSize: number;
  /** Account, name or phone. */
  keyword?: string;
  /** This department and the ones below it. */
  departmentId?: number;
  status?: EnabledStatus;
}

/** `employee/pageList`: employees of the caller's company with department and roles. */
export function fetchEmployees(q: EmployeeQuery): Promise<Page<EmployeeRow>> {
  return request<Page<EmployeeRow>>(OrgPath.employeePageList, { userInfo: userInfoEcho(), ...q });
}

/** `employee/detail`: one employee as the list shows it. Errors: 5051. */
export function fetchEmployee(id: number): Promise<EmployeeRow> {
  return request<EmployeeRow>(OrgPath.employeeDetail, { userInfo: userInfoEcho(), id });
}

/** The fields both `employee/save` and `employee/update` take. */
export interface EmployeeForm {
  name: string;
  phone: string | null;
  email: string | null;
  departmentId: number | null;
  roleIds: number[];
  isAdmin: boolean;
}

/**
 * `employee/save`: a new employee with its sign-in account and initial password (sent as the
 * SHA-256 digest; to be changed at first sign-in). An account that already exists in another
 * company is linked instead and keeps its own password (`linkedExistingAccount`).
 * Errors: 5050 the account is already an employee here, 5000 department, 5031 role.
 */
export function createEmployee(
  form: EmployeeForm & { account: string; password: string },
): Promise<{ id: number; linkedExistingAccount: boolean }> {
  return request(OrgPath.employeeSave, {
    userInfo: userInfoEcho(),
    ...form,
    password: sha256Hex(form.password),
  });
}

/** `employee/update`. Errors: 5051 missing, 5000 department, 5031 role. */
export function updateEmployee(id: number, form: EmployeeForm): Promise<unknown> {
  return request(OrgPath.employeeUpdate, { userInfo: userInfoEcho(), ...form, id });
}

/**
 * `employee/status`: enable or disable; disabling ends the employee's sessions at once.
 * Errors: 5051, 5057 (oneself).
 */
export function setEmployeeStatus(id: number, status: EnabledStatus): Promise<unknown> {
  return request(OrgPath.employeeStatus, { userInfo: userInfoEcho(), id, status });
}

/** `employee/delete`. Errors: 5051, 5053 administrator employee, 5057 oneself. */
export function deleteEmployee(id: number): Promise<unknown> {
  return request(OrgPath.employeeDelete, { userInfo: userInfoEcho(), id });
}

/** `employee/resetPassword`: a new password (sent as digest) that must be changed at next sign-in. Errors: 5051. */
export function resetEmployeePassword(id: number, password: string): Promise<unknown> {
  return request(OrgPath.employeeResetPassword, {
    userInfo: userInfoEcho(),
    id,
    password: sha256Hex(password),
  });
}

/** `role/pageList` (one page of 500): the enabled roles an employee can be given. */
export async function fetchEnabledRoles(): Promise<RoleRow[]> {
  const page = await request<Page<RoleRow>>(OrgPath.rolePageList, {
    userInfo: userInfoEcho(),
    pageNum: 1,
    pageSize: MAX_PAGE_SIZE,
    status: 'enabled',
  });
  return page.list;
}

/** TanStack Query keys of this feature. */
export const orgPeopleKeys = {
  departments: ['org-people', 'departments'] as const,
  employees: ['org-people', 'employees'] as const,
  employeeList: (q: EmployeeQuery) => ['org-people', 'employees', 'list', q] as const,
  employee: (id: number) => ['org-people', 'employees', 'detail', id] as const,
  roles: ['org-people', 'roles'] as const,
};
