/**
 * Employees: `endpoints.employee.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  employeeListRequest,
  employeeListResponse,
  employeeResetPasswordRequest,
  employeeRowSchema,
  employeeSaveRequest,
  employeeSaveResponse,
  employeeStatusRequest,
  employeeUpdateRequest,
} from '../api/organisation';
import { idRequest, nullResponse } from '../api/primitives';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const employeeEndpoints = {
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
      'Create an employee; a new account gets the initial password (must be changed at first sign-in), an existing one is added or invited. Errors: 6000, 5000, 5031, 5034, 5050',
    description:
      'An existing account that belongs to a company the caller sees is added at once; any other existing ' +
      'account is invited: its password is kept, and the company enters its company pick only once its holder ' +
      'accepts (`user/acceptInvitation`). The answer, the operation log and the employee list ("awaiting first ' +
      'sign-in") are the same for a new and an invited account.',
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
      'Set a new password (digest) that must be changed at next sign-in; ends the account’s sessions. Errors: 5051, 5059 the employee has not signed in yet, 5034 the account also belongs to a company outside your scope',
    tags: ['employee'],
  }),
};
