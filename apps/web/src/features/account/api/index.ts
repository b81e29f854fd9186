/**
 * The signed-in employee's own settings (spec §4, §5, §7; shapes in @ess/contract
 * api/employee.ts). Failures show the server's msg (spec §8: the dialogs show it).
 */
import { ApiPath, type EmailSettings, type SubAlarm } from '@ess/contract';
import { request } from '@/shared/api/client';
import { sha256Hex } from '@/shared/crypto/sha256';
import { getCredentials } from '@/shared/storage/session';

function userInfo() {
  const { userId, companyId } = getCredentials();
  return { userId, companyId };
}

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
    ApiPath.updatePassword,
    {
      userInfo: userInfo(),
      oldPassword: sha256Hex(form.oldPassword),
      newPassword: sha256Hex(form.newPassword),
      confirmPassword: sha256Hex(form.confirmPassword),
    },
    { errorText: 'server' },
  );
}

/** `employee/getEmail`: the alarm e-mail (or null) and whether alarms are subscribed ('Y'/'N'). */
export function getEmail(): Promise<EmailSettings> {
  return request<EmailSettings>(ApiPath.getEmail, { userInfo: userInfo() }, { errorText: 'server' });
}

/** `employee/updateEmail`: e-mail trimmed; -100 with the field named when invalid. */
export async function updateEmail(email: string, isSubAlarm: SubAlarm): Promise<void> {
  await request(
    ApiPath.updateEmail,
    { userInfo: userInfo(), email: email.trim(), isSubAlarm },
    { errorText: 'server' },
  );
}
