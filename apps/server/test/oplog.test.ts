/**
 * Operation log (http/audit.ts, modules/audit/log-routes.ts): every change through the
 * API and every sign-in attempt is recorded — who, company, action, target, before → after with
 * secrets masked, the answer code — and `log/pageList` searches it within the caller's company
 * scope.
 */
import { endpoints, MASKED_VALUE, type OperationLogRow, operationLogListResponse } from '@ess/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskSecrets } from '../src/access/audit';
import { operationLog } from '../src/core/db/schema';
import { call, digest, type SignedIn, signIn } from './support/client';
import { addStaff, conforms, terminal, unique, uniqueIp } from './support/fixtures';
import { addCompanyUnder, adminRoleOf, uniquePhone } from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe('maskSecrets', () => {
  it('masks password, secret, token and ticket fields at any depth, drops userInfo, keeps the rest', () => {
    expect(
      maskSecrets({
        userInfo: { userId: 1 },
        account: 'zhang',
        password: 'a'.repeat(64),
        oldPassword: 'b',
        nested: [{ secret: 's3cr3t', refreshToken: 'rt_x', loginTicket: 'lt_x', sn: 'EMS-1' }],
        accessToken: null,
        at: new Date(Date.UTC(2024, 0, 2)),
      }),
    ).toEqual({
      account: 'zhang',
      password: MASKED_VALUE,
      oldPassword: MASKED_VALUE,
      nested: [{ secret: MASKED_VALUE, refreshToken: MASKED_VALUE, loginTicket: MASKED_VALUE, sn: 'EMS-1' }],
      accessToken: null,
      at: '2024-01-02T00:00:00.000Z',
    });
  });
});

describe.each(engines)('operation log on %s', (engine) => {
  let ctx: TestContext;
  let admin: SignedIn;
  let platform: number;
  /** A second platform administrator whose rows the filters look for. */
  let auditor: SignedIn & { account: string; name: string };

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    admin = await signIn(ctx.app);
    platform = admin.companyId;
    const staff = await addStaff(ctx.database.db, {
      companyId: platform,
      roleIds: [await adminRoleOf(ctx.database.db, platform)],
      account: unique('auditor'),
    });
    const session = await signIn(ctx.app, staff.account, staff.password);
    auditor = { ...session, account: staff.account, name: session.info.name };
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.database.db;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  const api = (token: string, path: string, body: object): Promise<any> =>
    call(ctx.app, path, body, { token });
  /** Log rows the caller sees with these filters, newest first. */
  const logOf = async (token: string, filters: object = {}): Promise<OperationLogRow[]> => {
    const answer = await call(ctx.app, endpoints.log.pageList.path, { pageSize: 500, ...filters }, { token });
    expect(answer.code, answer.msg).toBe(0);
    const data = conforms(operationLogListResponse, answer.data);
    expect(data.total).toBe(data.list.length);
    return data.list;
  };
  const roleBody = (extra: object = {}) => {
    const code = unique('r').replace(/[^A-Za-z0-9_-]/g, '');
    return { name: `角色${code}`, code, ...extra };
  };
  const everyRowText = async () => JSON.stringify(await db().select().from(operationLog));

  it('a successful change: action, target, operator, before → after, code 0', async () => {
    const saved = await api(admin.token, endpoints.role.save.path, roleBody({ menuIds: [110] }));
    expect(saved.code).toBe(0);
    const id = saved.data.id;
    const updated = await api(admin.token, endpoints.role.update.path, {
      ...roleBody(),
      id,
      version: 1,
      name: saved.data.name,
      code: saved.data.code,
      menuIds: [110, 120],
    });
    expect(updated.code).toBe(0);

    const [save] = await logOf(admin.token, { action: 'role.save', operator: 'admin' }).then((rows) =>
      rows.filter((r) => r.targetId === String(id)),
    );
    expect(save).toMatchObject({
      action: 'role.save',
      targetType: 'role',
      targetId: String(id),
      code: 0,
      account: 'admin',
      companyId: platform,
      before: null,
      after: { id, name: saved.data.name, menuIds: [110], version: 1 },
      ip: '127.0.0.1',
    });
    expect(save?.employeeId).toEqual(expect.any(Number));
    expect(save?.operatorName).toBe(admin.info.name);

    const [update] = await logOf(admin.token, { action: 'role.update' }).then((rows) =>
      rows.filter((r) => r.targetId === String(id)),
    );
    expect(update).toMatchObject({
      code: 0,
      before: { version: 1, menuIds: [110] },
      after: { version: 2, menuIds: [110, 120] },
    });
  });

  it('a refused change: its code, the target from the request, the request as after', async () => {
    const saved = await api(admin.token, endpoints.role.save.path, roleBody());
    const stale = {
      ...roleBody(),
      id: saved.data.id,
      version: 7,
      name: saved.data.name,
      code: saved.data.code,
    };
    expect(
      (await api(admin.token, endpoints.role.update.path, { ...stale, userInfo: { userId: 1 } })).code,
    ).toBe(5035);
    const [row] = await logOf(admin.token, { action: 'role.update', result: 'failure' }).then((rows) =>
      rows.filter((r) => r.targetId === String(saved.data.id)),
    );
    expect(row).toMatchObject({ code: 5035, targetType: 'role', account: 'admin', before: null });
    expect(row?.after).toMatchObject({ id: saved.data.id, version: 7, name: saved.data.name });
    expect(row?.after).not.toHaveProperty('userInfo');

    // Refused by the permission check, before the handler: logged too, with the caller.
    const company = await addCompanyUnder(db(), { type: 'owner', parentId: platform });
    const clerk = await addStaff(db(), { companyId: company });
    const clerkSession = await signIn(ctx.app, clerk.account, clerk.password);
    expect((await api(clerkSession.token, endpoints.department.delete.path, { id: 424_242 })).code).toBe(
      5034,
    );
    const [denied] = await logOf(admin.token, { action: 'department.delete', operator: clerk.account });
    expect(denied).toMatchObject({
      code: 5034,
      targetId: '424242',
      companyId: company,
      account: clerk.account,
    });
  });

  it('password digests and device secrets never reach the log', async () => {
    const company = await addCompanyUnder(db(), { type: 'owner', parentId: platform });
    const initialPlain = unique('init');
    const initial = digest(initialPlain);
    const account = unique('emp');
    const created = await api(admin.token, endpoints.employee.save.path, {
      account,
      password: initial,
      name: unique('员工'),
      companyId: company,
      phone: uniquePhone(),
    });
    expect(created.code).toBe(0);
    const [save] = await logOf(admin.token, { action: 'employee.save', targetType: 'employee' }).then(
      (rows) => rows.filter((r) => r.targetId === String(created.data.id)),
    );
    expect(save?.after).toMatchObject({ password: MASKED_VALUE });
    // Nothing in the entry tells a new account from an existing one (issue 13 item 9).
    expect(save?.after).not.toHaveProperty('linkedExistingAccount');

    // A password is reset only once its holder has signed in (5059 before).
    await signIn(ctx.app, account, initialPlain);
    const reset = digest(unique('reset'));
    expect(
      (
        await api(admin.token, endpoints.employee.resetPassword.path, {
          id: created.data.id,
          password: reset,
        })
      ).code,
    ).toBe(0);
    expect(
      (await api(admin.token, endpoints.employee.resetPassword.path, { id: 999_999, password: reset })).code,
    ).toBe(5051);
    const [refusedReset] = await logOf(admin.token, { action: 'employee.resetPassword', result: 'failure' });
    expect(refusedReset?.after).toMatchObject({ id: 999_999, password: MASKED_VALUE });

    const siteId = (
      await api(admin.token, endpoints.site.save.path, {
        code: unique('S'),
        name: unique('站点'),
        companyId: company,
      })
    ).data.id;
    const gateway = await api(admin.token, endpoints.device.save.path, {
      siteId,
      sn: unique('GW'),
      type: 'ems',
    });
    const reissued = await api(admin.token, endpoints.device.resetSecret.path, { id: gateway.data.id });
    expect(reissued.code).toBe(0);
    const [resetRow] = await logOf(admin.token, { action: 'device.resetSecret' });
    expect(resetRow).toMatchObject({ code: 0, targetId: String(gateway.data.id) });

    const text = await everyRowText();
    for (const secret of [initial, reset, gateway.data.secret.secret, reissued.data.secret]) {
      expect(secret.length).toBeGreaterThan(20);
      expect(text).not.toContain(secret);
    }
  });

  it('site and device writes: the row before → after, a device’s secret only as hasSecret', async () => {
    const company = await addCompanyUnder(db(), { type: 'owner', parentId: platform });
    const code = unique('S').replace(/[^A-Za-z0-9_-]/g, '');
    const siteName = unique('站点');
    const siteId = (
      await api(admin.token, endpoints.site.save.path, { code, name: siteName, companyId: company })
    ).data.id;
    const renamed = unique('站点');
    expect(
      (
        await api(admin.token, endpoints.site.update.path, {
          id: siteId,
          code,
          name: renamed,
          companyId: company,
          latitude: 31.2,
          longitude: 121.5,
        })
      ).code,
    ).toBe(0);
    const sn = unique('GW').replace(/[^A-Za-z0-9_-]/g, '');
    const gateway = await api(admin.token, endpoints.device.save.path, {
      siteId,
      sn,
      type: 'ems',
      model: 'M1',
    });
    expect(gateway.code).toBe(0);
    const gatewayId = gateway.data.id;
    expect(
      (
        await api(admin.token, endpoints.device.update.path, {
          id: gatewayId,
          siteId,
          sn,
          type: 'ems',
          model: 'M2',
        })
      ).code,
    ).toBe(0);
    expect((await api(admin.token, endpoints.device.resetSecret.path, { id: gatewayId })).code).toBe(0);
    expect((await api(admin.token, endpoints.device.delete.path, { id: gatewayId })).code).toBe(0);
    expect((await api(admin.token, endpoints.site.delete.path, { id: siteId })).code).toBe(0);

    const rowOf = async (action: string, targetId: number) => {
      const rows = (await logOf(admin.token, { action })).filter((r) => r.targetId === String(targetId));
      expect(rows, action).toHaveLength(1);
      expect(rows[0], action).toMatchObject({ code: 0, account: 'admin', targetId: String(targetId) });
      return rows[0]!;
    };
    const siteFacts = { id: siteId, companyId: company, code, timezone: 'Asia/Shanghai', touSchemeId: null };
    expect(await rowOf('site.save', siteId)).toMatchObject({
      targetType: 'site',
      before: null,
      after: { ...siteFacts, name: siteName, latitude: null },
    });
    expect(await rowOf('site.update', siteId)).toMatchObject({
      before: { ...siteFacts, name: siteName, latitude: null, longitude: null },
      after: { ...siteFacts, name: renamed, latitude: 31.2, longitude: 121.5 },
    });
    expect(await rowOf('site.delete', siteId)).toMatchObject({
      before: { ...siteFacts, name: renamed },
      after: null,
    });

    const deviceFacts = { id: gatewayId, siteId, companyId: company, sn, type: 'ems', gatewayId: null };
    const saved = await rowOf('device.save', gatewayId);
    expect(saved).toMatchObject({
      targetType: 'device',
      before: null,
      after: { ...deviceFacts, model: 'M1', hasSecret: true },
    });
    expect(await rowOf('device.update', gatewayId)).toMatchObject({
      before: { ...deviceFacts, model: 'M1' },
      after: { ...deviceFacts, model: 'M2' },
    });
    expect(await rowOf('device.resetSecret', gatewayId)).toMatchObject({
      before: { hasSecret: true },
      after: { hasSecret: true },
    });
    expect(await rowOf('device.delete', gatewayId)).toMatchObject({
      before: { ...deviceFacts, model: 'M2' },
      after: null,
    });
    // The log keeps no secret, hashed or not, and no request body of a successful write.
    for (const row of [saved, await rowOf('device.delete', gatewayId)]) {
      expect(JSON.stringify(row)).not.toMatch(/secretHash|secretIssuedAt|userInfo/);
    }
    expect(await everyRowText()).not.toContain(gateway.data.secret.secret);
  });

  it('a reset password is logged as a forced change: the flag is no secret', async () => {
    const company = await addCompanyUnder(db(), { type: 'owner', parentId: platform });
    const staff = await addStaff(db(), { companyId: company });
    const answer = await api(admin.token, endpoints.employee.resetPassword.path, {
      id: staff.employeeId,
      password: digest('flag-pass-1'),
    });
    expect(answer.code).toBe(0);
    const [row] = await logOf(admin.token, { action: 'employee.resetPassword', result: 'success' }).then(
      (rows) => rows.filter((r) => r.targetId === String(staff.employeeId)),
    );
    expect(row?.after).toEqual({ account: staff.account, mustChangePassword: true });
  });

  it('sign-ins are logged, successes and failures, with the account as typed and the password masked', async () => {
    const staff = await addStaff(db(), {
      companyId: await addCompanyUnder(db(), { type: 'owner', parentId: platform }),
    });
    const ip = uniqueIp();
    const login = (account: string, password: string) =>
      call(
        ctx.app,
        endpoints.user.login.path,
        { account, password: digest(password), terminalId: terminal() },
        { ip },
      );
    const unknown = unique('nobody');
    expect((await login(staff.account, staff.password)).code).toBe(0);
    expect((await login(staff.account, 'wrong-pass')).code).toBe(5080);
    expect((await login(unknown, 'whatever')).code).toBe(5080);
    expect((await login(staff.account.toUpperCase(), staff.password)).code).toBe(5080);

    const rows = (await logOf(admin.token, { action: 'user.login' })).filter((r) => r.ip === ip);
    expect(rows.map((r) => [r.account, r.code])).toEqual([
      [staff.account.toUpperCase(), 5080],
      [unknown, 5080],
      [staff.account, 5080],
      [staff.account, 0],
    ]);
    for (const r of rows) {
      expect(r).toMatchObject({ targetType: 'account', employeeId: null });
      expect(r.after).toMatchObject({ password: MASKED_VALUE });
    }
  });

  it('a sign-in of an account of one company is that company’s row: its administrator sees it', async () => {
    const agent = (
      await api(admin.token, endpoints.agent.save.path, { name: unique('agent'), phone: uniquePhone() })
    ).data.id;
    const bossStaff = await addStaff(db(), { companyId: agent, roleIds: [await adminRoleOf(db(), agent)] });
    const boss = await signIn(ctx.app, bossStaff.account, bossStaff.password);
    const staff = await addStaff(db(), { companyId: agent });
    const ip = uniqueIp();
    const login = (password: string) =>
      call(
        ctx.app,
        endpoints.user.login.path,
        { account: staff.account, password: digest(password), terminalId: terminal() },
        { ip },
      );
    expect((await login(staff.password)).code).toBe(0);
    expect((await login('wrong-pass')).code).toBe(5080);
    const seen = await logOf(boss.token, { action: 'user.login', operator: staff.account });
    expect(seen.map((r) => [r.code, r.companyId])).toEqual([
      [5080, agent],
      [0, agent],
    ]);
  });

  describe('log/pageList', () => {
    let from: number;
    let rows: OperationLogRow[];
    beforeAll(async () => {
      from = Date.now();
      // By the auditor: a department saved, a role refused (5036), a role saved.
      const department = await api(auditor.token, endpoints.department.save.path, { name: unique('审计部') });
      expect(department.code).toBe(0);
      const body = roleBody();
      expect((await api(auditor.token, endpoints.role.save.path, body)).code).toBe(0);
      expect(
        (await api(auditor.token, endpoints.role.save.path, { ...roleBody(), name: body.name })).code,
      ).toBe(5036);
      rows = await logOf(admin.token, { operator: auditor.account });
    });

    it('operator matches the account (sign-ins included) or the employee name', async () => {
      expect(rows.map((r) => r.action)).toEqual(['role.save', 'role.save', 'department.save', 'user.login']);
      expect(rows.every((r) => r.account === auditor.account)).toBe(true);
      const changes = rows.slice(0, 3);
      expect(changes.every((r) => r.operatorName === auditor.name && r.companyId === platform)).toBe(true);
      // By name: the changes only (a sign-in has no operator name yet).
      expect((await logOf(admin.token, { operator: auditor.name })).map((r) => r.id)).toEqual(
        changes.map((r) => r.id),
      );
      // A part of the account, in any case.
      expect(
        (await logOf(admin.token, { operator: auditor.account.slice(2, -2).toUpperCase() })).map((r) => r.id),
      ).toEqual(rows.map((r) => r.id));
      expect(await logOf(admin.token, { operator: unique('nobody') })).toEqual([]);
    });

    it('action, targetType and result', async () => {
      const op = { operator: auditor.account };
      expect((await logOf(admin.token, { ...op, action: 'role.save' })).map((r) => r.code)).toEqual([
        5036, 0,
      ]);
      expect((await logOf(admin.token, { ...op, action: 'role' })).length).toBe(0); // exact action
      expect((await logOf(admin.token, { ...op, targetType: 'department' })).map((r) => r.action)).toEqual([
        'department.save',
      ]);
      expect((await logOf(admin.token, { ...op, result: 'success' })).map((r) => r.action)).toEqual([
        'role.save',
        'department.save',
        'user.login',
      ]);
      expect((await logOf(admin.token, { ...op, result: 'failure' })).map((r) => r.code)).toEqual([5036]);
    });

    it('from is inclusive, to exclusive (UTC ms)', async () => {
      const op = { operator: auditor.account };
      const [newest, , oldestChange, signInRow] = rows as [
        OperationLogRow,
        OperationLogRow,
        OperationLogRow,
        OperationLogRow,
      ];
      const ms = (r: OperationLogRow) => Date.parse(r.ts);
      const ids = async (filters: object) =>
        (await logOf(admin.token, { ...op, ...filters })).map((r) => r.id);
      expect(ms(oldestChange)).toBeGreaterThanOrEqual(from - 1000);
      expect(await ids({ from: ms(oldestChange) })).toEqual(rows.slice(0, 3).map((r) => r.id));
      expect(await ids({ from: ms(newest) + 1 })).toEqual([]);
      expect(await ids({ to: ms(oldestChange) })).toEqual([signInRow.id]);
      expect(await ids({ from: ms(oldestChange), to: ms(newest) + 1 })).toEqual(
        rows.slice(0, 3).map((r) => r.id),
      );
      expect(await ids({ from: ms(signInRow), to: ms(oldestChange) })).toEqual([signInRow.id]);
      expect(await ids({ from: from - 3_600_000, to: ms(signInRow) - 60_000 })).toEqual([]);
    });

    it('an administrator of another company sees only its own tree’s rows', async () => {
      // An agent made through the API gets its administrator role.
      const created = await api(admin.token, endpoints.agent.save.path, {
        name: unique('agent'),
        phone: uniquePhone(),
      });
      const agent = created.data.id;
      const boss = await addStaff(db(), {
        companyId: agent,
        roleIds: [await adminRoleOf(db(), agent)],
      });
      const bossSession = await signIn(ctx.app, boss.account, boss.password);
      expect(
        (await api(bossSession.token, endpoints.department.save.path, { name: unique('代理部') })).code,
      ).toBe(0);

      const seen = await logOf(bossSession.token);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((r) => r.companyId === agent)).toBe(true);
      expect(seen.map((r) => r.action)).toContain('department.save');
      expect(await logOf(bossSession.token, { operator: auditor.account })).toEqual([]);
      // Sign-ins belong to the account's company: the boss sees its own, nobody else's.
      expect((await logOf(bossSession.token, { action: 'user.login' })).map((r) => r.account)).toEqual([
        boss.account,
      ]);
      expect(await logOf(bossSession.token, { operator: 'admin' })).toEqual([]);
      // The platform sees the agent's rows.
      expect((await logOf(admin.token, { operator: boss.account })).map((r) => r.action)).toContain(
        'department.save',
      );
    });
  });
});
