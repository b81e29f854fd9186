/**
 * Departments: `endpoints.department.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  departmentInput,
  departmentListRequest,
  departmentListResponse,
  departmentUpdate,
} from '../api/organisation';
import { createdIdResponse, idRequest, nullResponse } from '../api/primitives';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const departmentEndpoints = {
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
