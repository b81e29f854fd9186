/**
 * The signed-in employee's own settings (spec §4, §5, §7): password and alarm e-mail.
 */
import { z } from 'zod';
import { EMAIL_PATTERN, SUB_ALARM_VALUES } from '../validation';
import { userInfoEcho } from './envelope';
import { TEXT_LIMITS } from './primitives';
import { passwordHashSchema } from './user';

export const updatePasswordRequest = z.object({
  userInfo: userInfoEcho,
  oldPassword: passwordHashSchema,
  newPassword: passwordHashSchema,
  confirmPassword: passwordHashSchema,
});
export type UpdatePasswordRequest = z.infer<typeof updatePasswordRequest>;

export const getEmailRequest = z.object({ userInfo: userInfoEcho });
export const emailSettingsSchema = z.object({
  email: z.string().nullable(),
  isSubAlarm: z.enum(SUB_ALARM_VALUES),
});
export type EmailSettings = z.infer<typeof emailSettingsSchema>;

export const updateEmailRequest = z.object({
  userInfo: userInfoEcho,
  email: z.string().trim().max(TEXT_LIMITS.email).regex(EMAIL_PATTERN, 'must be a valid e-mail address'),
  isSubAlarm: z.enum(SUB_ALARM_VALUES),
});
export type UpdateEmailRequest = z.infer<typeof updateEmailRequest>;
