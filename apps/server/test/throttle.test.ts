/**
 * Sign-in throttling: per account and per client address (LOGIN_MAX_FAILURES_PER_ACCOUNT = 3,
 * LOGIN_MAX_FAILURES_PER_ADDRESS = 5 here), 5082 naming the minutes in zh and en, reset of the
 * account counter on success, and the end of a lock.
 */
import { endpoints, errorMessage } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginThrottle } from '../src/core/db/schema';
import { call, digest } from './support/client';
import { addStaff, terminal, unique, uniqueIp } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('sign-in throttling on %s', (engine) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp(engine, {
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '5',
      LOGIN_THROTTLE_WINDOW_S: '900',
    });
  });
  afterAll(async () => ctx?.close());

  const attempt = (account: string, password: string, ip: string, lang: 'zh' | 'en' = 'zh') =>
    call(
      ctx.app,
      endpoints.user.login.path,
      { account, password: digest(password), terminalId: terminal() },
      { ip, lang },
    );

  const throttleRow = async (key: string) =>
    (await ctx.database.db.select().from(loginThrottle).where(eq(loginThrottle.key, key)))[0];

  it('locks an account after 3 failures: 5082 even with the right password, from any address', async () => {
    const staff = await addStaff(ctx.database.db);
    const ip = uniqueIp();
    for (let i = 0; i < 2; i++) expect((await attempt(staff.account, 'wrong-1', ip)).code).toBe(5080);
    expect((await throttleRow(`acct:${staff.account}`))?.lockedUntil).toBeNull();
    expect((await attempt(staff.account, 'wrong-1', ip)).code).toBe(5080);

    const row = await throttleRow(`acct:${staff.account}`);
    expect(row?.failures).toBe(3);
    expect(row?.lockedUntil?.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);

    const zh = await attempt(staff.account, staff.password, ip);
    expect(zh).toEqual({ code: 5082, msg: errorMessage(5082, 'zh', { minutes: 15 }), data: null });
    expect(zh.msg).toBe('登录失败次数过多，请15分钟后再试');
    const en = await attempt(staff.account, staff.password, uniqueIp(), 'en');
    expect(en).toEqual({
      code: 5082,
      msg: 'Too many failed sign-in attempts, try again in 15 minute(s)',
      data: null,
    });
  });

  it('locks an address after 5 failures over several accounts; other addresses still sign in', async () => {
    const staff = await addStaff(ctx.database.db);
    const ip = uniqueIp();
    for (let i = 0; i < 5; i++) expect((await attempt(unique('ghost'), 'wrong-1', ip)).code).toBe(5080);
    expect((await throttleRow(`ip:${ip}`))?.failures).toBe(5);

    const blocked = await attempt(staff.account, staff.password, ip);
    expect(blocked.code).toBe(5082);
    expect(blocked.msg).toMatch(/请1[45]分钟后再试$/);
    expect((await attempt('admin', 'admin123', ip)).code).toBe(5082);

    expect((await attempt(staff.account, staff.password, uniqueIp())).code).toBe(0);
  });

  it('a forged X-Forwarded-For does not dodge the address limit (TRUST_PROXY is off)', async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 5; i++) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: endpoints.user.login.path,
        remoteAddress: ip,
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        payload: { account: unique('ghost'), password: digest('wrong-1'), terminalId: terminal() },
      });
      expect(response.json().code).toBe(5080);
    }
    expect((await attempt('admin', 'admin123', ip)).code).toBe(5082);
  });

  it('a successful sign-in resets the account counter', async () => {
    const staff = await addStaff(ctx.database.db);
    const ip = uniqueIp();
    for (let i = 0; i < 2; i++) expect((await attempt(staff.account, 'wrong-1', ip)).code).toBe(5080);
    expect((await attempt(staff.account, staff.password, ip)).code).toBe(0);
    expect(await throttleRow(`acct:${staff.account}`)).toBeUndefined();
    // Two more failures: 2 in the new count, not 4, so the right password still works.
    const ip2 = uniqueIp();
    for (let i = 0; i < 2; i++) expect((await attempt(staff.account, 'wrong-1', ip2)).code).toBe(5080);
    expect((await attempt(staff.account, staff.password, ip2)).code).toBe(0);
  });

  it('counts failures of an account whatever the letter case of the name', async () => {
    const staff = await addStaff(ctx.database.db);
    const ip = uniqueIp();
    await attempt(staff.account.toUpperCase(), 'wrong-1', ip);
    await attempt(staff.account, 'wrong-1', ip);
    await attempt(` ${staff.account.toUpperCase()} `, 'wrong-1', ip);
    expect((await attempt(staff.account, staff.password, ip)).code).toBe(5082);
  });

  it('a lock ends when its time has passed, and counting starts again', async () => {
    const staff = await addStaff(ctx.database.db);
    const ip = uniqueIp();
    for (let i = 0; i < 3; i++) await attempt(staff.account, 'wrong-1', ip);
    expect((await attempt(staff.account, staff.password, ip)).code).toBe(5082);

    await ctx.database.db
      .update(loginThrottle)
      .set({
        lockedUntil: sql`now() - interval '1 second'`,
        windowStartedAt: sql`now() - interval '901 seconds'`,
      })
      .where(eq(loginThrottle.key, `acct:${staff.account}`));
    const ip2 = uniqueIp();
    expect((await attempt(staff.account, 'wrong-1', ip2)).code).toBe(5080);
    expect((await throttleRow(`acct:${staff.account}`))?.failures).toBe(1);
    expect((await attempt(staff.account, staff.password, ip2)).code).toBe(0);
  });
});
