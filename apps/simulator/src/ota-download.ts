/**
 * The simulated devices' firmware download (docs/device-protocol.md "Simulator OTA"): one HTTP(S)
 * GET of the package URL, streamed through SHA-256 (node:crypto) as the bytes arrive and then
 * dropped — nothing is kept in memory or on disk but the hash state and a byte count, so 200
 * devices downloading 20 MiB each cost the simulator a few kilobytes apiece.
 *
 * Resume: after a connection that drops (socket error, premature end, no byte for `stallMs`) or
 * a 5xx answer, the download goes on from the byte it reached with `Range: bytes=<offset>-`
 * (RFC 9110 §14.2), up to `maxAttempts` requests in all, waiting `retryDelayMs × attempt`
 * between them. A `206` must start at that offset (`Content-Range: bytes <offset>-…`); a `200`
 * to a ranged request means the server ignored the range: the hash restarts from byte 0. A 4xx
 * answer (expired or foreign token, package gone) fails at once: retrying cannot help.
 *
 * Errors: the promise rejects with {@link DownloadError} (`reason` text in English, the last
 * HTTP status when there was one) when the attempts are used up, on a 4xx, when the body runs
 * past the announced size, or when `signal` aborts (`aborted: true`).
 */
import { createHash } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

export interface DownloadOptions {
  url: string;
  /** Package size in bytes, as the command announced it. */
  sizeBytes: number;
  /** Called as bytes arrive with the total received so far (every chunk; throttle in the caller). */
  onBytes?: (received: number) => void;
  /**
   * Test switch: for request `n` (1-based) starting at byte `offset`, the total of bytes received
   * at which the device drops the connection itself (the socket is destroyed mid-body); undefined:
   * no drop. The download then resumes with a Range like after any drop.
   */
  dropAt?: (n: number, offset: number) => number | undefined;
  /**
   * Test switch: the first byte is stored corrupted (bit-flipped before it is hashed), so the
   * real SHA-256 of what the device holds differs from the package's.
   */
  corrupt?: boolean;
  /** Requests in all, the first included (default 5). */
  maxAttempts?: number;
  /** Wait before the n-th retry: `retryDelayMs × n` real ms (default 500). */
  retryDelayMs?: number;
  /** No byte for this long (real ms) counts as a dropped connection (default 30 000). */
  stallMs?: number;
  /** Aborts the download (the device vanished, or the gateway stops). */
  signal?: AbortSignal;
  /** Extra request headers (none by default). */
  headers?: Record<string, string>;
}

export interface DownloadResult {
  /** SHA-256 of the bytes received, lowercase hex. */
  sha256: string;
  bytes: number;
  /** HTTP requests made (1 without a drop). */
  requests: number;
  /** Requests that asked for a `Range` (resumes). */
  ranged: number;
}

export class DownloadError extends Error {
  readonly status: number | undefined;
  readonly aborted: boolean;
  constructor(message: string, opts: { status?: number; aborted?: boolean } = {}) {
    super(message);
    this.name = 'DownloadError';
    this.status = opts.status;
    this.aborted = opts.aborted ?? false;
  }
}

/** One request's outcome: the bytes ended (complete or dropped) or a status to act on. */
type Attempt =
  | { kind: 'ended'; complete: boolean; why?: string }
  | { kind: 'status'; status: number }
  | { kind: 'restart' };

/**
 * Downloads `url` with resume, hashing on the fly (module comment). Resolves once `sizeBytes`
 * bytes were received and the server closed the body; the caller compares the hash.
 */
export async function downloadPackage(opts: DownloadOptions): Promise<DownloadResult> {
  const maxAttempts = opts.maxAttempts ?? 5;
  const retryDelayMs = opts.retryDelayMs ?? 500;
  const stallMs = opts.stallMs ?? 30_000;
  const target = new URL(opts.url);
  const get = target.protocol === 'https:' ? https.get : target.protocol === 'http:' ? http.get : undefined;
  if (!get) throw new DownloadError(`unsupported download URL scheme ${target.protocol}`);
  let hash = createHash('sha256');
  let received = 0;
  let requests = 0;
  let ranged = 0;
  let lastProblem = '';

  const attempt = (): Promise<Attempt> =>
    new Promise((resolve, reject) => {
      const offset = received;
      const headers: Record<string, string> = { ...opts.headers };
      if (offset > 0) {
        headers.range = `bytes=${offset}-`;
        ranged++;
      }
      requests++;
      let dropAt = opts.dropAt?.(requests, offset);
      let settled = false;
      let stall: ReturnType<typeof setTimeout> | undefined;
      const settle = (a: Attempt | Error) => {
        if (settled) return;
        settled = true;
        if (stall) clearTimeout(stall);
        opts.signal?.removeEventListener('abort', onAbort);
        if (a instanceof Error) reject(a);
        else resolve(a);
      };
      const req = get(target, { headers, agent: false });
      const armStall = () => {
        if (stall) clearTimeout(stall);
        stall = setTimeout(() => {
          req.destroy();
          settle({ kind: 'ended', complete: false, why: `no data for ${stallMs} ms` });
        }, stallMs);
      };
      const onAbort = () => {
        req.destroy();
        settle(new DownloadError('download aborted', { aborted: true }));
      };
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      armStall();
      req.on('error', (err) => settle({ kind: 'ended', complete: false, why: err.message }));
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const take = () => {
          res.on('data', (data: Buffer) => {
            if (settled) return;
            armStall();
            if (received + data.length > opts.sizeBytes) {
              req.destroy();
              settle(
                new DownloadError(`the server sent more than the announced ${opts.sizeBytes} bytes`, {
                  status,
                }),
              );
              return;
            }
            // the test switch's drop cuts the connection at exactly `dropAt` bytes
            const dropping =
              dropAt !== undefined && dropAt < opts.sizeBytes && received + data.length >= dropAt;
            const chunk = dropping ? data.subarray(0, Math.max(0, dropAt! - received)) : data;
            if (opts.corrupt && received === 0 && chunk.length > 0) {
              const bad = Buffer.from(chunk);
              bad[0] = bad[0]! ^ 0x01;
              hash.update(bad);
            } else {
              hash.update(chunk);
            }
            received += chunk.length;
            if (chunk.length > 0) opts.onBytes?.(received);
            if (dropping) {
              dropAt = undefined;
              req.destroy(); // the device drops its connection mid-body (test switch)
              settle({ kind: 'ended', complete: false, why: 'connection dropped (test switch)' });
            }
          });
          res.on('end', () => settle({ kind: 'ended', complete: received === opts.sizeBytes }));
          res.on('aborted', () => settle({ kind: 'ended', complete: false, why: 'response aborted' }));
          res.on('error', (err) => settle({ kind: 'ended', complete: false, why: err.message }));
        };
        if (status === 206 && offset > 0) {
          const start = /^bytes (\d+)-/.exec(String(res.headers['content-range'] ?? ''))?.[1];
          if (start === undefined || Number(start) !== offset) {
            res.resume();
            req.destroy();
            settle({ kind: 'ended', complete: false, why: `Content-Range does not start at ${offset}` });
            return;
          }
          take();
        } else if (status === 200) {
          if (offset > 0) {
            // the server ignored the range: start over
            res.resume();
            req.destroy();
            settle({ kind: 'restart' });
            return;
          }
          take();
        } else {
          res.resume();
          settle({ kind: 'status', status });
        }
      });
    });

  for (;;) {
    const a = await attempt();
    if (a.kind === 'ended' && a.complete) break;
    if (a.kind === 'restart') {
      hash = createHash('sha256');
      received = 0;
      lastProblem = 'the server ignored the Range header';
    } else if (a.kind === 'status') {
      if (a.status >= 400 && a.status < 500) {
        throw new DownloadError(`HTTP ${a.status} from the download URL`, { status: a.status });
      }
      lastProblem = `HTTP ${a.status}`;
    } else {
      lastProblem = a.why ?? `connection closed after ${received} of ${opts.sizeBytes} bytes`;
    }
    if (requests >= maxAttempts) {
      throw new DownloadError(`download failed after ${requests} requests: ${lastProblem}`.slice(0, 500));
    }
    await delay(retryDelayMs * requests, opts.signal);
  }
  return { sha256: hash.digest('hex'), bytes: received, requests, ranged };
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new DownloadError('download aborted', { aborted: true }));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new DownloadError('download aborted', { aborted: true }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
