/**
 * Roles: `endpoints.role.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  roleCopyRequest,
  roleDetailSchema,
  roleListRequest,
  roleListResponse,
  roleMenuOptionsRequest,
  roleMenuOptionsResponse,
  roleSaveRequest,
  roleUpdateRequest,
} from '../api/organisation';
import { idRequest, nullResponse } from '../api/primitives';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const roleEndpoints = {
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
