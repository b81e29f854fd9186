/**
 * Menu management (spec §7): `endpoints.menu.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import { menuInput, menuListRequest, menuListResponse, menuUpdate } from '../api/menu';
import { createdIdResponse, idRequest, nullResponse } from '../api/primitives';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const menuEndpoints = {
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
