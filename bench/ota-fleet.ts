/**
 * Child process of the OTA benchmark (bench/ota.ts): the device side, apart from the server so
 * that the two never share an event loop or a heap (the server's RSS is the parent's).
 *
 * Messages from the parent:
 * - `plan` {@link OtaFleetPlan}: builds the simulated fleet (apps/simulator `buildFleet`, the same
 *   seed and size the parent registered), starts it on the server's broker with the secrets the
 *   server issued, arms a dropped download on every `dropEvery`-th gateway (resumed with Range),
 *   answers `ready` with the gateways connected;
 * - `upload` {url, token, sizeBytes}: writes a package of random bytes to a temporary file
 *   (streamed: never whole in memory), then uploads it as the console does — the file as the
 *   streamed body of `firmware/upload` — and answers `uploaded` with the server's answer, the
 *   SHA-256 it computed itself and the time taken;
 * - `stats`: answers `stats` with the fleet's OTA counters summed ({@link OtaFleetStats});
 * - `exit`: stops the fleet (clean deaths) and exits.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildFleet, type OtaStats, type RunningFleet, startFleet } from '@ess/simulator';

export interface OtaFleetPlan {
  mqttUrl: string;
  seed: number;
  sites: number;
  credentials: Record<string, string>;
  /** Simulated seconds per real second (phases after the download take simulated time). */
  speed: number;
  /** Every n-th gateway drops its download halfway once and resumes (0: none). */
  dropEvery: number;
}

export interface OtaFleetStats extends OtaStats {
  gateways: number;
  connected: number;
  /** Gateways (EMS) per firmware they run now. */
  versions: Record<string, number>;
}

let fleet: RunningFleet | undefined;
const dir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-ota-'));
const send = (m: object) => process.send?.(m);

async function writePackage(file: string, sizeBytes: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  const piece = 1024 * 1024;
  for (let at = 0; at < sizeBytes; at += piece) {
    const chunk = randomBytes(Math.min(piece, sizeBytes - at));
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
  return hash.digest('hex');
}

function upload(
  url: string,
  token: string,
  file: string,
  sizeBytes: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': sizeBytes,
        'x-token': token,
      },
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

function stats(): OtaFleetStats {
  const sum: OtaFleetStats = {
    gateways: 0,
    connected: 0,
    versions: {},
    accepted: 0,
    refused: 0,
    succeeded: 0,
    failed: 0,
    vanished: 0,
    bytes: 0,
    requests: 0,
    ranged: 0,
    firstDownloadAtMs: 0,
    lastDownloadEndMs: 0,
    downloadMs: 0,
  };
  for (const g of fleet?.sites ?? []) {
    const s = g.ota.stats;
    sum.gateways++;
    if (g.stats.connected) sum.connected++;
    const v = g.firmwareOf(g.sn) ?? '?';
    sum.versions[v] = (sum.versions[v] ?? 0) + 1;
    sum.accepted += s.accepted;
    sum.refused += s.refused;
    sum.succeeded += s.succeeded;
    sum.failed += s.failed;
    sum.vanished += s.vanished;
    sum.bytes += s.bytes;
    sum.requests += s.requests;
    sum.ranged += s.ranged;
    sum.downloadMs += s.downloadMs;
    if (
      s.firstDownloadAtMs > 0 &&
      (sum.firstDownloadAtMs === 0 || s.firstDownloadAtMs < sum.firstDownloadAtMs)
    )
      sum.firstDownloadAtMs = s.firstDownloadAtMs;
    sum.lastDownloadEndMs = Math.max(sum.lastDownloadEndMs, s.lastDownloadEndMs);
  }
  return sum;
}

process.on(
  'message',
  (m: { type: string; plan?: OtaFleetPlan; url?: string; token?: string; sizeBytes?: number }) => {
    const run = async () => {
      if (m.type === 'plan') {
        const plan = m.plan!;
        fleet = await startFleet({
          url: plan.mqttUrl,
          sites: buildFleet({ seed: plan.seed, sites: plan.sites }),
          credentials: plan.credentials,
          seed: plan.seed,
          speed: plan.speed,
          tickMs: 250,
        });
        if (plan.dropEvery > 0) {
          fleet.sites.forEach((g, i) => {
            if (i % plan.dropEvery === 0) g.dropOtaDownloadOnce();
          });
        }
        // connected and subscribed: start() resolved for each, or at its first error
        const until = Date.now() + 60_000;
        while (fleet.sites.some((g) => !g.stats.connected) && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 100));
        }
        send({ type: 'ready', connected: fleet.sites.filter((g) => g.stats.connected).length });
      } else if (m.type === 'upload') {
        const file = path.join(dir, 'package.bin');
        const sha256 = await writePackage(file, m.sizeBytes!);
        const t0 = performance.now();
        const answer = await upload(m.url!, m.token!, file, m.sizeBytes!);
        const ms = performance.now() - t0;
        rmSync(file, { force: true });
        send({ type: 'uploaded', ...answer, sha256, ms });
      } else if (m.type === 'stats') {
        send({ type: 'stats', stats: stats() });
      } else if (m.type === 'exit') {
        await fleet?.stop();
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      }
    };
    run().catch((err: Error) => send({ type: 'error', error: err.stack ?? err.message }));
  },
);
