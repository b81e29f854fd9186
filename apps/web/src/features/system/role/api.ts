/**
 * Role calls (contract `roleEndpoints`, shapes in api/organisation.ts). Every
 * function resolves with the answer's `data` or rejects with `ApiError` after the client's spec
 * §8 handling (the catalogue text of 5031–5036 is shown by the client).
 */
import {
  type DataScopeKind,
  type EnabledStatus,
  type Page,
  type RoleDetail,
  type RoleMenuOptions,
  type RoleRow,
  roleEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export interface RoleQuery {
  /** The caller's company when undefined. */
  companyId: number | undefined;
  pageNum: number;
  pageSize: number;
  /** Matches name or code. */
  keyword?: string;
  status?: EnabledStatus;
}

/** `role/pageList`: roles of the company with their employee counts. */
export function fetchRoles(q: RoleQuery): Promise<Page<RoleRow>> {
  return request(roleEndpoints.pageList, q);
}

/** `role/detail`: the role and the menu ids it grants (every id for an administrator role). Errors: 5031. */
export function fetchRole(id: number): Promise<RoleDetail> {
  return request(roleEndpoints.detail, { id });
}

/** What the role dialog sends (contract `roleSaveRequest` / `roleUpdateRequest`). */
export interface RoleForm {
  name: string;
  code: string;
  remark: string | null;
  status: EnabledStatus;
  dataScope: DataScopeKind;
  menuIds: number[];
}

/**
 * `role/save` in `target.companyId` or `role/update` with the version read (optimistic lock; a
 * role stays in its company). Errors: 5036 name or code exists, 5035 changed by someone else,
 * 5031 not found, 5034 an entry the caller may not grant, -100.
 */
export function saveRole(
  form: RoleForm,
  target: { companyId: number | undefined } | { id: number; version: number },
): Promise<unknown> {
  return 'id' in target
    ? request(roleEndpoints.update, { ...form, ...target })
    : request(roleEndpoints.save, { ...form, companyId: target.companyId });
}

/**
 * `role/menuOptions`: the menu rows (both titles, display order) a role of `companyId` may be
 * given by the caller, and the ids the caller may add or remove. Errors: 6000.
 */
export function fetchRoleMenuOptions(companyId: number | undefined): Promise<RoleMenuOptions> {
  return request(roleEndpoints.menuOptions, { companyId });
}

/** `role/delete`. Errors: 5031 not found, 5032 still held by employees, 5033 administrator role. */
export function deleteRole(id: number): Promise<unknown> {
  return request(roleEndpoints.delete, { id });
}

/** `role/copy`: a new role with the same rights and data scope. Errors: 5031, 5036. */
export function copyRole(id: number, name: string, code: string): Promise<RoleDetail> {
  return request(roleEndpoints.copy, { id, name, code });
}

/** TanStack Query keys of roles. */
export const roleKeys = {
  all: ['roles'] as const,
  list: (q: RoleQuery) => ['roles', 'list', q] as const,
  detail: (id: number) => ['roles', 'detail', id] as const,
  menuOptions: (companyId: number | undefined) => ['roles', 'menuOptions', companyId] as const,
};
