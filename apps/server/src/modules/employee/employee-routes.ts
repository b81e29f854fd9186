/**
 * The signed-in employee's own settings (spec §4, §5, §7):
 * `employee/updatePassword`, `employee/getEmail`, `employee/updateEmail`.
 */
import {
  ApiPath,
  ErrorCode,
  emailSettingsSchema,
  envelopeOf,
  getEmailRequest,
  updateEmailRequest,
  updatePasswordRequest,
} from '@ess/contract';
import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { hashPassword, verifyPassword } from '../../access/password';
import { employee, userAccount } from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';
import { ok } from '../../core/http/envelope';

const tags = ['employee'];
const passwordChangedText = { zh: '修改成功', en: 'Modified successfully' } as const;

export const employeeRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, sessions, config } = app;

  app.post(
    ApiPath.updatePassword,
    {
      // Each check costs a full scrypt hash: bound guesses at the old password per session.
      config: {
        signedIn: true,
        audit: { action: 'account.updatePassword', targetType: 'account' },
        rateLimit: {
          max: 10,
          timeWindow: '1 minute',
          keyGenerator: (req) => String(req.headers['x-token'] ?? req.ip),
        },
      },
      schema: {
        tags,
        summary: "Change the caller's password (digests as sent by the browser)",
        description:
          'Errors: 5055 new and confirmation differ, 5054 original password incorrect, 5056 new equals original. ' +
          "On success the account's other sessions end; this one stays.",
        body: updatePasswordRequest,
        response: { 200: envelopeOf(z.null()) },
      },
    },
    async (request) => {
      const { oldPassword, newPassword, confirmPassword } = request.body;
      if (newPassword !== confirmPassword) throw new ApiError(ErrorCode.PASSWORD_CONFIRM_MISMATCH);
      const [account] = await db.select().from(userAccount).where(eq(userAccount.id, request.auth.userId));
      if (!account || !(await verifyPassword(oldPassword, account.passwordHash))) {
        throw new ApiError(ErrorCode.OLD_PASSWORD_INCORRECT);
      }
      if (newPassword === oldPassword) throw new ApiError(ErrorCode.PASSWORD_SAME_AS_OLD);
      const passwordHash = await hashPassword(newPassword, config.auth.scryptLogN);
      await db
        .update(userAccount)
        .set({ passwordHash, passwordChangedAt: new Date(), mustChangePassword: false })
        .where(eq(userAccount.id, account.id));
      await sessions.revokeUserSessions(account.id, 'password-changed', request.auth.sessionId);
      return { ...ok(request, null), msg: passwordChangedText[request.lang] };
    },
  );

  app.post(
    ApiPath.getEmail,
    {
      config: { signedIn: true },
      schema: {
        tags,
        summary: "The caller's alarm e-mail and subscription flag (isSubAlarm 'Y' or 'N')",
        body: getEmailRequest,
        response: { 200: envelopeOf(emailSettingsSchema.nullable()) },
      },
    },
    async (request) => {
      const [row] = await db
        .select({ email: employee.email, isSubAlarm: employee.isSubAlarm })
        .from(employee)
        .where(eq(employee.id, request.auth.employeeId));
      if (!row) throw new ApiError(ErrorCode.EMPLOYEE_NOT_FOUND);
      return ok(request, { email: row.email, isSubAlarm: row.isSubAlarm === 'Y' ? 'Y' : 'N' } as const);
    },
  );

  app.post(
    ApiPath.updateEmail,
    {
      config: { signedIn: true, audit: { action: 'account.updateEmail', targetType: 'employee' } },
      schema: {
        tags,
        summary: "Set the caller's alarm e-mail and whether device alarms are mailed to it",
        body: updateEmailRequest,
        response: { 200: envelopeOf(z.null()) },
      },
    },
    async (request) => {
      await db
        .update(employee)
        // Alarm mails go out in the language the setting was saved in (modules/alarm/alarm-mail.ts).
        .set({
          email: request.body.email,
          isSubAlarm: request.body.isSubAlarm,
          mailLang: request.lang,
          updatedAt: new Date(),
        })
        .where(eq(employee.id, request.auth.employeeId));
      return ok(request, null);
    },
  );
};
