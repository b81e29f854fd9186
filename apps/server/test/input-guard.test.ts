/**
 * Bad input answers -100 naming the field, never -101, on every call of the endpoint table
 * (issue 13 item 6), and a refused body nested any depth is still recorded in the operation
 * log (item 7). The fields are read from each call's request schema (its JSON Schema), so a
 * new call or field is covered without a line here:
 *
 * - every integer field, at 2³¹ (one past `int4`) and 2⁵³−1 (the largest JSON integer a
 *   client can send exactly): -100 naming the field when the schema's maximum is exceeded
 *   (ids are bounded to `int4`), and never -101;
 * - every text field (and a map key): U+0000 and an unpaired surrogate: -100 naming it;
 * - list searches with a NUL keyword: -100 (was -101, a PostgreSQL error in the log);
 * - a body 20 000 levels deep: -100, and the refusal is in the operation log.
 * The server's log (level error) stays empty throughout.
 */
import { ALL_ENDPOINTS, type Endpoint, endpoints, INT4_MAX, MAX_BODY_DEPTH } from '@ess/contract';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { maskSecrets, TRUNCATED_VALUE } from '../src/access/audit';
import { operationLog } from '../src/core/db/schema';
import { findBodyProblem } from '../src/core/http/body-guard';
import { call, signIn } from './support/client';
import { createTestApp, engines, type TestContext } from './support/test-app';

type JsonSchema = {
  type?: string | string[];
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/** A field of a request: its path (`'[]'` for an array's element) and JSON Schema. */
interface Field {
  path: string[];
  schema: JsonSchema;
}

const typesOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** Every integer and string field of `schema`, nested objects and array elements included. */
function fieldsOf(schema: JsonSchema, path: string[] = []): Field[] {
  const out: Field[] = [];
  const types = typesOf(schema);
  if (types.includes('integer') || types.includes('string')) out.push({ path, schema });
  for (const [key, inner] of Object.entries(schema.properties ?? {}))
    out.push(...fieldsOf(inner, [...path, key]));
  if (schema.items) out.push(...fieldsOf(schema.items, [...path, '[]']));
  for (const inner of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    out.push(...fieldsOf(inner, path));
  }
  return out;
}

function requestFields(endpoint: Endpoint): Field[] {
  const schema = z.toJSONSchema(endpoint.request, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const seen = new Set<string>();
  return fieldsOf(schema).filter((f) => {
    const key = `${f.path.join('.')}:${typesOf(f.schema).join('|')}`;
    if (f.path.length === 0 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A body holding `value` at `path` and nothing else (`'[]'` → a one-element array). */
function bodyAt(path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  return head === '[]' ? [bodyAt(rest, value)] : { [head!]: bodyAt(rest, value) };
}

/** The field as a -100 names it: `series.0.deviceId`. */
const fieldName = (path: string[]) => path.map((p) => (p === '[]' ? '0' : p)).join('.');

const isInteger = (f: Field) => typesOf(f.schema).includes('integer');
const isString = (f: Field) => typesOf(f.schema).includes('string');

describe('request schemas', () => {
  it('bound every id field to int4 and every integer below 2^53', () => {
    const unbounded: string[] = [];
    for (const endpoint of ALL_ENDPOINTS) {
      for (const f of requestFields(endpoint).filter(isInteger)) {
        const name = f.path.at(-1) === '[]' ? f.path.at(-2)! : f.path.at(-1)!;
        const isId = /^(id|ids|[a-z]+Ids?)$/.test(name);
        const max = f.schema.maximum ?? Number.POSITIVE_INFINITY;
        if ((isId && max !== INT4_MAX) || max >= Number.MAX_SAFE_INTEGER) {
          unbounded.push(`${endpoint.path} ${fieldName(f.path)} ≤ ${max}`);
        }
      }
    }
    expect(unbounded).toEqual([]);
  });
});

describe('body guard', () => {
  it('finds NUL and unpaired surrogates in values and keys, at any depth', () => {
    expect(findBodyProblem({ a: [{ b: 'ok' }] })).toBeNull();
    expect(findBodyProblem({ a: 'emoji 😀 fine' })).toBeNull();
    expect(findBodyProblem({ a: [{ b: 'x\u0000' }] })).toEqual({ kind: 'text', path: ['a', 0, 'b'] });
    expect(findBodyProblem({ a: '\ud800' })).toEqual({ kind: 'text', path: ['a'] });
    expect(findBodyProblem({ a: 'x\udc00' })).toEqual({ kind: 'text', path: ['a'] });
    expect(findBodyProblem({ a: { 'k\u0000': 1 } })).toEqual({ kind: 'text', path: ['a', 'k\u0000'] });
  });

  it('refuses nesting beyond MAX_BODY_DEPTH without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_BODY_DEPTH; i++) deep = [deep];
    expect(findBodyProblem({ a: deep })).toEqual({ kind: 'depth', path: ['a', ...Array(31).fill(0)] });
    expect(findBodyProblem(deep)).toBeNull();
    let deeper: unknown = 1;
    for (let i = 0; i < 200_000; i++) deeper = [deeper];
    expect(findBodyProblem(deeper)?.kind).toBe('depth');
  });

  it('maskSecrets cuts the log copy at MAX_BODY_DEPTH and makes its text storable', () => {
    let deeper: unknown = 1;
    for (let i = 0; i < 20_000; i++) deeper = [deeper];
    let masked = maskSecrets({ name: deeper }) as unknown;
    let levels = 0;
    while (typeof masked === 'object' && masked !== null) {
      masked = Array.isArray(masked) ? masked[0] : (masked as { name: unknown }).name;
      levels += 1;
    }
    expect(levels).toBe(MAX_BODY_DEPTH);
    expect(masked).toBe(TRUNCATED_VALUE);
    expect(maskSecrets({ 'k\u0000': 'a\u0000\ud800', password: 'x' })).toEqual({
      'k\uFFFD': 'a\uFFFD\uFFFD',
      password: '******',
    });
  });
});

describe.each(engines)('bad input on every call on %s', (engine) => {
  let ctx: TestContext;
  const logged: string[] = [];
  let token: string;

  beforeAll(async () => {
    ctx = await createTestApp(
      engine,
      {},
      { logger: { level: 'error', stream: { write: (line: string) => logged.push(line) } } },
    );
    token = (await signIn(ctx.app)).token;
  });
  afterAll(async () => ctx?.close());

  /** A call as the administrator; a fresh session per call (employee/updatePassword is rate-limited per token). */
  async function asAdmin(path: string, body: unknown) {
    const own = path === endpoints.account.updatePassword.path ? (await signIn(ctx.app)).token : token;
    return call(ctx.app, path, body, { token: own, lang: 'en' });
  }

  it('integers beyond a field’s maximum answer -100 naming it (ids: int4); none answers -101', async () => {
    const wrong: string[] = [];
    for (const endpoint of ALL_ENDPOINTS) {
      if (endpoint === endpoints.user.loginOut) continue; // would end the session if accepted
      for (const f of requestFields(endpoint).filter(isInteger)) {
        for (const value of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
          const answer = await asAdmin(endpoint.path, bodyAt(f.path, value));
          const refused = answer.code === -100 && answer.msg.includes(`${fieldName(f.path)}:`);
          const tooBig = value > (f.schema.maximum ?? Number.POSITIVE_INFINITY);
          if (answer.code === -101 || (tooBig && !refused)) {
            wrong.push(`${endpoint.path} ${fieldName(f.path)}=${value} → ${answer.code} ${answer.msg}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 240_000);

  it('NUL or an unpaired surrogate in any text field answers -100 naming it', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const endpoint of ALL_ENDPOINTS) {
      // The firmware upload takes its fields in the query string, not a JSON body: its guard
      // (core/http/endpoint.ts uploadRoute) is not exercised by these JSON calls.
      if (endpoint.upload) continue;
      for (const f of requestFields(endpoint).filter(isString)) {
        for (const text of ['a\u0000b', 'a\ud800b']) {
          const answer = await asAdmin(endpoint.path, bodyAt(f.path, text));
          checked += 1;
          if (answer.code !== -100 || !answer.msg.includes(`${fieldName(f.path)}: contains a character`)) {
            wrong.push(`${endpoint.path} ${fieldName(f.path)} → ${answer.code} ${answer.msg}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(200);
  }, 240_000);

  it('list searches with NUL in the keyword answer -100 in the caller’s language', async () => {
    const lists = ALL_ENDPOINTS.filter((e) => requestFields(e).some((f) => fieldName(f.path) === 'keyword'));
    expect(lists.length).toBeGreaterThanOrEqual(11);
    for (const endpoint of lists) {
      const answer = await call(ctx.app, endpoint.path, { keyword: 'ab\u0000' }, { token });
      expect(answer, endpoint.path).toMatchObject({ code: -100, data: null });
      expect(answer.msg).toBe('请求参数错误：keyword: 含有不允许的字符（NUL 或不成对的代理项）');
    }
    // A key of a map the schema would ignore is refused too (it is logged as typed).
    const key = await call(ctx.app, endpoints.site.pageList.path, { 'x\u0000': 1 }, { token, lang: 'en' });
    expect(key.code).toBe(-100);
  });

  it('a body 20 000 levels deep answers -100 and is in the operation log', async () => {
    const payload = `{"code":"deep-1","name":${'['.repeat(20_000)}1${']'.repeat(20_000)}}`;
    const response = await ctx.app.inject({
      method: 'POST',
      url: endpoints.site.save.path,
      payload,
      headers: { 'content-type': 'application/json', 'x-token': token, 'accept-language': 'en' },
    });
    const answer = response.json();
    expect(answer.code).toBe(-100);
    expect(answer.msg).toContain(`is nested deeper than ${MAX_BODY_DEPTH} levels`);
    const [row] = await ctx.database.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, 'site.save'), eq(operationLog.code, -100)))
      .orderBy(desc(operationLog.id))
      .limit(1);
    expect(row?.after).toMatchObject({ code: 'deep-1' });
    expect(JSON.stringify(row?.after)).toContain(TRUNCATED_VALUE);
  });

  it('logged no error for any of it', () => {
    expect(logged).toEqual([]);
  });
});
