/**
 * Firmware upgrades of a simulated gateway and the devices behind it (issue 16 item 5; wire
 * contract in `@ess/contract` device/ota.ts, docs/device-protocol.md "Simulator OTA").
 *
 * {@link OtaAgent.command} takes the `params` of an `ota_upgrade` and answers the reply at once:
 * - refused (`ok: false`, `result: {reason}`): `incompatible_model` for a device the gateway
 *   does not have or of another type than `deviceType` (or the test switch); `low_soc_busy`
 *   while the site discharges (PCS state 2) with its SOC below `minSocPct` (default
 *   {@link OTA_MIN_SOC_PCT}), or while another upgrade of that device runs;
 * - accepted (`ok: true`): the upgrade runs in the background (below);
 * - the same `batchId` and `targetDeviceSn` again (a redelivery, a resend after a reconnect):
 *   the first answer again, nothing started twice.
 *
 * The upgrade: a real HTTP(S) download of `url` with the `X-Device-Sn` header naming the device
 * (ota-download.ts: streamed through SHA-256, kept
 * neither in memory nor on disk, resumed with `Range` after a drop), reporting `downloading`
 * with `percent` (at 0 % and then at each further 10 % reached, at most one event per
 * `progressIntervalMs`, default 1 s), `downloaded`, `verifying` (hash and size against the
 * command's), `installing`, `rebooting` (the host takes the device offline — the gateway its
 * MQTT connection — for `rebootS`, then publishes a birth with the new firmware) and `success`
 * with the version it now runs; or `failed` with the contract's reason and the device's words
 * in `detail`. Phases take simulated time (`verifyS`, `installS`, `rebootS` ÷ the clock's speed,
 * in real ms).
 *
 * Test switches ({@link OtaAgent.failWith}, per device or for all): `checksum_mismatch` (a byte
 * is corrupted as it is stored: the real hash differs), `download_error` (every request of the
 * download is dropped after its first bytes until the attempts are used up),
 * `incompatible_model` (refused), `install_error` (fails after installing), `vanish` (stops
 * halfway through the download and never reports again: the server must time it out); and
 * {@link OtaAgent.dropOnce} (the next download drops its connection halfway, once, and resumes).
 *
 * What each device runs is kept by the host; {@link loadFirmware}/{@link saveFirmware} keep it in
 * `<dir>/<gatewaySn>.firmware.json` so an upgrade survives a restart of the fleet.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  OTA_DEVICE_SN_HEADER,
  type OtaFailureReason,
  type OtaProgressPayload,
  type OtaUpgradeParams,
  otaUpgradeParams,
} from '@ess/contract';
import { z } from 'zod';
import type { FleetDevice, FleetSite } from './fleet';
import type { SiteReadings } from './model/site';
import { DownloadError, type DownloadOptions, downloadPackage } from './ota-download';

/** Below this SOC (%), a site that is discharging refuses upgrades (`low_soc_busy`). */
export const OTA_MIN_SOC_PCT = 30;

/** Simulated seconds each phase takes after the download. */
export interface OtaTimings {
  verifyS: number;
  installS: number;
  /** Offline time of the reboot. */
  rebootS: number;
}

export const DEFAULT_OTA_TIMINGS: Readonly<OtaTimings> = { verifyS: 2, installS: 8, rebootS: 6 };

/** The ways a simulated device can be told to fail an upgrade (module comment). */
export const OTA_TEST_FAILURES = [
  'checksum_mismatch',
  'download_error',
  'incompatible_model',
  'install_error',
  'vanish',
] as const;
export type OtaTestFailure = (typeof OTA_TEST_FAILURES)[number];

/** A progress event without the envelope (`v`, `id`, `ts`: the gateway adds them). */
export type OtaEvent = Omit<OtaProgressPayload, 'v' | 'id' | 'ts'>;

/** The reply to an `ota_upgrade` (`ok`, and on refusal `error` and `result: {reason}`). */
export interface OtaAnswer {
  ok: boolean;
  error?: string;
  result?: Record<string, unknown>;
}

/** What the agent needs from its gateway. */
export interface OtaHost {
  site: FleetSite;
  /** Publishes a progress event on `ess/v1/<gatewaySn>/ota`. */
  publish(event: OtaEvent): void;
  /** Readings of the last model step (SOC, PCS state); none before the first. */
  readings(): SiteReadings | undefined;
  /** Simulated seconds per real second. */
  speed(): number;
  /** Firmware device `sn` runs now. */
  firmware(sn: string): string;
  /** Device `sn` now runs `version` (kept; reported in the next birth). */
  install(sn: string, version: string): void;
  /** Takes device `sn` (the gateway: its connection) offline for `offMs` real ms; resolves after its birth. */
  reboot(sn: string, offMs: number): Promise<void>;
  log(message: string): void;
}

export interface OtaOptions {
  minSocPct?: number;
  /** Simulated seconds per phase (default {@link DEFAULT_OTA_TIMINGS}). */
  timings?: Partial<OtaTimings>;
  /** Least real ms between two `downloading` events of a device (default 1000). */
  progressIntervalMs?: number;
  /** Download tuning (attempts, retry delay, stall time). */
  download?: Pick<DownloadOptions, 'maxAttempts' | 'retryDelayMs' | 'stallMs'>;
}

/** Counters of the agent (the benchmark reads them). */
export interface OtaStats {
  accepted: number;
  refused: number;
  succeeded: number;
  failed: number;
  vanished: number;
  /** Bytes received by downloads (resumed ones counted once). */
  bytes: number;
  /** HTTP requests made, and those of them that resumed with a Range. */
  requests: number;
  ranged: number;
  /** Wall clock (epoch ms) when the first download started and the last one ended; 0: none yet. */
  firstDownloadAtMs: number;
  lastDownloadEndMs: number;
  /** Sum of the downloads' durations, real ms (completed ones). */
  downloadMs: number;
}

interface Job {
  key: string;
  params: OtaUpgradeParams;
  abort: AbortController;
}

/** One gateway's upgrades (module comment). */
export class OtaAgent {
  readonly stats: OtaStats = {
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
  private readonly host: OtaHost;
  private readonly opts: OtaOptions;
  /** First answer per `batchId/targetDeviceSn`. */
  private readonly answers = new Map<string, OtaAnswer>();
  /** Running upgrades by device SN. */
  private readonly running = new Map<string, Job>();
  private readonly failures = new Map<string, OtaTestFailure>();
  private readonly drops = new Set<string>();
  private stopped = false;

  constructor(host: OtaHost, opts: OtaOptions = {}) {
    this.host = host;
    this.opts = opts;
  }

  /**
   * Test switch: upgrades of `deviceSn` (of every device when omitted) fail in way `mode` until
   * {@link clearFailures}.
   */
  failWith(mode: OtaTestFailure, deviceSn = '*'): void {
    this.failures.set(deviceSn, mode);
  }

  /** Test switch: the next download of `deviceSn` (of any device when omitted) drops halfway, once. */
  dropOnce(deviceSn = '*'): void {
    this.drops.add(deviceSn);
  }

  /** Ends the test switches (of one device, or all). */
  clearFailures(deviceSn?: string): void {
    if (deviceSn) {
      this.failures.delete(deviceSn);
      this.drops.delete(deviceSn);
    } else {
      this.failures.clear();
      this.drops.clear();
    }
  }

  /** Device SNs with an upgrade running. */
  get busy(): string[] {
    return [...this.running.keys()];
  }

  /** Answers an `ota_upgrade` (module comment); an accepted one runs in the background. */
  command(raw: Record<string, unknown>): OtaAnswer {
    const p = otaUpgradeParams.safeParse(raw);
    if (!p.success) {
      const i = p.error.issues[0];
      return {
        ok: false,
        error: `params: ${i ? `${i.path.join('.')}: ${i.message}` : 'invalid'}`.slice(0, 500),
      };
    }
    const params = p.data;
    const key = `${params.batchId}/${params.targetDeviceSn}`;
    const first = this.answers.get(key);
    if (first) return first;
    const answer = this.decide(params);
    this.answers.set(key, answer);
    if (answer.ok) {
      this.stats.accepted++;
      const job: Job = { key, params, abort: new AbortController() };
      this.running.set(params.targetDeviceSn, job);
      void this.run(job).finally(() => {
        if (this.running.get(params.targetDeviceSn) === job) this.running.delete(params.targetDeviceSn);
      });
    } else {
      this.stats.refused++;
    }
    return answer;
  }

  /** Stops every upgrade at once (the gateway stops): no further event. */
  stop(): void {
    this.stopped = true;
    for (const j of this.running.values()) j.abort.abort();
    this.running.clear();
  }

  private decide(p: OtaUpgradeParams): OtaAnswer {
    const refuse = (reason: OtaFailureReason, error: string): OtaAnswer => ({
      ok: false,
      error,
      result: { reason },
    });
    const device: FleetDevice | undefined = this.host.site.devices.find((d) => d.sn === p.targetDeviceSn);
    if (!device) {
      return refuse(
        'incompatible_model',
        `unknown device ${p.targetDeviceSn} behind gateway ${this.host.site.gatewaySn}`,
      );
    }
    if (device.type !== p.deviceType) {
      return refuse(
        'incompatible_model',
        `package for ${p.deviceType}, device ${device.sn} is ${device.type} (${device.model})`,
      );
    }
    if (this.switchOf(device.sn) === 'incompatible_model') {
      return refuse('incompatible_model', `package not accepted by model ${device.model} (test switch)`);
    }
    const other = this.running.get(device.sn);
    if (other) {
      return refuse('low_soc_busy', `busy: upgrade of batch ${other.params.batchId} running`);
    }
    const r = this.host.readings();
    const minSoc = this.opts.minSocPct ?? OTA_MIN_SOC_PCT;
    const soc = r?.bms?.soc_pct ?? r?.ems?.soc_pct;
    if (r?.pcs?.state === 2 && soc !== undefined && soc < minSoc) {
      return refuse('low_soc_busy', `discharging at SOC ${soc} % (below ${minSoc} %): upgrade refused`);
    }
    return { ok: true, result: { accepted: true } };
  }

  private switchOf(sn: string): OtaTestFailure | undefined {
    return this.failures.get(sn) ?? this.failures.get('*');
  }

  private takeDrop(sn: string): boolean {
    if (this.drops.delete(sn)) return true;
    return this.drops.delete('*');
  }

  /** Real ms of `simS` simulated seconds. */
  private realMs(simS: number): number {
    return Math.round((simS * 1000) / Math.max(1e-6, this.host.speed()));
  }

  private async run(job: Job): Promise<void> {
    const p = job.params;
    const sn = p.targetDeviceSn;
    const timings = { ...DEFAULT_OTA_TIMINGS, ...this.opts.timings };
    const base = { batchId: p.batchId, packageId: p.packageId, deviceSn: sn };
    const emit = (e: Omit<OtaEvent, 'batchId' | 'packageId' | 'deviceSn'>) => {
      if (!job.abort.signal.aborted && !this.stopped) this.host.publish({ ...base, ...e } as OtaEvent);
    };
    const fail = (reason: OtaFailureReason, detail: string) => {
      this.stats.failed++;
      emit({ phase: 'failed', reason, detail: detail.slice(0, 500) });
      this.host.log(`${sn}: upgrade to ${p.version} failed: ${reason}: ${detail}`);
    };
    const mode = this.switchOf(sn);
    const interval = this.opts.progressIntervalMs ?? 1000;
    let lastTenth = 0;
    let lastEmitAt = performance.now();
    emit({ phase: 'downloading', percent: 0, bytes: 0 });
    const half = Math.max(1, Math.floor(p.size / 2));
    const drop = this.takeDrop(sn);
    let vanished = false;
    let result: Awaited<ReturnType<typeof downloadPackage>>;
    const startedAt = Date.now();
    if (this.stats.firstDownloadAtMs === 0) this.stats.firstDownloadAtMs = startedAt;
    try {
      result = await downloadPackage({
        url: p.url,
        sizeBytes: p.size,
        signal: job.abort.signal,
        headers: { [OTA_DEVICE_SN_HEADER]: sn },
        ...this.opts.download,
        ...(mode === 'download_error'
          ? {
              dropAt: (_n: number, offset: number) => offset + Math.max(1, Math.floor((p.size - offset) / 4)),
            }
          : drop
            ? { dropAt: (n: number) => (n === 1 ? half : undefined) }
            : {}),
        ...(mode === 'checksum_mismatch' ? { corrupt: true } : {}),
        onBytes: (received) => {
          if (mode === 'vanish' && received >= half && !vanished) {
            vanished = true;
            job.abort.abort(); // the device goes silent: no more bytes, no more events
            return;
          }
          const tenth = Math.floor((received * 10) / p.size);
          const now = performance.now();
          if (tenth > lastTenth && tenth < 10 && now - lastEmitAt >= interval) {
            lastTenth = tenth;
            lastEmitAt = now;
            emit({ phase: 'downloading', percent: Math.floor((received * 100) / p.size), bytes: received });
          }
        },
      });
    } catch (e) {
      if (vanished) {
        this.stats.vanished++;
        this.host.log(`${sn}: vanished halfway through the download of ${p.version} (test switch)`);
        return;
      }
      if (e instanceof DownloadError && e.aborted) return; // the gateway stops
      fail('download_error', (e as Error).message);
      return;
    }
    const endedAt = Date.now();
    this.stats.lastDownloadEndMs = Math.max(this.stats.lastDownloadEndMs, endedAt);
    this.stats.downloadMs += endedAt - startedAt;
    this.stats.bytes += result.bytes;
    this.stats.requests += result.requests;
    this.stats.ranged += result.ranged;
    emit({ phase: 'downloaded', percent: 100, bytes: result.bytes });
    emit({ phase: 'verifying' });
    if (!(await this.wait(timings.verifyS, job))) return;
    if (result.bytes !== p.size) {
      fail('checksum_mismatch', `received ${result.bytes} bytes, the package has ${p.size}`);
      return;
    }
    if (result.sha256 !== p.sha256) {
      fail('checksum_mismatch', `SHA-256 ${result.sha256} is not the package's ${p.sha256}`);
      return;
    }
    emit({ phase: 'installing' });
    if (!(await this.wait(timings.installS, job))) return;
    if (mode === 'install_error') {
      fail(
        'install_error',
        `flash write failed at the install of ${p.version} (test switch); ${this.host.firmware(sn)} kept`,
      );
      return;
    }
    this.host.install(sn, p.version);
    emit({ phase: 'rebooting' });
    await this.host.reboot(sn, this.realMs(timings.rebootS));
    if (job.abort.signal.aborted || this.stopped) return;
    this.stats.succeeded++;
    emit({ phase: 'success', version: this.host.firmware(sn) });
    this.host.log(`${sn}: upgraded to ${this.host.firmware(sn)}`);
  }

  /** Waits `simS` simulated seconds; false when the upgrade was stopped meanwhile. */
  private wait(simS: number, job: Job): Promise<boolean> {
    const ms = this.realMs(simS);
    return new Promise((resolve) => {
      if (job.abort.signal.aborted) return resolve(false);
      const t = setTimeout(() => {
        job.abort.signal.removeEventListener('abort', onAbort);
        resolve(!this.stopped);
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        resolve(false);
      };
      job.abort.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

const firmwareFileSchema = z.object({
  v: z.literal(1),
  gatewaySn: z.string(),
  firmware: z.record(z.string(), z.string().max(64)),
});

/** The firmware file of gateway `sn` in `dir`. */
export function firmwareFile(dir: string, sn: string): string {
  return path.join(dir, `${sn}.firmware.json`);
}

/**
 * What each device of `site` runs: the fleet's firmware, over which what `dir` holds for devices
 * the site still has. A missing file gives the fleet's; an unreadable one too, `onError` told why.
 */
export function loadFirmware(
  dir: string | undefined,
  site: FleetSite,
  onError: (message: string) => void = () => {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of site.devices) out[d.sn] = d.sn === site.gatewaySn ? site.firmware : d.firmware;
  if (!dir) return out;
  const file = firmwareFile(dir, site.gatewaySn);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') onError(`${file}: ${(e as Error).message}`);
    return out;
  }
  try {
    const stored = firmwareFileSchema.parse(JSON.parse(text));
    for (const [sn, v] of Object.entries(stored.firmware)) if (sn in out) out[sn] = v;
  } catch (e) {
    onError(`${file}: not a firmware file (${(e as Error).message.slice(0, 200)}); fleet firmware kept`);
  }
  return out;
}

/** Saves what each device of gateway `sn` runs (written aside, then renamed). */
export function saveFirmware(dir: string, sn: string, firmware: Readonly<Record<string, string>>): void {
  mkdirSync(dir, { recursive: true });
  const file = firmwareFile(dir, sn);
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, `${JSON.stringify({ v: 1, gatewaySn: sn, firmware }, null, 2)}\n`);
  renameSync(aside, file);
}
