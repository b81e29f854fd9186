/**
 * Company options, department and employee calls (contract `companyEndpoints`,
 * `departmentEndpoints`, `employeeEndpoints`, shapes in api/organisation.ts). Lists and saves take the company chosen in the company
 * picker (`companyId`; the server defaults to the caller's). Every function resolves with the answer's `data` or rejects with `ApiError` after
 * the client's spec §8 handling: the catalogue text of the code in the UI language, e.g.
 * 5000–5004 for departments, 5050–5057, 5031 and 5034 for employees; -100 shows the server's
 * msg, which names the field.
 */
import {
  type CompanyOption,
  companyEndpoints,
  type DepartmentRow,
  departmentEndpoints,
  type EmployeeRow,
  type EnabledStatus,
  type EndpointResponse,
  employeeEndpoints,
  MAX_PAGE_SIZE,
  type Page,
  type RoleRow,
  roleEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';
import { sha256Hex } from '@/shared/crypto/sha256';

/* ───────────── Companies ───────────── */

/** `company/options`: every company the caller may see (any kind), for the company picker. */
export async function fetchCompanyOptions(): Promise<CompanyOption[]> {
  const data = await request(companyEndpoints.options, {});
  return data.list;
}

/* ───────────── Departments ───────────── */

/**
 * `department/departmentList`: every department of `companyId` (the caller's when undefined),
 * flat (build the tree with `buildTree`). Errors: 6000 company out of reach.
 */
export async function fetchDepartments(companyId: number | undefined): Promise<DepartmentRow[]> {
  const data = await request(departmentEndpoints.list, { companyId });
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
 * `department/save` in `target.companyId` or `department/update` of `target.id` (a department
 * stays in its company). Errors: 5000 (parent or department missing), 5003 the parent is the
 * department itself or below it, 5004 the name exists at this level.
 */
export function saveDepartment(
  form: DepartmentForm,
  target: { companyId: number | undefined } | { id: number },
): Promise<unknown> {
  return 'id' in target
    ? request(departmentEndpoints.update, { ...form, id: target.id })
    : request(departmentEndpoints.save, { ...form, companyId: target.companyId });
}

/** `department/delete`. Errors: 5000 missing, 5001 has sub-departments, 5002 has employees. */
export function deleteDepartment(id: number): Promise<unknown> {
  return request(departmentEndpoints.delete, { id });
}

/* ───────────── Employees ───────────── */

export interface EmployeeQuery {
  /** The caller's company when undefined. */
  companyId: number | undefined;
  pageNum: number;
  pageSize: number;
  /** Account, name or phone. */
  keyword?: string;
  /** This department and the ones below it. */
  departmentId?: number;
  status?: EnabledStatus;
}

/** `employee/pageList`: employees of the company with department and roles. */
export function fetchEmployees(q: EmployeeQuery): Promise<Page<EmployeeRow>> {
  return request(employeeEndpoints.pageList, q);
}

/** `employee/detail`: one employee as the list shows it. Errors: 5051. */
export function fetchEmployee(id: number): Promise<EmployeeRow> {
  return request(employeeEndpoints.detail, { id });
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
 * `employee/save`: a new employee of `companyId` (the caller's company when undefined) with its
 * sign-in account and initial password (sent as the SHA-256 digest; to be changed at first
 * sign-in). An account that already exists keeps its own password and is added, or invited when
 * it belongs to a company the caller does not see (docs/api.md "Adding an existing account");
 * the answer `{id}` does not tell which.
 * Errors: 5050 the account is already an employee here, 5000 department, 5031 role.
 */
export function createEmployee(
  form: EmployeeForm & { account: string; password: string; companyId: number | undefined },
): Promise<EndpointResponse<typeof employeeEndpoints.save>> {
  return request(employeeEndpoints.save, {
    ...form,
    password: sha256Hex(form.password),
  });
}

/** `employee/update`. Errors: 5051 missing, 5000 department, 5031 role. */
export function updateEmployee(id: number, form: EmployeeForm): Promise<unknown> {
  return request(employeeEndpoints.update, { ...form, id });
}

/**
 * `employee/status`: enable or disable; disabling ends the employee's sessions at once.
 * Errors: 5051, 5057 (oneself).
 */
export function setEmployeeStatus(id: number, status: EnabledStatus): Promise<unknown> {
  return request(employeeEndpoints.status, { id, status });
}

/** `employee/delete`. Errors: 5051, 5053 administrator employee, 5057 oneself. */
export function deleteEmployee(id: number): Promise<unknown> {
  return request(employeeEndpoints.delete, { id });
}

/** `employee/resetPassword`: a new password (sent as digest) that must be changed at next sign-in. Errors: 5051. */
export function resetEmployeePassword(id: number, password: string): Promise<unknown> {
  return request(employeeEndpoints.resetPassword, {
    id,
    password: sha256Hex(password),
  });
}

/** `role/pageList` (one page of 500): the enabled roles of `companyId` an employee of it can be given. */
export async function fetchEnabledRoles(companyId: number | undefined): Promise<RoleRow[]> {
  const page = await request(roleEndpoints.pageList, {
    companyId,
    pageNum: 1,
    pageSize: MAX_PAGE_SIZE,
    status: 'enabled',
  });
  return page.list;
}

/** TanStack Query keys of this feature. */
export const orgPeopleKeys = {
  companies: ['org-people', 'companies'] as const,
  departments: ['org-people', 'departments'] as const,
  departmentsOf: (companyId: number | undefined) => ['org-people', 'departments', companyId] as const,
  employees: ['org-people', 'employees'] as const,
  employeeList: (q: EmployeeQuery) => ['org-people', 'employees', 'list', q] as const,
  employee: (id: number) => ['org-people', 'employees', 'detail', id] as const,
  rolesOf: (companyId: number | undefined) => ['org-people', 'roles', companyId] as const,
};
