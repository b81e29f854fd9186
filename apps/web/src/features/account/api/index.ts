/**
 * The signed-in employee's own settings (spec §4, §5, §7; contract `accountEndpoints`, shapes
 * in api/employee.ts). Failures show the server's msg (spec §8: the dialogs show it).
 */
import {
  accountEndpoints,
  type EmailSettings,
  type InvitationAnswer,
  type SubAlarm,
  userEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';
import { sha256Hex } from '@/shared/crypto/sha256';

/**
 * `employee/updatePassword`: each password sent as SHA-256 hex.
 * Errors: 5054 wrong old password, 5055 mismatch, 5056 same as old.
 */
export async function updatePassword(form: {
  oldPassword: string;
  newPassword: string;
  confirmPassword: string;
}): Promise<void> {
  await request(
    accountEndpoints.updatePassword,
    {
      oldPassword: sha256Hex(form.oldPassword),
      newPassword: sha256Hex(form.newPassword),
      confirmPassword: sha256Hex(form.confirmPassword),
    },
    { errorText: 'server' },
  );
}

/** `employee/getEmail`: the alarm e-mail (or null) and whether alarms are subscribed ('Y'/'N'). */
export function getEmail(): Promise<EmailSettings> {
  return request(accountEndpoints.getEmail, {}, { errorText: 'server' });
}

/** `employee/updateEmail`: e-mail trimmed; -100 with the field named when invalid. */
export async function updateEmail(email: string, isSubAlarm: SubAlarm): Promise<void> {
  await request(accountEndpoints.updateEmail, { email: email.trim(), isSubAlarm }, { errorText: 'server' });
}

/**
 * `user/acceptInvitation` / `user/declineInvitation`: answers the invitation of `companyId`
 * (docs/api.md "Adding an existing account"); resolves with the company pick and the
 * invitations still open. Errors: 5060 no such pending invitation.
 */
export function answerInvitation(companyId: number, accept: boolean): Promise<InvitationAnswer> {
  return request(accept ? userEndpoints.acceptInvitation : userEndpoints.declineInvitation, { companyId });
}
