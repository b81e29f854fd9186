/**
 * The session handshake and tokens (auth/session-service.ts): `user/getUserInfo` with a login
 * ticket or X-Token, the company pick, what each token state answers, `user/loginOut`, and
 * `user/refreshToken` with rotation and reuse detection.
 */
import { endpoints, refreshTokenResponse, userInfoResponse } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../src/access/tokens';
import { authSession, employee, loginTicket, usedRefreshToken } from '../src/core/db/schema';
import { call, digest, type SignedIn, signIn } from './support/client';
import {
  addCompany,
  addEmployee,
  addRole,
  addStaff,
  conforms,
  type Staff,
  sessionOfToken,
  terminal,
} from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('session handshake and tokens on %s', (engine) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp(engine);
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.database.db;
  const login = async (staff: Pick<Staff, 'account' | 'password'>, terminalId = terminal()) => {
    const answer = await call(ctx.app, endpoints.user.login.path, {
      account: staff.account,
      password: digest(staff.password),
      terminalId,
    });
    expect(answer.code).toBe(0);
    return { ...answer.data, terminalId } as {
      userId: number;
      companyList: { id: number; name: string }[];
      loginTicket: string;
      terminalId: string;
    };
  };
  const userInfo = (body: object, token?: string, lang?: 'zh' | 'en') =>
    call(ctx.app, endpoints.user.getUserInfo.path, body, {
      ...(token ? { token } : {}),
      ...(lang ? { lang } : {}),
    });
  /** An authenticated call, in English. */
  const menu = (token: string) =>
    call(ctx.app, endpoints.user.getLanguageMenu.path, { language: 'en' }, { token, lang: 'en' });
  const refresh = (s: { userId: number; terminalId: string }, refreshToken: string) =>
    call(ctx.app, endpoints.user.refreshToken.path, {
      userId: s.userId,
      terminalId: s.terminalId,
      refreshToken,
    });
  const signInStaff = (staff: Staff, terminalId?: string) =>
    signIn(ctx.app, staff.account, staff.password, terminalId);

  describe('user/getUserInfo with a login ticket', () => {
    it('opens a session: tokens, identity, company, menu, and a stored session row', async () => {
      const l = await login({ account: 'admin', password: 'admin123' });
      const companyId = l.companyList[0]!.id;
      const answer = await userInfo({
        userId: l.userId,
        companyId,
        terminalId: l.terminalId,
        loginTicket: l.loginTicket,
      });
      expect(answer.code).toBe(0);
      const info = conforms(userInfoResponse, answer.data);
      expect(info).toMatchObject({
        userId: l.userId,
        companyId,
        companyName: '平台运营中心',
        account: 'admin',
        name: '管理员',
        isAdmin: true,
        roles: [{ id: expect.any(Number), name: '系统管理员' }],
      });
      expect(info.token).toMatch(/^at_[A-Za-z0-9_-]{43}$/);
      expect(info.refreshToken).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
      expect(info.tokenExpiresAt).toBeGreaterThan(Date.now() + 29 * 60_000);
      expect(info.menuList.map((m) => m.meta.title)).toContain('系统管理');
      const session = await sessionOfToken(db(), info.token);
      expect(session).toMatchObject({
        userId: l.userId,
        companyId,
        terminalId: l.terminalId,
        refreshTokenHash: tokenDigest(info.refreshToken!),
        revokedAt: null,
      });
      expect(session!.refreshExpiresAt.getTime()).toBeGreaterThan(Date.now() + 6.9 * 24 * 3600_000);
    });

    it('a ticket is single-use: the second use answers 5081', async () => {
      const l = await login({ account: 'admin', password: 'admin123' });
      const body = {
        userId: l.userId,
        companyId: l.companyList[0]!.id,
        terminalId: l.terminalId,
        loginTicket: l.loginTicket,
      };
      expect((await userInfo(body)).code).toBe(0);
      expect(await userInfo(body)).toEqual({ code: 5081, msg: '获取令牌失败，请重新登录', data: null });
      expect((await userInfo(body, undefined, 'en')).msg).toBe(
        'Failed to obtain a token, please log in again',
      );
    });

    it('an expired ticket answers 5081', async () => {
      const l = await login({ account: 'admin', password: 'admin123' });
      await db()
        .update(loginTicket)
        .set({ expiresAt: sql`now() - interval '1 second'` })
        .where(eq(loginTicket.ticketHash, tokenDigest(l.loginTicket)));
      const answer = await userInfo({
        userId: l.userId,
        companyId: l.companyList[0]!.id,
        terminalId: l.terminalId,
        loginTicket: l.loginTicket,
      });
      expect(answer.code).toBe(5081);
    });

    it('a ticket from another terminal answers 5081', async () => {
      const l = await login({ account: 'admin', password: 'admin123' });
      const answer = await userInfo({
        userId: l.userId,
        companyId: l.companyList[0]!.id,
        terminalId: terminal(),
        loginTicket: l.loginTicket,
      });
      expect(answer.code).toBe(5081);
    });

    it('a ticket presented without terminalId answers 5081', async () => {
      const l = await login({ account: 'admin', password: 'admin123' });
      const answer = await userInfo({
        userId: l.userId,
        companyId: l.companyList[0]!.id,
        loginTicket: l.loginTicket,
      });
      expect(answer.code).toBe(5081);
    });

    it('a ticket of another user answers 5081 and stays usable by its owner', async () => {
      const staff = await addStaff(db());
      const mine = await login(staff);
      const admin = await login({ account: 'admin', password: 'admin123' }, mine.terminalId);
      const stolen = await userInfo({
        userId: staff.userId,
        companyId: staff.companyId,
        terminalId: mine.terminalId,
        loginTicket: admin.loginTicket,
      });
      expect(stolen.code).toBe(5081);
      const own = await userInfo({
        userId: admin.userId,
        companyId: admin.companyList[0]!.id,
        terminalId: admin.terminalId,
        loginTicket: admin.loginTicket,
      });
      expect(own.code).toBe(0);
      expect(own.data.account).toBe('admin');
    });

    it('an unknown ticket answers 5081', async () => {
      const answer = await userInfo({
        userId: 1,
        companyId: 1,
        terminalId: terminal(),
        loginTicket: 'lt_nothing',
      });
      expect(answer.code).toBe(5081);
    });

    it('a company the account is not an employee of answers 5051', async () => {
      const staff = await addStaff(db());
      const elsewhere = await addCompany(db());
      const l = await login(staff);
      const answer = await userInfo({
        userId: l.userId,
        companyId: elsewhere.id,
        terminalId: l.terminalId,
        loginTicket: l.loginTicket,
      });
      expect(answer).toEqual({ code: 5051, msg: '员工不存在', data: null });
      const sessions = await db().select().from(authSession).where(eq(authSession.userId, staff.userId));
      expect(sessions).toHaveLength(0);
    });

    it('an employee disabled between login and getUserInfo answers 5052', async () => {
      const staff = await addStaff(db());
      const l = await login(staff);
      await db().update(employee).set({ status: 'disabled' }).where(eq(employee.id, staff.employeeId));
      const answer = await userInfo({
        userId: l.userId,
        companyId: staff.companyId,
        terminalId: l.terminalId,
        loginTicket: l.loginTicket,
      });
      expect(answer.code).toBe(5052);
    });

    it('an account in two companies picks one: a session and menu of that company', async () => {
      const first = await addCompany(db());
      const second = await addCompany(db());
      const firstRole = await addRole(db(), { companyId: first.id, menuIds: [120] });
      const secondRole = await addRole(db(), { companyId: second.id, menuIds: [] });
      const staff = await addStaff(db(), { companyId: first.id, roleIds: [firstRole] });
      await addEmployee(db(), { companyId: second.id, userId: staff.userId, roleIds: [secondRole] });

      const l1 = await login(staff);
      expect(l1.companyList).toEqual([
        { id: first.id, name: first.name },
        { id: second.id, name: second.name },
      ]);
      const inSecond = await userInfo({
        userId: l1.userId,
        companyId: second.id,
        terminalId: l1.terminalId,
        loginTicket: l1.loginTicket,
      });
      expect(inSecond.code).toBe(0);
      expect(inSecond.data).toMatchObject({ companyId: second.id, companyName: second.name, menuList: [] });
      expect(inSecond.data.companyList).toHaveLength(2);
      expect((await sessionOfToken(db(), inSecond.data.token))?.companyId).toBe(second.id);

      const l2 = await login(staff);
      const inFirst = await userInfo({
        userId: l2.userId,
        companyId: first.id,
        terminalId: l2.terminalId,
        loginTicket: l2.loginTicket,
      });
      expect(inFirst.data.companyId).toBe(first.id);
      expect(inFirst.data.menuList.map((m: { id: number }) => m.id)).toEqual([100]);
      expect(
        (await menu(inFirst.data.token)).data.menuList[0].children.map((m: { id: number }) => m.id),
      ).toEqual([120]);
      // Both sessions (different terminals) stay valid.
      expect((await menu(inSecond.data.token)).data.menuList).toEqual([]);
    });
  });

  describe('user/getUserInfo with X-Token', () => {
    it('answers the same user info with the same token and refreshToken null', async () => {
      const s = await signIn(ctx.app);
      const answer = await userInfo({ userId: s.userId, companyId: s.companyId }, s.token);
      expect(answer.code).toBe(0);
      const info = conforms(userInfoResponse, answer.data);
      expect(info.token).toBe(s.token);
      expect(info.refreshToken).toBeNull();
      const { token: _t, refreshToken: _r, ...rest } = info;
      const { token: _t0, refreshToken: _r0, ...first } = s.info;
      expect(rest).toEqual(first);
    });

    it('answers 5081 for another userId or companyId than the session’s', async () => {
      const s = await signIn(ctx.app);
      expect((await userInfo({ userId: s.userId + 1000, companyId: s.companyId }, s.token)).code).toBe(5081);
      expect((await userInfo({ userId: s.userId, companyId: s.companyId + 1000 }, s.token)).code).toBe(5081);
    });

    it('answers 9999 without ticket and token', async () => {
      expect((await userInfo({ userId: 1, companyId: 1 })).code).toBe(9999);
    });
  });

  describe('tokens', () => {
    let admin: SignedIn;
    beforeAll(async () => {
      admin = await signIn(ctx.app);
    });

    it('a call without X-Token answers 9999', async () => {
      expect(await call(ctx.app, endpoints.user.getLanguageMenu.path, {})).toEqual({
        code: 9999,
        msg: '令牌无效，请重新登录',
        data: null,
      });
      expect((await call(ctx.app, endpoints.user.getPermission.path, {}, { lang: 'en' })).msg).toBe(
        'Token invalid, please log in again',
      );
    });

    it.each([
      ['garbage', 'not a token'],
      ['a refresh token', `rt_${'a'.repeat(43)}`],
      ['a login ticket', `lt_${'a'.repeat(43)}`],
      ['a token one character short', `at_${'a'.repeat(42)}`],
    ])('%s in X-Token answers 50008', async (_label, token) => {
      expect(await call(ctx.app, endpoints.user.getLanguageMenu.path, {}, { token })).toEqual({
        code: 50008,
        msg: '非法令牌',
        data: null,
      });
    });

    it('an unknown well-formed token answers 9999', async () => {
      const answer = await call(
        ctx.app,
        endpoints.user.getLanguageMenu.path,
        {},
        { token: `at_${'Ab-_9'.repeat(8)}xyz` },
      );
      expect(answer.code).toBe(9999);
    });

    it('a valid token works; its refresh token in X-Token does not', async () => {
      expect((await menu(admin.token)).code).toBe(0);
      expect((await menu(admin.refreshToken)).code).toBe(50008);
    });

    it('an expired access token answers 50014; refreshing it gives a working token', async () => {
      const s = await signIn(ctx.app);
      await db()
        .update(authSession)
        .set({ accessExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(authSession.accessTokenHash, tokenDigest(s.token)));
      expect(await menu(s.token)).toEqual({ code: 50014, msg: 'Token expired', data: null });
      expect((await call(ctx.app, endpoints.user.getPermission.path, {}, { token: s.token })).msg).toBe(
        '令牌已过期',
      );
      const r = await refresh(s, s.refreshToken);
      expect(r.code).toBe(0);
      expect((await menu(r.data.token)).code).toBe(0);
    });

    it('a session past its absolute end answers -102 and is revoked', async () => {
      const s = await signIn(ctx.app);
      await db()
        .update(authSession)
        .set({ refreshExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(authSession.accessTokenHash, tokenDigest(s.token)));
      expect(await menu(s.token)).toEqual({
        code: -102,
        msg: 'Login expired, please log in again',
        data: null,
      });
      const row = await sessionOfToken(db(), s.token);
      expect(row?.revokedAt).not.toBeNull();
      expect(row?.revokeReason).toBe('expired');
    });

    it('after user/loginOut the token answers 50012; other sessions stay valid', async () => {
      const s = await signIn(ctx.app);
      const other = await signIn(ctx.app);
      const out = await call(
        ctx.app,
        endpoints.user.loginOut.path,
        { userId: s.userId, terminalId: s.terminalId },
        { token: s.token },
      );
      expect(out).toEqual({ code: 0, msg: '操作成功', data: null });
      expect(await menu(s.token)).toEqual({
        code: 50012,
        msg: 'Your session was ended elsewhere',
        data: null,
      });
      expect((await sessionOfToken(db(), s.token))?.revokeReason).toBe('logout');
      expect((await menu(other.token)).code).toBe(0);
      // Logging out again with the dead token is refused like any other call.
      expect((await call(ctx.app, endpoints.user.loginOut.path, {}, { token: s.token })).code).toBe(50012);
    });

    it('user/loginOut ends only the caller’s session, whatever userId and terminalId say', async () => {
      const victim = await signIn(ctx.app);
      const staff = await addStaff(db());
      const caller = await signInStaff(staff);
      await call(
        ctx.app,
        endpoints.user.loginOut.path,
        { userId: victim.userId, terminalId: victim.terminalId },
        { token: caller.token },
      );
      expect((await menu(caller.token)).code).toBe(50012);
      expect((await menu(victim.token)).code).toBe(0);
    });

    it('a new sign-in on the same terminal revokes that terminal’s previous session only', async () => {
      const terminalId = terminal();
      const first = await signIn(ctx.app, 'admin', 'admin123', terminalId);
      const elsewhere = await signIn(ctx.app);
      const second = await signIn(ctx.app, 'admin', 'admin123', terminalId);
      expect((await menu(first.token)).code).toBe(50012);
      expect((await sessionOfToken(db(), first.token))?.revokeReason).toBe('new-login');
      expect((await menu(second.token)).code).toBe(0);
      expect((await menu(elsewhere.token)).code).toBe(0);
      // The replaced session cannot be refreshed back to life.
      expect((await refresh(first, first.refreshToken)).code).toBe(50012);
    });

    it('another account signing in on the same terminal leaves the first account’s session alone', async () => {
      const terminalId = terminal();
      const staff = await addStaff(db());
      const a = await signInStaff(staff, terminalId);
      const b = await signIn(ctx.app, 'admin', 'admin123', terminalId);
      expect((await menu(a.token)).code).toBe(0);
      expect((await menu(b.token)).code).toBe(0);
    });

    it('disabling the employee ends the session at the next call (50012)', async () => {
      const staff = await addStaff(db());
      const s = await signInStaff(staff);
      expect((await menu(s.token)).code).toBe(0);
      await db().update(employee).set({ status: 'disabled' }).where(eq(employee.id, staff.employeeId));
      expect((await menu(s.token)).code).toBe(50012);
      expect((await sessionOfToken(db(), s.token))?.revokeReason).toBe('disabled');
      // Re-enabling does not bring the session back.
      await db().update(employee).set({ status: 'enabled' }).where(eq(employee.id, staff.employeeId));
      expect((await menu(s.token)).code).toBe(50012);
    });
  });

  describe('user/refreshToken', () => {
    it('rotates: new token and refresh token; the old access token answers 9999, the new one works', async () => {
      const s = await signIn(ctx.app);
      const before = await sessionOfToken(db(), s.token);
      const r = await refresh(s, s.refreshToken);
      expect(r.code).toBe(0);
      const data = conforms(refreshTokenResponse, r.data);
      expect(data.token).not.toBe(s.token);
      expect(data.refreshToken).not.toBe(s.refreshToken);
      expect(data.tokenExpiresAt).toBeGreaterThan(Date.now() + 29 * 60_000);
      expect((await menu(s.token)).code).toBe(9999);
      expect((await menu(data.token)).code).toBe(0);
      const after = await sessionOfToken(db(), data.token);
      expect(after?.id).toBe(before?.id);
      // Rotation keeps the absolute end of the session.
      expect(after?.refreshExpiresAt.getTime()).toBe(before?.refreshExpiresAt.getTime());
      const used = await db()
        .select()
        .from(usedRefreshToken)
        .where(eq(usedRefreshToken.tokenHash, tokenDigest(s.refreshToken)));
      expect(used).toHaveLength(1);
    });

    it('the old refresh token presented again answers 50012 and revokes the session', async () => {
      const s = await signIn(ctx.app);
      const r1 = await refresh(s, s.refreshToken);
      const r2 = await refresh(s, r1.data.refreshToken);
      expect(r2.code).toBe(0);
      // Past the grace window for concurrent tabs, reuse is theft.
      await db()
        .update(usedRefreshToken)
        .set({ usedAt: sql`now() - interval '1 minute'` })
        .where(eq(usedRefreshToken.tokenHash, tokenDigest(s.refreshToken)));
      expect((await refresh(s, s.refreshToken)).code).toBe(50012);
      expect((await sessionOfToken(db(), r2.data.token))?.revokeReason).toBe('refresh-reuse');
      expect((await menu(r2.data.token)).code).toBe(50012);
      expect((await refresh(s, r2.data.refreshToken)).code).toBe(50012);
    });

    it('a wrong terminalId or userId answers 9999 and leaves the session working', async () => {
      const s = await signIn(ctx.app);
      expect((await refresh({ ...s, terminalId: terminal() }, s.refreshToken)).code).toBe(9999);
      expect((await refresh({ ...s, userId: s.userId + 1000 }, s.refreshToken)).code).toBe(9999);
      expect((await menu(s.token)).code).toBe(0);
      expect((await refresh(s, s.refreshToken)).code).toBe(0);
    });

    it('an unknown refresh token answers 9999', async () => {
      expect((await refresh({ userId: 1, terminalId: terminal() }, `rt_${'x'.repeat(43)}`)).code).toBe(9999);
    });

    it('past the absolute end answers -102 and revokes the session', async () => {
      const s = await signIn(ctx.app);
      await db()
        .update(authSession)
        .set({ refreshExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(authSession.accessTokenHash, tokenDigest(s.token)));
      expect((await refresh(s, s.refreshToken)).code).toBe(-102);
      expect((await sessionOfToken(db(), s.token))?.revokeReason).toBe('expired');
    });

    it('after logout answers 50012', async () => {
      const s = await signIn(ctx.app);
      await call(ctx.app, endpoints.user.loginOut.path, {}, { token: s.token });
      expect((await refresh(s, s.refreshToken)).code).toBe(50012);
    });

    it('of two concurrent refreshes with the same token exactly one succeeds and the session survives', async () => {
      const s = await signIn(ctx.app);
      const answers = await Promise.all([refresh(s, s.refreshToken), refresh(s, s.refreshToken)]);
      const winner = answers.find((a) => a.code === 0);
      expect(answers.filter((a) => a.code === 0)).toHaveLength(1);
      expect(answers.filter((a) => a.code === 9999)).toHaveLength(1);
      expect((await menu(winner!.data.token)).code).toBe(0);
    });

    it('a just-rotated refresh token presented again (another tab) answers 9999 without revoking', async () => {
      const s = await signIn(ctx.app);
      const r1 = await refresh(s, s.refreshToken);
      expect((await refresh(s, s.refreshToken)).code).toBe(9999);
      expect((await menu(r1.data.token)).code).toBe(0);
      expect((await refresh(s, r1.data.refreshToken)).code).toBe(0);
    });

    it('a disabled employee cannot refresh (50012) and the session ends', async () => {
      const s = await signIn(ctx.app, 'admin', 'admin123');
      await db().update(employee).set({ status: 'disabled' }).where(eq(employee.userId, s.userId));
      expect((await refresh(s, s.refreshToken)).code).toBe(50012);
      await db().update(employee).set({ status: 'enabled' }).where(eq(employee.userId, s.userId));
      expect((await sessionOfToken(db(), s.token))?.revokeReason).toBe('disabled');
    });

    it('bad bodies answer -100 naming the field', async () => {
      const s = await signIn(ctx.app);
      const missing = await call(ctx.app, endpoints.user.refreshToken.path, {
        userId: s.userId,
        terminalId: s.terminalId,
      });
      expect(missing.code).toBe(-100);
      expect(missing.msg).toContain('refreshToken:');
      const badUser = await call(ctx.app, endpoints.user.refreshToken.path, {
        userId: 'one',
        terminalId: s.terminalId,
        refreshToken: s.refreshToken,
      });
      expect(badUser.code).toBe(-100);
      expect(badUser.msg).toContain('userId:');
    });
  });
});
