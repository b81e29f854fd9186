/**
 * The signed-in employee's own settings (spec §4, §5, §7):
 * `employee/updatePassword`, `employee/getEmail`, `employee/updateEmail`.
 */
import { ErrorCode, endpoints } from '@ess/contract';
import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { hashPassword, verifyPassword } from '../../access/password';
import { employee, userAccount } from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';

const calls = endpoints.account;
const passwordChangedText = { zh: '修改成功', en: 'Modified successfully' } as const;

export const employeeRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, sessions, config } = app;

  route(
    app,
    calls.updatePassword,
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
    {
      // Each check costs a full scrypt hash: bound guesses at the old password per session.
      config: {
        rateLimit: {
          max: 10,
          timeWindow: '1 minute',
          keyGenerator: (req) => String(req.headers['x-token'] ?? req.ip),
        },
      },
    },
  );

  route(app, calls.getEmail, async (request) => {
    const [row] = await db
      .select({ email: employee.email, isSubAlarm: employee.isSubAlarm })
      .from(employee)
      .where(eq(employee.id, request.auth.employeeId));
    if (!row) throw new ApiError(ErrorCode.EMPLOYEE_NOT_FOUND);
    return ok(request, { email: row.email, isSubAlarm: row.isSubAlarm === 'Y' ? 'Y' : 'N' } as const);
  });

  route(app, calls.updateEmail, async (request) => {
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
  });
};
