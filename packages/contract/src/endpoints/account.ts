/**
 * The signed-in employee's own settings: `endpoints.account.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  emailSettingsSchema,
  getEmailRequest,
  updateEmailRequest,
  updatePasswordRequest,
} from '../api/employee';
import { nullResponse } from '../api/primitives';
import { defineEndpoint } from './define';

/** The signed-in employee's own settings (paths under `/employee/`, spec §7). */
export const accountEndpoints = {
  updatePassword: defineEndpoint({
    path: '/api-bms/employee/updatePassword',
    request: updatePasswordRequest,
    response: nullResponse,
    access: { signedIn: true },
    beforePasswordChange: true,
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
