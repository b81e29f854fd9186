/**
 * The signed-in employee's own settings (spec §4, §5, §7): `employee/updatePassword`,
 * `employee/getEmail`, `employee/updateEmail`.
 */
import { emailSettingsSchema, endpoints } from '@ess/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { employee, userAccount } from '../src/core/db/schema';
import { call, digest, signIn } from './support/client';
import {
  addCompany,
  addEmployee,
  addStaff,
  conforms,
  type Staff,
  sessionOfToken,
  terminal,
} from './support/fixtures';
import { createTestApp, engines, TEST_SCRYPT_LOG_N, type TestContext } from './support/test-app';

describe.each(engines)('employee settings on %s', (engine) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp(engine);
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.database.db;
  const signInStaff = (staff: Pick<Staff, 'account' | 'password'>, password = staff.password) =>
    signIn(ctx.app, staff.account, password);
  const changePassword = (token: string, old: string, next: string, confirm = next, lang?: 'zh' | 'en') =>
    call(
      ctx.app,
      endpoints.account.updatePassword.path,
      {
        userInfo: { userId: 1, name: 'ignored' },
        oldPassword: digest(old),
        newPassword: digest(next),
        confirmPassword: digest(confirm),
      },
      { token, ...(lang ? { lang } : {}) },
    );
  const loginCode = async (account: string, password: string) =>
    (
      await call(ctx.app, endpoints.user.login.path, {
        account,
        password: digest(password),
        terminalId: terminal(),
      })
    ).code;
  const storedHash = async (userId: number) =>
    (await db().select().from(userAccount).where(eq(userAccount.id, userId)))[0]!;

  describe('employee/updatePassword', () => {
    it('answers 5055 when new and confirmation differ, before checking the original', async () => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      expect(await changePassword(s.token, 'wrong-old', 'new-pass-1', 'new-pass-2')).toEqual({
        code: 5055,
        msg: '新密码与确认密码不一致',
        data: null,
      });
      expect((await changePassword(s.token, staff.password, 'new-pass-1', 'new-pass-2', 'en')).msg).toBe(
        'The new and confirmed passwords do not match',
      );
    });

    it('answers 5054 for a wrong original password and changes nothing', async () => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      const before = await storedHash(staff.userId);
      expect(await changePassword(s.token, 'wrong-old', 'new-pass-1')).toEqual({
        code: 5054,
        msg: '原密码错误',
        data: null,
      });
      expect((await storedHash(staff.userId)).passwordHash).toBe(before.passwordHash);
      expect(await loginCode(staff.account, staff.password)).toBe(0);
    });

    it('answers 5056 when the new password is the original', async () => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      expect(await changePassword(s.token, staff.password, staff.password)).toEqual({
        code: 5056,
        msg: '新密码不能与原密码相同',
        data: null,
      });
    });

    it('changes the password: old one 5080, new one signs in, stored as a new scrypt hash', async () => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      const before = await storedHash(staff.userId);
      expect(await changePassword(s.token, staff.password, 'brand-new-1')).toEqual({
        code: 0,
        msg: '修改成功',
        data: null,
      });
      const after = await storedHash(staff.userId);
      expect(after.passwordHash).not.toBe(before.passwordHash);
      expect(after.passwordHash.startsWith(`scrypt$${TEST_SCRYPT_LOG_N}$8$1$`)).toBe(true);
      expect(after.passwordHash).not.toContain(digest('brand-new-1'));
      expect(after.passwordChangedAt.getTime()).toBeGreaterThanOrEqual(before.passwordChangedAt.getTime());
      expect(await loginCode(staff.account, staff.password)).toBe(5080);
      expect(await loginCode(staff.account, 'brand-new-1')).toBe(0);
    });

    it("answers 'Modified successfully' in English", async () => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      expect(await changePassword(s.token, staff.password, 'brand-new-2', undefined, 'en')).toEqual({
        code: 0,
        msg: 'Modified successfully',
        data: null,
      });
    });

    it('ends the account’s other sessions, in every company, and keeps the calling one', async () => {
      const staff = await addStaff(db());
      const second = await addCompany(db());
      await addEmployee(db(), { companyId: second.id, userId: staff.userId });
      const caller = await signInStaff(staff);
      const other = await signInStaff(staff);
      const terminalId = terminal();
      const login = await call(ctx.app, endpoints.user.login.path, {
        account: staff.account,
        password: digest(staff.password),
        terminalId,
      });
      const inSecond = await call(ctx.app, endpoints.user.getUserInfo.path, {
        userId: staff.userId,
        companyId: second.id,
        terminalId,
        loginTicket: login.data.loginTicket,
      });
      expect(inSecond.code).toBe(0);
      const admin = await signIn(ctx.app);

      expect((await changePassword(caller.token, staff.password, 'brand-new-3')).code).toBe(0);

      const probe = (token: string) => call(ctx.app, endpoints.account.getEmail.path, {}, { token });
      expect((await probe(caller.token)).code).toBe(0);
      expect((await probe(other.token)).code).toBe(50012);
      expect((await probe(inSecond.data.token)).code).toBe(50012);
      expect((await sessionOfToken(db(), other.token))?.revokeReason).toBe('password-changed');
      expect(
        (
          await call(ctx.app, endpoints.user.refreshToken.path, {
            userId: other.userId,
            terminalId: other.terminalId,
            refreshToken: other.refreshToken,
          })
        ).code,
      ).toBe(50012);
      // Other accounts are not touched.
      expect((await probe(admin.token)).code).toBe(0);
    });

    const good = { oldPassword: digest('a'), newPassword: digest('b'), confirmPassword: digest('b') };
    it.each([
      ['oldPassword', { ...good, oldPassword: undefined }],
      ['newPassword', { ...good, newPassword: 'short' }],
      ['confirmPassword', { ...good, confirmPassword: 42 }],
      ['oldPassword', { ...good, oldPassword: 'plain text password' }],
    ])('answers -100 naming %s for a bad body', async (field, body) => {
      const s = await signIn(ctx.app);
      const answer = await call(ctx.app, endpoints.account.updatePassword.path, body, { token: s.token });
      expect(answer.code).toBe(-100);
      expect(answer.msg).toContain(`${field}:`);
    });

    it('needs a token', async () => {
      expect((await call(ctx.app, endpoints.account.updatePassword.path, good)).code).toBe(9999);
    });
  });

  describe('employee/getEmail and employee/updateEmail', () => {
    const getEmail = (token: string) =>
      call(ctx.app, endpoints.account.getEmail.path, { userInfo: {} }, { token });
    const updateEmail = (token: string, body: object, lang?: 'zh' | 'en') =>
      call(ctx.app, endpoints.account.updateEmail.path, body, { token, ...(lang ? { lang } : {}) });
    const row = async (employeeId: number) =>
      (await db().select().from(employee).where(eq(employee.id, employeeId)))[0]!;

    it("answers {email: null, isSubAlarm: 'N'} for a new employee", async () => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      const answer = await getEmail(s.token);
      expect(answer).toEqual({ code: 0, msg: '操作成功', data: { email: null, isSubAlarm: 'N' } });
      conforms(emailSettingsSchema, answer.data);
    });

    it('stores and answers the e-mail and flag (trimmed), and user info shows the e-mail', async () => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      expect(await updateEmail(s.token, { email: '  ops@example.com ', isSubAlarm: 'Y' }, 'en')).toEqual({
        code: 0,
        msg: 'Operation successful',
        data: null,
      });
      expect((await getEmail(s.token)).data).toEqual({ email: 'ops@example.com', isSubAlarm: 'Y' });
      expect(await row(staff.employeeId)).toMatchObject({ email: 'ops@example.com', isSubAlarm: 'Y' });
      const info = await call(
        ctx.app,
        endpoints.user.getUserInfo.path,
        { userId: s.userId, companyId: s.companyId },
        { token: s.token },
      );
      expect(info.data.email).toBe('ops@example.com');

      expect((await updateEmail(s.token, { email: 'ops2@example.cn', isSubAlarm: 'N' })).code).toBe(0);
      expect((await getEmail(s.token)).data).toEqual({ email: 'ops2@example.cn', isSubAlarm: 'N' });
    });

    it('changes only the calling employee, not the same account in another company', async () => {
      const staff = await addStaff(db());
      const second = await addCompany(db());
      const otherEmployee = await addEmployee(db(), { companyId: second.id, userId: staff.userId });
      const s = await signInStaff(staff);
      expect(s.companyId).toBe(staff.companyId);
      expect((await updateEmail(s.token, { email: 'first@example.com', isSubAlarm: 'Y' })).code).toBe(0);
      expect(await row(otherEmployee)).toMatchObject({ email: null, isSubAlarm: 'N' });
    });

    it.each([
      ['email', { email: 'not-an-email', isSubAlarm: 'Y' }],
      ['email', { email: '', isSubAlarm: 'Y' }],
      ['email', { email: 'a b@example.com', isSubAlarm: 'Y' }],
      ['email', { email: `${'a'.repeat(250)}@example.com`, isSubAlarm: 'Y' }],
      ['email', { isSubAlarm: 'Y' }],
      ['isSubAlarm', { email: 'ok@example.com', isSubAlarm: 'X' }],
      ['isSubAlarm', { email: 'ok@example.com', isSubAlarm: 'y' }],
      ['isSubAlarm', { email: 'ok@example.com' }],
    ])('answers -100 naming %s and leaves the row unchanged: %j', async (field, body) => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      expect((await updateEmail(s.token, { email: 'kept@example.com', isSubAlarm: 'Y' })).code).toBe(0);
      const answer = await updateEmail(s.token, body);
      expect(answer.code).toBe(-100);
      expect(answer.msg).toContain(`${field}:`);
      expect(await row(staff.employeeId)).toMatchObject({ email: 'kept@example.com', isSubAlarm: 'Y' });
    });

    it('both need a token', async () => {
      expect((await call(ctx.app, endpoints.account.getEmail.path, {})).code).toBe(9999);
      expect(
        (await call(ctx.app, endpoints.account.updateEmail.path, { email: 'a@b.cn', isSubAlarm: 'Y' })).code,
      ).toBe(9999);
    });
  });
  it('guesses at the old password are limited per session: the 11th within a minute answers 5083', async () => {
    const staff = await addStaff(db());
    const { token } = await signInStaff(staff);
    for (let i = 0; i < 10; i++)
      expect((await changePassword(token, 'wrong-old', 'newpass1')).code).toBe(5054);
    const limited = await changePassword(token, staff.password, 'newpass1');
    expect(limited).toMatchObject({ code: 5083, msg: '操作过于频繁，请稍后再试', data: null });
    expect(await loginCode(staff.account, staff.password)).toBe(0);
  });
});
