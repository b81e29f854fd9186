/**
 * `user/login` (spec §5, §7, §8): success, trimmed account, 5080 for unknown account and wrong
 * password alike, 5052 disabled employee, 6001 disabled companies, -100 for bad bodies (field
 * named, zh by default, en on request), and no internals in any message.
 */
import { ErrorCode, endpoints, errorMessage, loginResponse } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../src/access/tokens';
import { loginTicket, userAccount } from '../src/core/db/schema';
import { call, digest } from './support/client';
import {
  addAccount,
  addCompany,
  addEmployee,
  addStaff,
  conforms,
  looksLikeInternals,
  terminal,
  unique,
  uniqueIp,
} from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('user/login on %s', (engine) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp(engine);
  });
  afterAll(async () => ctx?.close());

  const login = (body: unknown, options: { lang?: 'zh' | 'en'; ip?: string } = {}) =>
    call(ctx.app, endpoints.user.login.path, body, { ip: uniqueIp(), ...options });

  it('answers userId, the companies with names and a login ticket stored for the terminal', async () => {
    const terminalId = terminal();
    const answer = await login({ account: 'admin', password: digest('admin123'), terminalId });
    expect(answer.code).toBe(0);
    expect(answer.msg).toBe('操作成功');
    const data = conforms(loginResponse, answer.data);
    expect(data.companyList).toEqual([{ id: expect.any(Number), name: '平台运营中心' }]);
    expect(data.loginTicket).toMatch(/^lt_[A-Za-z0-9_-]{43}$/);
    expect(data.loginTicketTtlS).toBe(120);
    const [ticket] = await ctx.database.db
      .select()
      .from(loginTicket)
      .where(eq(loginTicket.ticketHash, tokenDigest(data.loginTicket)));
    expect(ticket).toMatchObject({ userId: data.userId, terminalId });
    // Only the digest is stored.
    expect(JSON.stringify(ticket)).not.toContain(data.loginTicket);
  });

  it('trims the account', async () => {
    const answer = await login({
      account: '  admin\t',
      password: digest('admin123'),
      terminalId: terminal(),
    });
    expect(answer.code).toBe(0);
  });

  it('answers 5080 with the same text for an unknown account and a wrong password', async () => {
    const unknown = await login({
      account: unique('nobody'),
      password: digest('admin123'),
      terminalId: terminal(),
    });
    const wrong = await login({ account: 'admin', password: digest('admin124'), terminalId: terminal() });
    expect(unknown).toEqual({ code: 5080, msg: '账号或密码错误', data: null });
    expect(wrong).toEqual(unknown);
    const wrongEn = await login(
      { account: 'admin', password: digest('nope!!'), terminalId: terminal() },
      { lang: 'en' },
    );
    expect(wrongEn).toEqual({ code: 5080, msg: 'Incorrect account or password', data: null });
  });

  it('answers 5080 for an account that is no company’s employee', async () => {
    const account = unique('orphan');
    await addAccount(ctx.database.db, account, 'secret1');
    const answer = await login({ account, password: digest('secret1'), terminalId: terminal() });
    expect(answer.code).toBe(ErrorCode.BAD_CREDENTIALS);
  });

  it('answers 5080, not a server failure, for an account whose stored hash is damaged', async () => {
    const db = ctx.database.db;
    const staff = await addStaff(db);
    await db
      .update(userAccount)
      .set({ passwordHash: 'scrypt$abc$8$1$c2FsdA==$a2V5' })
      .where(eq(userAccount.id, staff.userId));
    const answer = await login({
      account: staff.account,
      password: digest(staff.password),
      terminalId: terminal(),
    });
    expect(answer.code).toBe(ErrorCode.BAD_CREDENTIALS);
  });

  it('answers 5052 for a disabled employee only after the right password', async () => {
    const staff = await addStaff(ctx.database.db, { status: 'disabled' });
    const right = await login({
      account: staff.account,
      password: digest(staff.password),
      terminalId: terminal(),
    });
    expect(right).toEqual({ code: 5052, msg: '账号已禁用，无法登录', data: null });
    const wrong = await login({ account: staff.account, password: digest('other1'), terminalId: terminal() });
    expect(wrong.code).toBe(5080);
    const en = await login(
      { account: staff.account, password: digest(staff.password), terminalId: terminal() },
      { lang: 'en' },
    );
    expect(en.msg).toBe('Account disabled, cannot log in');
  });

  it('answers 6001 when every company of the account is disabled', async () => {
    const db = ctx.database.db;
    const off1 = await addCompany(db, { status: 'disabled' });
    const off2 = await addCompany(db, { status: 'disabled' });
    const staff = await addStaff(db, { companyId: off1.id });
    await addEmployee(db, { companyId: off2.id, userId: staff.userId });
    const answer = await login({
      account: staff.account,
      password: digest(staff.password),
      terminalId: terminal(),
    });
    expect(answer).toEqual({ code: 6001, msg: '公司已禁用', data: null });
  });

  it('lists only the usable companies when some are disabled', async () => {
    const db = ctx.database.db;
    const off = await addCompany(db, { status: 'disabled' });
    const on = await addCompany(db);
    const other = await addCompany(db);
    const staff = await addStaff(db, { companyId: off.id });
    await addEmployee(db, { companyId: on.id, userId: staff.userId });
    await addEmployee(db, { companyId: other.id, userId: staff.userId, status: 'disabled' });
    const answer = await login({
      account: staff.account,
      password: digest(staff.password),
      terminalId: terminal(),
    });
    expect(answer.code).toBe(0);
    expect(answer.data.companyList).toEqual([{ id: on.id, name: on.name }]);
  });

  const good = () => ({ account: 'admin', password: digest('admin123'), terminalId: terminal() });
  const badBodies: { name: string; body: unknown; field: string }[] = [
    { name: 'missing account', body: { ...good(), account: undefined }, field: 'account' },
    { name: 'blank account', body: { ...good(), account: '   ' }, field: 'account' },
    { name: 'account too long', body: { ...good(), account: 'a'.repeat(65) }, field: 'account' },
    { name: 'missing password', body: { ...good(), password: undefined }, field: 'password' },
    { name: 'plain-text password', body: { ...good(), password: 'admin123' }, field: 'password' },
    {
      name: 'upper-case hex password',
      body: { ...good(), password: digest('x').toUpperCase() },
      field: 'password',
    },
    { name: 'short digest', body: { ...good(), password: digest('x').slice(1) }, field: 'password' },
    { name: 'missing terminalId', body: { ...good(), terminalId: undefined }, field: 'terminalId' },
    { name: 'short terminalId', body: { ...good(), terminalId: 'abc1234' }, field: 'terminalId' },
    { name: 'terminalId with a space', body: { ...good(), terminalId: 'abc 12345' }, field: 'terminalId' },
    { name: 'numeric account', body: { ...good(), account: 12345 }, field: 'account' },
    { name: 'password as array', body: { ...good(), password: [digest('x')] }, field: 'password' },
    {
      name: 'terminalId as object',
      body: { ...good(), terminalId: { id: 'abcdefghij' } },
      field: 'terminalId',
    },
    { name: 'array body', body: [good()], field: 'body' },
  ];

  it.each(badBodies)('answers -100 naming the field for $name (zh and en)', async ({ body, field }) => {
    const zh = await login(body);
    expect(zh.code).toBe(-100);
    expect(zh.data).toBeNull();
    expect(zh.msg.startsWith('请求参数错误：')).toBe(true);
    expect(zh.msg).toContain(`${field}:`);
    expect(looksLikeInternals(zh.msg)).toBe(false);
    const en = await login(body, { lang: 'en' });
    expect(en.code).toBe(-100);
    expect(en.msg.startsWith('Request parameter error: ')).toBe(true);
    expect(en.msg).toContain(`${field}:`);
    expect(looksLikeInternals(en.msg)).toBe(false);
  });

  it('names every bad field of one body', async () => {
    const answer = await login({});
    expect(answer.code).toBe(-100);
    for (const field of ['account:', 'password:', 'terminalId:']) expect(answer.msg).toContain(field);
  });

  it('says in Chinese which type was received', async () => {
    const answer = await login({ ...good(), account: 12345 });
    expect(answer.msg).toContain('account: 无效输入：期望 string，实际接收 数字');
    const nullBody = await ctx.app.inject({
      method: 'POST',
      url: endpoints.user.login.path,
      payload: 'null',
      headers: { 'content-type': 'application/json' },
    });
    expect(nullBody.json().msg).toContain('body: 无效输入：期望 object，实际接收 空值(null)');
  });

  const rawCases = [
    { name: 'invalid JSON', payload: '{"account": "admin",', contentType: 'application/json' },
    { name: 'empty body', payload: '', contentType: 'application/json' },
    { name: 'no body at all', payload: undefined, contentType: undefined },
    {
      name: 'a form instead of JSON',
      payload: 'account=admin',
      contentType: 'application/x-www-form-urlencoded',
    },
  ];

  it.each(rawCases)('answers -100 for $name, without internals', async ({ payload, contentType }) => {
    for (const lang of ['zh', 'en'] as const) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: endpoints.user.login.path,
        ...(payload !== undefined ? { payload } : {}),
        headers: {
          ...(contentType ? { 'content-type': contentType } : {}),
          'accept-language': lang === 'en' ? 'en-US,en;q=0.9' : 'zh-CN',
        },
      });
      expect(response.statusCode).toBe(200);
      const answer = response.json();
      expect(answer.code).toBe(-100);
      expect(answer.data).toBeNull();
      expect(answer.msg.startsWith(lang === 'zh' ? '请求参数错误：' : 'Request parameter error: ')).toBe(
        true,
      );
      expect(looksLikeInternals(answer.msg)).toBe(false);
    }
  });

  it('answers -100 for a body over 1 MiB', async () => {
    const answer = await login({ ...good(), account: 'a'.repeat(1024 * 1024 + 10) });
    expect(answer.code).toBe(-100);
    expect(looksLikeInternals(answer.msg)).toBe(false);
  });

  // Last: breaks the database on purpose, then repairs it.
  it('answers -101 with the catalogue text only when the database fails', async () => {
    const db = ctx.database.db;
    await db.execute(sql`ALTER TABLE login_ticket RENAME TO login_ticket_gone`);
    try {
      const zh = await login(good());
      expect(zh).toEqual({ code: -101, msg: errorMessage(-101, 'zh'), data: null });
      const en = await login(good(), { lang: 'en' });
      expect(en).toEqual({
        code: -101,
        msg: 'System exception, please contact the administrator',
        data: null,
      });
    } finally {
      await db.execute(sql`ALTER TABLE login_ticket_gone RENAME TO login_ticket`);
    }
    expect((await login(good())).code).toBe(0);
  });
});
