/**
 * The request log (core/http/request-log.ts): ordinary calls are logged at debug only; failed
 * sign-ins and refused rights at warn; a successful sign-in at info; slow answers at warn.
 * Read from the server's own log lines, as an operator tailing the log would.
 */
import { ErrorCode, endpoints } from '@ess/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, digest, signIn } from './support/client';
import { createTestApp, type TestContext } from './support/test-app';

interface Line {
  level: number;
  msg: string;
  url?: string;
  code?: number;
  statusCode?: number;
  responseTimeMs?: number;
}

const INFO = 30;
const WARN = 40;
const DEBUG = 20;

describe('request log', () => {
  let ctx: TestContext;
  let slow: TestContext;
  const lines: Line[] = [];
  const slowLines: Line[] = [];
  beforeAll(async () => {
    [ctx, slow] = await Promise.all([
      createTestApp(
        'pglite',
        { LOG_SLOW_REQUEST_MS: '1000000' },
        {
          devices: false,
          scheduler: false,
          demo: false,
          logger: { level: 'debug', stream: { write: (l: string) => void lines.push(JSON.parse(l)) } },
        },
      ),
      // Every request counts as slow (1 ms) on the second server.
      createTestApp(
        'pglite',
        { LOG_SLOW_REQUEST_MS: '1' },
        {
          devices: false,
          scheduler: false,
          demo: false,
          logger: { level: 'info', stream: { write: (l: string) => void slowLines.push(JSON.parse(l)) } },
        },
      ),
    ]);
  });
  afterAll(async () => {
    await ctx?.close();
    await slow?.close();
  });

  const linesOf = (all: Line[], url: string) => all.filter((l) => l.url === url);

  it('logs an ordinary call at debug only, with its time', async () => {
    const who = await signIn(ctx.app);
    const answer = await call(ctx.app, endpoints.user.getPermission.path, {}, { token: who.token });
    expect(answer.code).toBe(0);
    const logged = linesOf(lines, endpoints.user.getPermission.path);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: DEBUG, msg: 'request completed', statusCode: 200 });
    expect(logged[0]!.responseTimeMs).toBeGreaterThanOrEqual(0);
  });

  it('logs a successful sign-in at info', async () => {
    const before = linesOf(lines, endpoints.user.login.path).length;
    await signIn(ctx.app);
    const logged = linesOf(lines, endpoints.user.login.path).slice(before);
    expect(logged).toEqual([expect.objectContaining({ level: INFO, msg: 'sign-in' })]);
  });

  it('logs refused credentials and a refused token as security events at warn, with the code', async () => {
    const refused = await call(ctx.app, endpoints.user.login.path, {
      account: 'admin',
      password: digest('wrong-password'),
      terminalId: 'term-log-1',
    });
    expect(refused.code).toBe(ErrorCode.BAD_CREDENTIALS);
    expect(linesOf(lines, endpoints.user.login.path).at(-1)).toMatchObject({
      level: WARN,
      msg: 'security event',
      code: ErrorCode.BAD_CREDENTIALS,
    });
    const badToken = await call(ctx.app, endpoints.user.getPermission.path, {}, { token: 'not-a-token' });
    expect(badToken.code).not.toBe(0);
    expect(linesOf(lines, endpoints.user.getPermission.path).at(-1)).toMatchObject({
      level: WARN,
      msg: 'security event',
      code: badToken.code,
    });
  });

  it('logs bad input at debug (the client is told; nobody needs to read it)', async () => {
    const answer = await call(ctx.app, endpoints.user.login.path, { account: 7 });
    expect(answer.code).toBe(ErrorCode.PARAM_ERROR);
    expect(linesOf(lines, endpoints.user.login.path).at(-1)).toMatchObject({
      level: DEBUG,
      code: ErrorCode.PARAM_ERROR,
    });
  });

  it('logs an answer slower than LOG_SLOW_REQUEST_MS at warn, and nothing of ordinary calls at info', async () => {
    const who = await signIn(slow.app);
    await call(slow.app, endpoints.user.getPermission.path, {}, { token: who.token });
    expect(linesOf(slowLines, endpoints.user.getPermission.path)).toEqual([
      expect.objectContaining({ level: WARN, msg: 'slow request' }),
    ]);
    const infoOnly = lines.filter((l) => l.level === INFO && l.url === endpoints.user.getPermission.path);
    expect(infoOnly).toEqual([]);
  });
});
