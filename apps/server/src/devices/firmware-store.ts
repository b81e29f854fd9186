/**
 * Firmware package bytes (issue 16 item 1): streamed in from an upload, stored as chunks of
 * `bytea` in the database (`firmware_chunk`, {@link FIRMWARE_CHUNK_BYTES} each), and streamed out
 * to devices (`GET /ota/<token>`, with HTTP Range) — so every server instance serves the same
 * file and nothing lives on a local disk (docs/architecture.md "Firmware storage").
 *
 * **Upload** ({@link FirmwareStore.store}): the package row is inserted in state `uploading`
 * (invisible to every call), then the body is read piece by piece into one reused chunk buffer;
 * SHA-256 and size are computed as it goes, and each full chunk is written in its own short
 * statement (which also touches the row's `updated_at`, the sign of life the stale sweep reads).
 * A transaction around the whole upload would hold PGlite's single connection for minutes. When
 * the body ends, the row becomes `unused` with size and digest in one conditional `UPDATE`;
 * any failure — too large (7031), the version taken (7032, also when a concurrent upload of it
 * finished first), the expected SHA-256 differing (7033), the body cut short, aborted or empty
 * (7034), the database — deletes the row and its chunks (cascade) before the error goes out.
 * Should the instance die mid-upload, the row stays `uploading` and {@link FirmwareStore.sweep}
 * deletes it once it has been silent for {@link STALE_UPLOAD_MS}. Memory: one chunk buffer per
 * upload, whatever the file's size.
 *
 * **Download tokens** ({@link FirmwareStore.mintUrl}): 32 random bytes (base64url), stored as
 * their SHA-256 with the package, the device and the expiry; valid for that device only (the
 * download names it in `X-Device-Sn`) and until then, for as many requests as a resume needs.
 *
 * **Download** ({@link FirmwareStore.open}, {@link FirmwareStore.read}): a slice of a chunk
 * ({@link READ_SLICE_BYTES}, `substring` in SQL) is read when the socket asks for more, so a
 * download holds about one slice in memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ErrorCode, FIRMWARE_MAX_BYTES } from '@ess/contract';
import { and, eq, lt, type SQL, sql } from 'drizzle-orm';
import { type CompanyScope, inScopeSql } from '../access/company-scope';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import { firmwareChunk, firmwareDownloadToken, firmwarePackage } from '../core/db/schema';
import { sqlState } from '../core/db/sql-errors';
import { ApiError } from '../core/http/api-error';

/** Bytes per stored chunk (the last chunk of a file holds the rest). */
export const FIRMWARE_CHUNK_BYTES = 1024 * 1024;

/**
 * Bytes read per query when serving a download: a slice of a chunk (SQL `substring`). Small
 * enough that its text (base64, about 87 KB) stays out of V8's large-object space, where a
 * stream of 1 MiB strings piles up until a major collection (measured: +75 MiB peak for a
 * 100 MiB download with whole chunks).
 */
export const READ_SLICE_BYTES = 64 * 1024;

/** An `uploading` row silent this long belongs to a dead upload (its instance died): swept. */
export const STALE_UPLOAD_MS = 10 * 60_000;

/** What an upload stores besides the bytes (the contract's `firmwareUploadRequest`, parsed). */
export interface FirmwareUploadMeta {
  companyId: number;
  uploaderId: number;
  uploaderName: string;
  name: string;
  version: string;
  deviceType: string;
  models: string[];
  releaseNoteZh: string | null;
  releaseNoteEn: string | null;
  fileName: string;
  /** The SHA-256 the uploader expects (lower-case hex): 7033 when the file's differs. */
  expectedSha256?: string;
  /** The request's Content-Length, when it had one: 7031 at once when larger, 7034 when fewer bytes came. */
  declaredBytes?: number;
}

/** A package a valid token opens: what the download route needs. */
export interface DownloadablePackage {
  packageId: number;
  deviceId: number;
  sizeBytes: number;
  sha256: string;
  chunkBytes: number;
}

/** Why a token does not open a package: HTTP status and the contract's `{error}` word. */
export type DownloadRefusal =
  | { status: 404; error: 'unknown_token' | 'package_gone' }
  | { status: 410; error: 'token_expired' }
  | { status: 403; error: 'wrong_device' };

export interface FirmwareStoreOptions {
  /** Base of the download URLs (`http(s)://host[:port]`, no trailing slash), asked at each mint. */
  baseUrl: () => string;
  /** The clock (ms) of token expiry and the stale sweep; tests inject one. */
  now?: () => number;
  /** Bytes per chunk (tests use small ones); default {@link FIRMWARE_CHUNK_BYTES}. */
  chunkBytes?: number;
  /** Largest package; default the contract's FIRMWARE_MAX_BYTES (256 MiB). */
  maxBytes?: number;
}

const MIB = 1024 * 1024;

/** The SHA-256 of a token as stored. */
function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A download token as it appears in a URL: 43 base64url characters. */
export const DOWNLOAD_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export class FirmwareStore {
  readonly chunkBytes: number;
  readonly maxBytes: number;
  private readonly now: () => number;
  private uploads = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly db: Db,
    private readonly options: FirmwareStoreOptions,
  ) {
    this.chunkBytes = options.chunkBytes ?? FIRMWARE_CHUNK_BYTES;
    this.maxBytes = options.maxBytes ?? FIRMWARE_MAX_BYTES;
    this.now = options.now ?? Date.now;
  }

  /** Uploads being stored by this instance right now. */
  get uploading(): number {
    return this.uploads;
  }

  /** Resolves when this instance stores no upload (tests wait for an aborted one's clean-up). */
  idle(): Promise<void> {
    if (this.uploads === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** 7032 when a finished package of `deviceType` has `version`. */
  async assertVersionFree(deviceType: string, version: string): Promise<void> {
    const [taken] = await this.db
      .select({ id: firmwarePackage.id })
      .from(firmwarePackage)
      .where(
        and(
          eq(firmwarePackage.deviceType, deviceType),
          eq(firmwarePackage.version, version),
          sql`${firmwarePackage.state} <> 'uploading'`,
        ),
      )
      .limit(1);
    if (taken) throw new ApiError(ErrorCode.FIRMWARE_VERSION_EXISTS, { version });
  }

  /**
   * Stores `body` as a new package in state `unused` and answers its id; on any failure nothing
   * of it remains (see the module comment) and the error is an ApiError (7031–7034) or the
   * database's.
   */
  async store(meta: FirmwareUploadMeta, body: AsyncIterable<Uint8Array>): Promise<number> {
    this.uploads++;
    let packageId: number | undefined;
    try {
      if (meta.declaredBytes !== undefined && meta.declaredBytes > this.maxBytes) {
        throw this.tooLarge();
      }
      await this.assertVersionFree(meta.deviceType, meta.version);
      const [row] = await this.db
        .insert(firmwarePackage)
        .values({
          companyId: meta.companyId,
          name: meta.name,
          version: meta.version,
          deviceType: meta.deviceType,
          models: meta.models,
          releaseNoteZh: meta.releaseNoteZh,
          releaseNoteEn: meta.releaseNoteEn,
          fileName: meta.fileName,
          chunkBytes: this.chunkBytes,
          state: 'uploading',
          uploaderId: meta.uploaderId,
          uploaderName: meta.uploaderName,
        })
        .returning({ id: firmwarePackage.id });
      packageId = row!.id;
      const { size, sha256 } = await this.writeChunks(packageId, body);
      if (size === 0) throw new ApiError(ErrorCode.FIRMWARE_UPLOAD_INCOMPLETE, {}, 'empty body');
      if (meta.declaredBytes !== undefined && size !== meta.declaredBytes) {
        throw new ApiError(
          ErrorCode.FIRMWARE_UPLOAD_INCOMPLETE,
          {},
          `${size} of ${meta.declaredBytes} bytes`,
        );
      }
      if (meta.expectedSha256 !== undefined && meta.expectedSha256 !== sha256) {
        throw new ApiError(ErrorCode.FIRMWARE_CHECKSUM_MISMATCH);
      }
      try {
        const done = await this.db
          .update(firmwarePackage)
          .set({
            state: 'unused',
            sizeBytes: size,
            sha256,
            uploadedAt: new Date(this.now()),
            updatedAt: sql`now()`,
          })
          .where(and(eq(firmwarePackage.id, packageId), eq(firmwarePackage.state, 'uploading')))
          .returning({ id: firmwarePackage.id });
        // Swept as stale meanwhile (only after STALE_UPLOAD_MS of silence): the bytes are gone.
        if (done.length === 0) throw new ApiError(ErrorCode.FIRMWARE_UPLOAD_INCOMPLETE, {}, 'swept');
      } catch (err) {
        if (sqlState(err) === '23505')
          throw new ApiError(ErrorCode.FIRMWARE_VERSION_EXISTS, { version: meta.version });
        throw err;
      }
      const id = packageId;
      packageId = undefined;
      return id;
    } catch (err) {
      if (packageId !== undefined) {
        await this.db
          .delete(firmwarePackage)
          .where(and(eq(firmwarePackage.id, packageId), eq(firmwarePackage.state, 'uploading')));
      }
      if (err instanceof ApiError) throw err;
      if (sqlState(err) !== undefined) throw err;
      // The body failed: the client aborted, the connection dropped, a chunked body was cut.
      throw new ApiError(
        ErrorCode.FIRMWARE_UPLOAD_INCOMPLETE,
        {},
        err instanceof Error ? err.message : String(err),
      );
    } finally {
      this.uploads--;
      if (this.uploads === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private tooLarge(): ApiError {
    return new ApiError(ErrorCode.FIRMWARE_TOO_LARGE, { maxMiB: Math.floor(this.maxBytes / MIB) });
  }

  /** Reads `body` into chunks of `chunkBytes`, writing each when full; its size and SHA-256. */
  private async writeChunks(
    packageId: number,
    body: AsyncIterable<Uint8Array>,
  ): Promise<{ size: number; sha256: string }> {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(this.chunkBytes);
    let filled = 0;
    let size = 0;
    let seq = 0;
    for await (const piece of body) {
      size += piece.length;
      if (size > this.maxBytes) throw this.tooLarge();
      hash.update(piece);
      let offset = 0;
      while (offset < piece.length) {
        const n = Math.min(piece.length - offset, this.chunkBytes - filled);
        chunk.set(piece.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === this.chunkBytes) {
          await this.writeChunk(packageId, seq++, chunk);
          filled = 0;
        }
      }
    }
    if (filled > 0) await this.writeChunk(packageId, seq, chunk.subarray(0, filled));
    return { size, sha256: hash.digest('hex') };
  }

  /**
   * One chunk, and a sign of life on the package row, in one statement. The bytes travel as
   * base64 text decoded by the database: PGlite encodes a `bytea` parameter to hex in JavaScript
   * byte by byte (about 15 times slower for a MiB, measured), node-postgres is indifferent.
   */
  private async writeChunk(packageId: number, seq: number, data: Buffer): Promise<void> {
    await this.db.execute(sql`
      WITH written AS (
        INSERT INTO ${firmwareChunk} (package_id, seq, data)
        VALUES (${packageId}, ${seq}, decode(${data.toString('base64')}, 'base64'))
      )
      UPDATE ${firmwarePackage} SET updated_at = now() WHERE id = ${packageId}`);
  }

  /**
   * A download token for `deviceId` to fetch `packageId` until `expiresAt` (ms); the URL the
   * `ota_upgrade` command carries is {@link FirmwareStore.urlOf} of it. 7030 when the package
   * does not exist (or is still uploading).
   */
  async mintToken(input: { packageId: number; deviceId: number; expiresAt: number }): Promise<string> {
    const [pkg] = await this.db
      .select({ id: firmwarePackage.id })
      .from(firmwarePackage)
      .where(and(eq(firmwarePackage.id, input.packageId), sql`${firmwarePackage.state} <> 'uploading'`));
    if (!pkg) throw new ApiError(ErrorCode.INSTALL_PACKAGE_NOT_FOUND);
    const token = randomBytes(32).toString('base64url');
    await this.db.insert(firmwareDownloadToken).values({
      tokenHash: tokenHash(token),
      packageId: input.packageId,
      deviceId: input.deviceId,
      expiresAt: new Date(input.expiresAt),
    });
    return token;
  }

  /** The absolute download URL of `token`. */
  urlOf(token: string): string {
    return `${this.options.baseUrl()}/ota/${token}`;
  }

  /** {@link mintToken} and {@link urlOf} in one: the `DownloadUrlMint` of the upgrade batches. */
  async mintUrl(input: { packageId: number; deviceId: number; expiresAt: number }): Promise<string> {
    return this.urlOf(await this.mintToken(input));
  }

  /** What `token` opens for the device `deviceSn`, or why it opens nothing. */
  async open(token: string, deviceSn: string | undefined): Promise<DownloadablePackage | DownloadRefusal> {
    if (!DOWNLOAD_TOKEN_PATTERN.test(token)) return { status: 404, error: 'unknown_token' };
    const [row] = rowsOf<{
      package_id: number;
      device_id: number;
      expires_at: string | Date;
      sn: string;
      size_bytes: number | null;
      sha256: string | null;
      chunk_bytes: number | null;
      state: string | null;
    }>(
      await this.db.execute(sql`
      SELECT t.package_id, t.device_id, t.expires_at, d.sn, p.size_bytes, p.sha256, p.chunk_bytes, p.state
      FROM firmware_download_token t
      JOIN device d ON d.id = t.device_id
      LEFT JOIN firmware_package p ON p.id = t.package_id
      WHERE t.token_hash = ${tokenHash(token)}`),
    );
    if (!row) return { status: 404, error: 'unknown_token' };
    if (new Date(row.expires_at).getTime() <= this.now()) return { status: 410, error: 'token_expired' };
    if (deviceSn !== row.sn) return { status: 403, error: 'wrong_device' };
    if (!row.state || row.state === 'uploading' || !row.sha256) return { status: 404, error: 'package_gone' };
    return {
      packageId: Number(row.package_id),
      deviceId: Number(row.device_id),
      sizeBytes: Number(row.size_bytes),
      sha256: row.sha256,
      chunkBytes: Number(row.chunk_bytes),
    };
  }

  /**
   * Bytes `start … end` (inclusive) of a package as a stream that reads one chunk from the
   * database each time the consumer wants more (high-water mark of one byte: nothing read ahead
   * beyond the chunk in hand).
   */
  read(pkg: Pick<DownloadablePackage, 'packageId' | 'chunkBytes'>, start: number, end: number): Readable {
    const db = this.db;
    async function* chunks() {
      let pos = start;
      while (pos <= end) {
        const seq = Math.floor(pos / pkg.chunkBytes);
        const from = pos - seq * pkg.chunkBytes;
        const length = Math.min(pkg.chunkBytes - from, end - pos + 1, READ_SLICE_BYTES);
        // As base64 text, for the reason writeChunk gives (PGlite decodes bytea in JavaScript).
        const [row] = rowsOf<{ part: string }>(
          await db.execute(sql`
            SELECT encode(substring(data FROM ${from + 1} FOR ${length}), 'base64') AS part
            FROM firmware_chunk WHERE package_id = ${pkg.packageId} AND seq = ${seq}`),
        );
        const part = row ? Buffer.from(row.part, 'base64') : undefined;
        if (!part || part.length !== length)
          throw new Error(`chunk ${seq} of package ${pkg.packageId} missing`);
        yield part;
        pos += length;
      }
    }
    return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
  }

  /**
   * Deletes uploads silent for {@link STALE_UPLOAD_MS} (their instance died; with their chunks)
   * and expired download tokens. Safe on every instance at once.
   */
  async sweep(): Promise<{ staleUploads: number; expiredTokens: number }> {
    const now = this.now();
    const stale = await this.db
      .delete(firmwarePackage)
      .where(
        and(
          eq(firmwarePackage.state, 'uploading'),
          lt(firmwarePackage.updatedAt, new Date(now - STALE_UPLOAD_MS)),
        ),
      )
      .returning({ id: firmwarePackage.id });
    const expired = await this.db
      .delete(firmwareDownloadToken)
      .where(lt(firmwareDownloadToken.expiresAt, new Date(now)))
      .returning({ hash: firmwareDownloadToken.tokenHash });
    return { staleUploads: stale.length, expiredTokens: expired.length };
  }
}

/**
 * The base of download URLs: `PUBLIC_URL` when configured; without it (the default
 * `http://localhost:<PORT>`), the address the server actually listens on once it does (a test
 * or a second instance on port 0), as `http://127.0.0.1:<port>` for an IPv4 or any-address
 * listener.
 */
export function downloadBaseUrl(
  publicUrl: string,
  defaultPublicUrl: string,
  address: string | { address: string; port: number } | null,
): string {
  if (publicUrl !== defaultPublicUrl || !address || typeof address === 'string') return publicUrl;
  const host =
    address.address.includes(':') && address.address !== '::' ? `[${address.address}]` : '127.0.0.1';
  return `http://${host}:${address.port}`;
}

/**
 * The one rule of which packages a caller sees and may use for an upgrade, as a condition on
 * hand-written SQL where `p` is `firmware_package` and `c` its `company`: packages of the
 * caller's companies, and every package of the platform company (the vendor's firmware is offered
 * to every company). Changing a package (publish, disable, delete) needs its company in scope.
 */
export function firmwareVisibleSql(scope: CompanyScope): SQL {
  return sql`(${inScopeSql(scope, 'p.company_id')} OR c.type = 'platform')`;
}

/** The upgrade batches' `DownloadUrlMint` (devices/ota-batches.ts) from the app's store. */
export function mintOtaUrl(app: { firmware: FirmwareStore }) {
  return (input: { packageId: number; deviceId: number; expiresAt: number }): Promise<string> =>
    app.firmware.mintUrl(input);
}

/**
 * A single `Range: bytes=…` of a file of `size` bytes (RFC 9110 §14): `{start, end}`
 * (inclusive), `'unsatisfiable'` (416: starts at or past the end, or a suffix of 0), or
 * `undefined` to answer the whole file (no header, another unit, several ranges, malformed —
 * a server may ignore a Range it does not serve).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return undefined;
  const [, first, last] = m;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return undefined;
  return { start, end };
}
