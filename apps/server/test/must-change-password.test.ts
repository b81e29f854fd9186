/**
 * "Must change password" is enforced by the server, not only by the console's forced dialog
 * (issue 13 item 8): an account whose password an administrator set (new account, reset) gets
 * 5058 on every signed-in call of the endpoint table except those marked
 * `beforePasswordChange` (password change, own menu and permissions, logout; user info is public)
 * until it changes the password; then the same calls answer as usual. The live push (`/ws`)
 * refuses such a session too.
 */
import { ALL_ENDPOINTS, ErrorCode, endpoints, errorMessage } from '@ess/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { call, digest, type SignedIn, signIn } from './support/client';
import { addRole, unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('must change password on %s', (engine) => {
  let ctx: TestContext;
  let admin: SignedIn;
  let account: string;
  let employeeId: number;
  const INITIAL = 'initial-1';
  const CHOSEN = 'chosen-22';

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    admin = await signIn(ctx.app);
    // The employee list right (menu 120), so that a call is allowed once the password is changed.
    const roleId = await addRole(ctx.database.db, { companyId: admin.companyId, menuIds: [120] });
    account = unique('fresh');
    const saved = await call(
      ctx.app,
      endpoints.employee.save.path,
      { account, password: digest(INITIAL), name: unique('新员工'), roleIds: [roleId] },
      { token: admin.token },
    );
    expect(saved.code, saved.msg).toBe(0);
    employeeId = saved.data.id;
  });
  afterAll(async () => ctx?.close());

  const as = (session: SignedIn, path: string, body: object = {}, lang: 'zh' | 'en' = 'zh') =>
    call(ctx.app, path, body, { token: session.token, lang });

  it('with the initial password: every call but the marked ones answers 5058 (zh/en)', async () => {
    const fresh = await signIn(ctx.app, account, INITIAL);
    expect(fresh.info.mustChangePassword).toBe(true);

    const list = await as(fresh, endpoints.employee.pageList.path, {});
    expect(list).toEqual({ code: 5058, msg: '管理员为您设置了初始密码，请先修改密码', data: null });
    expect((await as(fresh, endpoints.employee.pageList.path, {}, 'en')).msg).toBe(
      'An administrator set your password; please change it first',
    );

    // Every signed-in call of the table (whatever its body: refused before the schema).
    const refused: string[] = [];
    const marked: string[] = [];
    for (const endpoint of ALL_ENDPOINTS) {
      if ('public' in endpoint.access) continue;
      if (endpoint.beforePasswordChange) {
        marked.push(endpoint.path);
        continue;
      }
      const answer = await as(fresh, endpoint.path, {});
      if (answer.code !== ErrorCode.PASSWORD_CHANGE_REQUIRED)
        refused.push(`${endpoint.path} → ${answer.code}`);
    }
    expect(refused).toEqual([]);
    expect(marked.sort()).toEqual(
      [
        endpoints.account.updatePassword.path,
        endpoints.user.getLanguageMenu.path,
        endpoints.user.getPermission.path,
        endpoints.user.loginOut.path,
      ].sort(),
    );

    // User info (with the token), the own menu and permissions answer.
    const info = await call(
      ctx.app,
      endpoints.user.getUserInfo.path,
      {
        userId: fresh.userId,
        companyId: fresh.companyId,
      },
      { token: fresh.token },
    );
    expect(info.code).toBe(0);
    expect(info.data.mustChangePassword).toBe(true);
    expect((await as(fresh, endpoints.user.getLanguageMenu.path, { language: 'cn' })).code).toBe(0);
    expect((await as(fresh, endpoints.user.getPermission.path)).code).toBe(0);
    // The access token's refresh is public: it works too.
    const refreshed = await call(ctx.app, endpoints.user.refreshToken.path, {
      userId: fresh.userId,
      terminalId: fresh.terminalId,
      refreshToken: fresh.refreshToken,
    });
    expect(refreshed.code).toBe(0);
    // Logout too.
    const other = await signIn(ctx.app, account, INITIAL);
    expect((await as(other, endpoints.user.loginOut.path)).code).toBe(0);
  });

  it('with the initial password the live push refuses the session: 5058, socket closed', async () => {
    const fresh = await signIn(ctx.app, account, INITIAL);
    const base = (await ctx.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
    const socket = new WebSocket(`${base}/ws`);
    const messages: { type: string; code?: number }[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'auth', token: fresh.token }));
    expect(await closed).toBe(4001);
    expect(messages).toEqual([
      expect.objectContaining({ type: 'error', code: ErrorCode.PASSWORD_CHANGE_REQUIRED }),
    ]);
  });

  it('after the change the same calls answer; an administrator’s reset brings 5058 back', async () => {
    const fresh = await signIn(ctx.app, account, INITIAL);
    const changed = await as(fresh, endpoints.account.updatePassword.path, {
      oldPassword: digest(INITIAL),
      newPassword: digest(CHOSEN),
      confirmPassword: digest(CHOSEN),
    });
    expect(changed.code, changed.msg).toBe(0);
    // The same session goes on, now allowed.
    expect((await as(fresh, endpoints.employee.pageList.path, {})).code).toBe(0);
    expect((await as(fresh, endpoints.account.getEmail.path)).code).toBe(0);

    const reset = await call(
      ctx.app,
      endpoints.employee.resetPassword.path,
      { id: employeeId, password: digest('reset-333') },
      { token: admin.token },
    );
    expect(reset.code, reset.msg).toBe(0);
    const again = await signIn(ctx.app, account, 'reset-333');
    const answer = await as(again, endpoints.employee.pageList.path, {});
    expect(answer.code).toBe(ErrorCode.PASSWORD_CHANGE_REQUIRED);
    expect(answer.msg).toBe(errorMessage(ErrorCode.PASSWORD_CHANGE_REQUIRED, 'zh'));
  });
});
