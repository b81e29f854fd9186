/**
 * Test support: calls as the console makes them (POST JSON, X-Token, Accept-Language), and a
 * sign-in helper that runs the whole handshake.
 */
import type { FastifyInstance } from 'fastify';
import { browserPasswordDigest } from '../../src/access/password';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and checked by the tests
export interface Envelope<T = any> {
  code: number;
  msg: string;
  data: T;
}

export interface CallOptions {
  token?: string;
  lang?: 'zh' | 'en';
  ip?: string;
}

/** POSTs `body` to `path`; answers the parsed envelope (and asserts HTTP 200). */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and checked by the tests
export async function call<T = any>(
  app: FastifyInstance,
  path: string,
  body: unknown,
  options: CallOptions = {},
): Promise<Envelope<T>> {
  const response = await app.inject({
    method: 'POST',
    url: path,
    payload: body as object,
    remoteAddress: options.ip ?? '127.0.0.1',
    headers: {
      'content-type': 'application/json',
      'accept-language': options.lang === 'en' ? 'en-US,en;q=0.9' : 'zh-CN,zh;q=0.9',
      ...(options.token ? { 'x-token': options.token } : {}),
    },
  });
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${response.body}`);
  return response.json() as Envelope<T>;
}

export const digest = browserPasswordDigest;

export interface SignedIn {
  userId: number;
  companyId: number;
  terminalId: string;
  token: string;
  refreshToken: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and checked by the tests
  info: any;
}

/** Runs login → getUserInfo with a ticket; throws with the envelope when a step fails. */
export async function signIn(
  app: FastifyInstance,
  account = 'admin',
  password = 'admin123',
  terminalId = `t-${Math.random().toString(36).slice(2, 12)}`,
  options: CallOptions = {},
): Promise<SignedIn> {
  const login = await call(
    app,
    '/api-bms/user/login',
    { account, password: digest(password), terminalId },
    options,
  );
  if (login.code !== 0)
    throw Object.assign(new Error(`login ${login.code} ${login.msg}`), { envelope: login });
  const companyId = login.data.companyList[0].id;
  const info = await call(
    app,
    '/api-bms/user/getUserInfo',
    { userId: login.data.userId, companyId, terminalId, loginTicket: login.data.loginTicket },
    options,
  );
  if (info.code !== 0)
    throw Object.assign(new Error(`userInfo ${info.code} ${info.msg}`), { envelope: info });
  return {
    userId: login.data.userId,
    companyId,
    terminalId,
    token: info.data.token,
    refreshToken: info.data.refreshToken,
    info: info.data,
  };
}
