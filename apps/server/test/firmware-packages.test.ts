/**
 * Firmware packages through the API (`/api-bms/firmware/*`, issue 16 item 1) and the devices'
 * download (`GET /ota/<token>`), observed as the console and a device observe them:
 *  - upload streams the body (application/octet-stream, fields in the query): the server's
 *    SHA-256 and size are answered and shown; states unused → published → disabled → published,
 *    a change from the wrong state is 7035 naming the state in the caller's language;
 *  - a duplicate version of the same type (7032), a wrong expected checksum (7033), an empty body
 *    (7034), a Content-Length past 256 MiB (7031) and a bad field (-100 naming it) store nothing —
 *    no package row, no chunk;
 *  - a missing package is 7030 on every call; one named by an upgrade batch cannot be deleted
 *    (7036); an upgrade with a package that is not published is 3061;
 *  - tenancy: another company neither sees nor changes a company's package; the platform's
 *    packages are offered to everyone but changed only by the platform;
 *  - download: whole file, ranges across chunk boundaries, resume from an offset, a suffix,
 *    416 past the end, If-Range; 403 for another device, 410 after expiry, 404 for a token that
 *    does not exist.
 * firmware-upload-stream.test.ts covers the 100 MiB upload's memory, a body cut short on a real
 * socket and the streaming size limit.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  ErrorCode,
  endpoints,
  errorMessage,
  firmwarePackageSchema,
  firmwareUploadQuery,
} from '@ess/contract';
import { count, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { company, device, firmwareChunk, firmwarePackage, operationLog, site } from '../src/core/db/schema';
import { FIRMWARE_CHUNK_BYTES, parseRange } from '../src/devices/firmware-store';
import { call, type Envelope, signIn } from './support/client';
import { addCompany, addRole, addStaff, conforms, unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

const UPLOAD = endpoints.firmware.upload.path;
/** Menu rows of migration 0021. */
const MENU = { firmware: 230, upload: 231, publish: 232, remove: 233, records: 234, create: 235 } as const;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface UploadOptions {
  token: string;
  lang?: 'zh' | 'en';
  body: Buffer;
  version?: string;
  deviceType?: 'ems' | 'pcs' | 'bms';
  sha256?: string;
  query?: string;
  headers?: Record<string, string>;
}

async function upload(app: FastifyInstance, o: UploadOptions) {
  const query =
    o.query ??
    firmwareUploadQuery({
      name: 'EMS 主控固件',
      version: o.version ?? '2.4.1',
      deviceType: o.deviceType ?? 'ems',
      models: ['EMS-100'],
      releaseNoteZh: '修复并网切换问题',
      releaseNoteEn: 'Fixes grid switch-over',
      fileName: 'ems.bin',
      ...(o.sha256 ? { sha256: o.sha256 } : {}),
    });
  const response = await app.inject({
    method: 'POST',
    url: `${UPLOAD}?${query}`,
    // A stream, as a browser's body arrives: the server must not need it whole.
    payload: Readable.from([o.body.subarray(0, 1000), o.body.subarray(1000)]),
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(o.body.length),
      'x-token': o.token,
      'accept-language': o.lang === 'en' ? 'en-US' : 'zh-CN',
      ...o.headers,
    },
  });
  expect(response.statusCode).toBe(200);
  return response.json() as Envelope;
}

describe.each(engines)('firmware packages (%s)', (engine) => {
  let ctx: TestContext;
  let app: FastifyInstance;
  let admin: string;
  let file: Buffer;
  let packageId: number;
  let deviceId: number;
  let deviceSn: string;

  const stored = async () => {
    const db = ctx.database.db;
    const [p] = await db.select({ n: count() }).from(firmwarePackage);
    const [c] = await db.select({ n: count() }).from(firmwareChunk);
    return { packages: Number(p!.n), chunks: Number(c!.n) };
  };

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    app = ctx.app;
    admin = (await signIn(app)).token;
    // 2.5 chunks: ranges cross chunk boundaries.
    file = randomBytes(FIRMWARE_CHUNK_BYTES * 2 + FIRMWARE_CHUNK_BYTES / 2 + 17);
    const db = ctx.database.db;
    const [platform] = await db.select().from(company).where(eq(company.type, 'platform'));
    const [s] = await db
      .insert(site)
      .values({ companyId: platform!.id, code: unique('FW').slice(-30), name: 'Firmware site' })
      .returning();
    deviceSn = unique('EMS-FW').slice(-30);
    const [d] = await db
      .insert(device)
      .values({ companyId: platform!.id, siteId: s!.id, sn: deviceSn, type: 'ems', model: 'EMS-100' })
      .returning();
    deviceId = d!.id;
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('stores an upload with the SHA-256 and size the server computed, as unused', async () => {
    const answer = await upload(app, { token: admin, body: file, sha256: sha(file).toUpperCase() });
    expect(answer.code, answer.msg).toBe(0);
    const pkg = conforms(firmwarePackageSchema, answer.data);
    expect(pkg).toMatchObject({
      name: 'EMS 主控固件',
      version: '2.4.1',
      deviceType: 'ems',
      models: ['EMS-100'],
      releaseNoteZh: '修复并网切换问题',
      releaseNoteEn: 'Fixes grid switch-over',
      fileName: 'ems.bin',
      sizeBytes: file.length,
      sha256: sha(file),
      state: 'unused',
      stateChangedAt: null,
      batchCount: 0,
    });
    packageId = pkg.id;
    expect(await stored()).toEqual({ packages: 1, chunks: 3 });
    const list = await call(app, endpoints.firmware.pageList.path, {}, { token: admin });
    expect(list.data.total).toBe(1);
    expect(list.data.list[0]).toEqual(pkg);
    const [log] = await ctx.database.db
      .select()
      .from(operationLog)
      .where(eq(operationLog.action, 'firmware.upload'));
    expect(log).toMatchObject({ code: 0, targetType: 'firmware_package', targetId: String(pkg.id) });
    expect(log!.after).toMatchObject({ version: '2.4.1', sha256: sha(file), sizeBytes: file.length });
  });

  it('moves unused → published → disabled → published, and refuses the wrong state with 7035', async () => {
    const publish = endpoints.firmware.publish.path;
    const disable = endpoints.firmware.disable.path;
    expect((await call(app, disable, { id: packageId }, { token: admin })).code).toBe(
      ErrorCode.FIRMWARE_STATE_INVALID,
    );
    const published = await call(app, publish, { id: packageId }, { token: admin });
    expect(published.data.state).toBe('published');
    expect(published.data.stateChangedAt).not.toBeNull();
    const again = await call(app, publish, { id: packageId }, { token: admin });
    expect(again.code).toBe(ErrorCode.FIRMWARE_STATE_INVALID);
    expect(again.msg).toBe(errorMessage(ErrorCode.FIRMWARE_STATE_INVALID, 'zh', { state: '已发布' }));
    const againEn = await call(app, publish, { id: packageId }, { token: admin, lang: 'en' });
    expect(againEn.msg).toBe('The package is Published: this is not allowed');
    expect((await call(app, disable, { id: packageId }, { token: admin })).data.state).toBe('disabled');
    expect((await call(app, disable, { id: packageId }, { token: admin })).code).toBe(
      ErrorCode.FIRMWARE_STATE_INVALID,
    );
    expect((await call(app, publish, { id: packageId }, { token: admin })).data.state).toBe('published');
  });

  it('refuses a duplicate version of the same type (7032) and stores nothing of it', async () => {
    const before = await stored();
    const dup = await upload(app, { token: admin, body: randomBytes(5000), lang: 'en' });
    expect(dup.code).toBe(ErrorCode.FIRMWARE_VERSION_EXISTS);
    expect(dup.msg).toBe('This device type already has a firmware package of version 2.4.1');
    expect(await stored()).toEqual(before);
    // The same version for another type is another package.
    const pcs = await upload(app, { token: admin, body: randomBytes(5000), deviceType: 'pcs' });
    expect(pcs.code, pcs.msg).toBe(0);
    expect(await stored()).toEqual({ packages: before.packages + 1, chunks: before.chunks + 1 });
    expect(
      (await call(app, endpoints.firmware.delete.path, { id: pcs.data.id }, { token: admin })).code,
    ).toBe(0);
    expect(await stored()).toEqual(before);
  });

  it('refuses a wrong expected checksum (7033), an empty body (7034), a body past 256 MiB (7031), a bad field (-100): nothing stored', async () => {
    const before = await stored();
    const body = randomBytes(FIRMWARE_CHUNK_BYTES + 10);
    const wrong = await upload(app, { token: admin, body, version: '2.5.0', sha256: sha(randomBytes(8)) });
    expect(wrong.code).toBe(ErrorCode.FIRMWARE_CHECKSUM_MISMATCH);
    expect(wrong.msg).toBe(errorMessage(ErrorCode.FIRMWARE_CHECKSUM_MISMATCH, 'zh'));
    const empty = await upload(app, { token: admin, body: Buffer.alloc(0), version: '2.5.0' });
    expect(empty.code).toBe(ErrorCode.FIRMWARE_UPLOAD_INCOMPLETE);
    const huge = await upload(app, {
      token: admin,
      body: randomBytes(100),
      version: '2.5.0',
      headers: { 'content-length': String(300 * 1024 * 1024) },
      lang: 'en',
    });
    expect(huge.code).toBe(ErrorCode.FIRMWARE_TOO_LARGE);
    expect(huge.msg).toBe('A firmware package cannot exceed 256 MiB');
    const bad = await upload(app, {
      token: admin,
      body,
      query: firmwareUploadQuery({ name: 'x', version: '2.5 beta', deviceType: 'ems', fileName: 'a.bin' }),
    });
    expect(bad.code).toBe(ErrorCode.PARAM_ERROR);
    expect(bad.msg).toContain('version');
    const nul = await upload(app, {
      token: admin,
      body,
      query: 'name=a%00b&version=1.0&deviceType=ems&fileName=a',
    });
    expect(nul.code).toBe(ErrorCode.PARAM_ERROR);
    expect(nul.msg).toContain('name');
    expect(await stored()).toEqual(before);
    // A JSON body is not an upload.
    const json = await call(app, UPLOAD, {}, { token: admin });
    expect(json.code).toBe(ErrorCode.PARAM_ERROR);
  });

  it('answers 7030 for a package that does not exist, on every package call', async () => {
    for (const path of ['detail', 'publish', 'disable', 'delete'] as const) {
      const answer = await call(app, endpoints.firmware[path].path, { id: 999_999 }, { token: admin });
      expect(answer.code, path).toBe(ErrorCode.INSTALL_PACKAGE_NOT_FOUND);
      expect(answer.msg).toBe('安装包不存在');
    }
  });

  it('answers 3061 when an upgrade names a package that is missing or not published', async () => {
    const unused = await upload(app, { token: admin, body: randomBytes(300), version: '3.0.0' });
    expect(unused.code, unused.msg).toBe(0);
    for (const id of [unused.data.id, 999_999]) {
      const answer = await call(app, endpoints.upgrade.candidates.path, { packageId: id }, { token: admin });
      expect(answer.code).toBe(ErrorCode.NO_UPGRADE_FIRMWARE);
      expect(answer.msg).toBe('没有升级固件信息');
    }
    await call(app, endpoints.firmware.delete.path, { id: unused.data.id }, { token: admin });
  });

  it('keeps a package that an upgrade batch names (7036)', async () => {
    const db = ctx.database.db;
    const [platform] = await db.select().from(company).where(eq(company.type, 'platform'));
    await db.execute(sql`
      INSERT INTO upgrade_batch (batch_no, company_id, package_id, operator_name, first_wave_size, wave_size,
        wave_count, failure_rate_threshold_pct, max_concurrent_downloads, phase_timeouts_s, deadline_at)
      VALUES (${unique('UP')}, ${platform!.id}, ${packageId}, 'admin', 1, 1, 1, 20, 1, '{}'::jsonb, now() + interval '1 day')`);
    const answer = await call(
      app,
      endpoints.firmware.delete.path,
      { id: packageId },
      { token: admin, lang: 'en' },
    );
    expect(answer.code).toBe(ErrorCode.FIRMWARE_IN_USE);
    expect(answer.msg).toBe('An upgrade batch uses this package, so it cannot be deleted');
    const detail = await call(app, endpoints.firmware.detail.path, { id: packageId }, { token: admin });
    expect(detail.data.batchCount).toBe(1);
  });

  it('shows a company its own packages and the platform’s; only the owner changes them', async () => {
    const db = ctx.database.db;
    const other = await addCompany(db);
    const staff = await addStaff(db, {
      companyId: other.id,
      roleIds: [
        await addRole(db, {
          companyId: other.id,
          menuIds: [MENU.firmware, MENU.upload, MENU.publish, MENU.remove],
        }),
      ],
    });
    const token = (await signIn(app, staff.account, staff.password)).token;
    const own = await upload(app, { token, body: randomBytes(2000), version: '9.9.9-other' });
    expect(own.code, own.msg).toBe(0);
    expect(own.data.companyId).toBe(other.id);
    const theirs = await call(app, endpoints.firmware.pageList.path, {}, { token });
    expect(theirs.data.list.map((p: { id: number }) => p.id).sort()).toEqual([packageId, own.data.id].sort());
    // The platform's package: seen, not changed.
    expect((await call(app, endpoints.firmware.disable.path, { id: packageId }, { token })).code).toBe(
      ErrorCode.NO_PERMISSION,
    );
    // A third company sees neither the other's package nor can it touch it.
    const third = await addStaff(db, {
      roleIds: [
        await addRole(db, { companyId: (await addCompany(db)).id, menuIds: [MENU.firmware, MENU.publish] }),
      ],
    });
    const thirdToken = (await signIn(app, third.account, third.password)).token;
    expect(
      (await call(app, endpoints.firmware.detail.path, { id: own.data.id }, { token: thirdToken })).code,
    ).toBe(ErrorCode.INSTALL_PACKAGE_NOT_FOUND);
    expect(
      (await call(app, endpoints.firmware.publish.path, { id: own.data.id }, { token: thirdToken })).code,
    ).toBe(ErrorCode.INSTALL_PACKAGE_NOT_FOUND);
    // Listing is not uploading.
    const viewer = await addStaff(db, {
      companyId: other.id,
      roleIds: [await addRole(db, { companyId: other.id, menuIds: [MENU.firmware] })],
    });
    const viewerToken = (await signIn(app, viewer.account, viewer.password)).token;
    const refused = await upload(app, { token: viewerToken, body: randomBytes(10), version: '1.0.0-v' });
    expect(refused.code).toBe(ErrorCode.NO_PERMISSION);
  });

  describe('download', () => {
    let token: string;
    const get = (t: string, headers: Record<string, string> = {}, sn: string | null = deviceSn) =>
      app.inject({
        method: 'GET',
        url: `/ota/${t}`,
        headers: { ...(sn === null ? {} : { 'x-device-sn': sn }), ...headers },
      });

    beforeAll(async () => {
      token = await app.firmware.mintToken({ packageId, deviceId, expiresAt: Date.now() + 3600_000 });
      expect(app.firmware.urlOf(token)).toMatch(/^http:\/\/[^/]+\/ota\/[A-Za-z0-9_-]{43}$/);
    });

    it('answers the whole file with its ETag, and says it takes ranges', async () => {
      const r = await get(token);
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-length']).toBe(String(file.length));
      expect(r.headers['accept-ranges']).toBe('bytes');
      expect(r.headers.etag).toBe(`"${sha(file)}"`);
      expect(r.headers['cache-control']).toBe('no-store');
      expect(sha(r.rawPayload)).toBe(sha(file));
    });

    it('answers ranges (206) across chunk boundaries, a resume and a suffix', async () => {
      const cases: Array<[string, number, number]> = [
        ['bytes=0-0', 0, 0],
        ['bytes=100-199', 100, 199],
        [
          `bytes=${FIRMWARE_CHUNK_BYTES - 10}-${2 * FIRMWARE_CHUNK_BYTES + 10}`,
          FIRMWARE_CHUNK_BYTES - 10,
          2 * FIRMWARE_CHUNK_BYTES + 10,
        ],
        [`bytes=${FIRMWARE_CHUNK_BYTES}-`, FIRMWARE_CHUNK_BYTES, file.length - 1],
        ['bytes=-500', file.length - 500, file.length - 1],
        [`bytes=5-${file.length + 1000}`, 5, file.length - 1],
      ];
      for (const [range, start, end] of cases) {
        const r = await get(token, { range });
        expect(r.statusCode, range).toBe(206);
        expect(r.headers['content-range'], range).toBe(`bytes ${start}-${end}/${file.length}`);
        expect(r.rawPayload.equals(file.subarray(start, end + 1)), range).toBe(true);
      }
      // A device that dropped after 1,234,567 bytes resumes; the two parts are the file.
      const first = (await get(token)).rawPayload.subarray(0, 1_234_567);
      const rest = await get(token, { range: 'bytes=1234567-' });
      expect(sha(Buffer.concat([first, rest.rawPayload]))).toBe(sha(file));
    });

    it('answers 416 past the end, and the whole file when If-Range names another version', async () => {
      const past = await get(token, { range: `bytes=${file.length}-` });
      expect(past.statusCode).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${file.length}`);
      const stale = await get(token, { range: 'bytes=10-20', 'if-range': '"another"' });
      expect(stale.statusCode).toBe(200);
      expect(stale.rawPayload.length).toBe(file.length);
      const same = await get(token, { range: 'bytes=10-20', 'if-range': `"${sha(file)}"` });
      expect(same.statusCode).toBe(206);
    });

    it('refuses another device (403), an expired token (410) and an unknown one (404)', async () => {
      expect((await get(token, {}, 'EMS-SOMEONE-ELSE')).statusCode).toBe(403);
      expect((await get(token, {}, null)).json()).toEqual({ error: 'wrong_device' });
      const expired = await app.firmware.mintToken({ packageId, deviceId, expiresAt: Date.now() - 1 });
      const gone = await get(expired);
      expect(gone.statusCode).toBe(410);
      expect(gone.json()).toEqual({ error: 'token_expired' });
      expect((await get(randomBytes(32).toString('base64url'))).statusCode).toBe(404);
      expect((await get('not-a-token')).json()).toEqual({ error: 'unknown_token' });
    });
  });
});

describe('parseRange', () => {
  it('reads one byte range and ignores what it does not serve', () => {
    expect(parseRange(undefined, 100)).toBeUndefined();
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-1000', 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=50-1000', 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=9-3', 100)).toBeUndefined();
    expect(parseRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(parseRange('items=0-1', 100)).toBeUndefined();
  });
});
