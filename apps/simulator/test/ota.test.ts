/**
 * Simulated firmware upgrades on a real broker (in-process aedes, or TEST_MQTT_URL) against a
 * tiny local HTTP server (node:http) serving a package with `Range`: the success path with the
 * new version in the next birth, a resume after a dropped connection (the server sees the
 * Range), each failure reason, the low-SOC refusal and a redelivered command.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  deviceTopic,
  type OtaProgressPayload,
  otaProgressPayload,
  replyPayload,
  statusPayload,
} from '@ess/contract';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetSite } from '../src/fleet';
import { SimGateway } from '../src/gateway';
import { createSimSite } from '../src/sim-site';
import { touPlan, uniqueFleet } from './support';

const START = Date.UTC(2025, 6, 15, 2, 0);
const tag = `o${process.pid.toString(36)}${Date.now().toString(36).slice(-5)}`;
const external = process.env.TEST_MQTT_URL;
const SIZE = 300 * 1024 + 17;
const PACKAGE = randomBytes(SIZE);
const SHA = createHash('sha256').update(PACKAGE).digest('hex');
const dir = mkdtempSync(path.join(tmpdir(), 'sim-ota-'));

let url: string;
let broker: Aedes | undefined;
let brokerServer: Server | undefined;
let files: http.Server;
let filesBase: string;
/** Requests the file server saw: path and Range header. */
const requests: Array<{ path: string; range: string | undefined }> = [];
/** The X-Device-Sn header of each request, by path. */
const askedBy = new Map<string, string | undefined>();
let server_: MqttClient;
const received: Array<{ topic: string; payload: Record<string, unknown> }> = [];
const gateways: SimGateway[] = [];

async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Serves PACKAGE at /pkg/<anything> with `Range: bytes=N-` (206), 416 past the end, 403 for /denied. */
function fileServer(): http.Server {
  return http.createServer((req, res) => {
    requests.push({ path: req.url ?? '', range: req.headers.range });
    askedBy.set(req.url ?? '', req.headers['x-device-sn'] as string | undefined);
    if (!req.url?.startsWith('/pkg/')) {
      res.writeHead(403).end();
      return;
    }
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const from = m ? Number(m[1]) : 0;
    if (from >= SIZE) {
      res.writeHead(416, { 'content-range': `bytes */${SIZE}` }).end();
      return;
    }
    const body = PACKAGE.subarray(from);
    res.writeHead(m ? 206 : 200, {
      'content-length': body.length,
      'accept-ranges': 'bytes',
      ...(m ? { 'content-range': `bytes ${from}-${SIZE - 1}/${SIZE}` } : {}),
    });
    // in pieces, so that a drop lands mid-body
    let at = 0;
    const next = () => {
      if (at >= body.length || res.destroyed) return res.end();
      const piece = body.subarray(at, at + 32 * 1024);
      at += piece.length;
      if (res.write(piece)) setImmediate(next);
      else res.once('drain', next);
    };
    next();
  });
}

let nextSite = 0;
const sites = uniqueFleet(1, 6, tag);

/** A gateway of its own for each case (SN unique per run), connected and stepped once. */
async function gatewayFor(
  opts: { soc?: number; minSocPct?: number; rebootS?: number } = {},
): Promise<SimGateway> {
  const site: FleetSite = sites[nextSite++]!;
  const g = new SimGateway({
    site,
    url,
    secret: undefined,
    state: createSimSite(site, 1, START, opts.soc !== undefined ? { initialSocPct: opts.soc } : {}),
    paramsDir: dir,
    mqtt: { reconnectPeriod: 100 },
    ota: {
      timings: { verifyS: 0.02, installS: 0.02, rebootS: opts.rebootS ?? 0.3 },
      progressIntervalMs: 0,
      download: { retryDelayMs: 10, maxAttempts: 3 },
      ...(opts.minSocPct !== undefined ? { minSocPct: opts.minSocPct } : {}),
    },
  });
  gateways.push(g);
  await server_.subscribeAsync(`ess/v1/${site.gatewaySn}/#`, { qos: 1 });
  await g.start();
  g.advance(START + 60_000);
  return g;
}

let seq = 0;
let batch = 0;
async function command(sn: string, name: string, params: object): Promise<string> {
  const id = `c-${tag}-${++seq}`;
  await server_.publishAsync(
    deviceTopic(sn, 'cmd'),
    JSON.stringify({ v: 1, id, ts: Date.now(), name, params }),
    {
      qos: 1,
    },
  );
  return id;
}

function upgrade(g: SimGateway, target: string, extra: Record<string, unknown> = {}) {
  const device = g.site.devices.find((d) => d.sn === target)!;
  return {
    batchId: ++batch,
    packageId: 7,
    version: `${device.type.toUpperCase()}-9.0.${batch}`,
    targetDeviceSn: target,
    deviceType: device.type,
    size: SIZE,
    sha256: SHA,
    url: `${filesBase}/pkg/${batch}`,
    expiresAt: Date.now() + 600_000,
    ...extra,
  };
}

const on = (sn: string, kind: 'status' | 'reply' | 'ota') =>
  received.filter((m) => m.topic === deviceTopic(sn, kind)).map((m) => m.payload);
const replyTo = (sn: string, id: string) => on(sn, 'reply').find((r) => r.id === id);
const events = (sn: string, batchId: number) =>
  on(sn, 'ota')
    .map((e) => otaProgressPayload.parse(e))
    .filter((e) => e.batchId === batchId);
const finalOf = (sn: string, batchId: number) =>
  events(sn, batchId).find((e) => e.phase === 'success' || e.phase === 'failed');

async function failure(g: SimGateway, batchId: number): Promise<OtaProgressPayload & { phases: string[] }> {
  const final = await waitFor('a final event', () => finalOf(g.sn, batchId));
  return { ...final, phases: events(g.sn, batchId).map((e) => e.phase) };
}

beforeAll(async () => {
  if (external) {
    url = external;
  } else {
    broker = await Aedes.createBroker();
    const srv = createServer(broker.handle);
    brokerServer = srv;
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const addr = srv.address();
    if (!addr || typeof addr === 'string') throw new Error('no port');
    url = `mqtt://127.0.0.1:${addr.port}`;
  }
  files = fileServer();
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  const a = files.address();
  if (!a || typeof a === 'string') throw new Error('no port');
  filesBase = `http://127.0.0.1:${a.port}`;
  server_ = await mqtt.connectAsync(url, { clientId: `server-${tag}`, reconnectPeriod: 0 });
  server_.on('message', (topic, payload) => {
    if (payload.length > 0) received.push({ topic, payload: JSON.parse(payload.toString()) });
  });
});

afterAll(async () => {
  for (const g of gateways) await g.stop();
  if (server_) {
    for (const g of gateways)
      await server_.publishAsync(deviceTopic(g.sn, 'status'), '', { qos: 1, retain: true });
    await server_.endAsync();
  }
  if (external) {
    for (const g of gateways) {
      const c = await mqtt.connectAsync(url, { clientId: g.sn, clean: true, reconnectPeriod: 0 });
      await c.endAsync();
    }
  }
  await new Promise<void>((r) => files.close(() => r()));
  await new Promise<void>((r) => (brokerServer ? brokerServer.close(() => r()) : r()));
  await new Promise<void>((r) => (broker ? broker.close(() => r()) : r()));
  rmSync(dir, { recursive: true, force: true });
});

describe(`simulated firmware upgrades (${external ? 'TEST_MQTT_URL' : 'in-process aedes'})`, () => {
  it('upgrades the gateway: every phase, a reboot, the new version in the next birth, then success; a redelivery starts nothing', async () => {
    const g = await gatewayFor();
    const births = () => on(g.sn, 'status').filter((s) => s.online === true);
    await waitFor('first birth', () => births().length === 1);
    expect(births()[0]).toMatchObject({ firmware: 'EMS-2.4.1' });
    const p = upgrade(g, g.sn);
    const id = await command(g.sn, 'ota_upgrade', p);
    expect(replyPayload.parse(await waitFor('reply', () => replyTo(g.sn, id)))).toMatchObject({ ok: true });
    const done = await waitFor('success', () => finalOf(g.sn, p.batchId), 20_000);
    expect(done).toMatchObject({ phase: 'success', version: p.version, deviceSn: g.sn, packageId: 7 });
    const phases = events(g.sn, p.batchId).map((e) => e.phase);
    expect(phases[0]).toBe('downloading');
    expect(phases.slice(-5)).toEqual(['downloaded', 'verifying', 'installing', 'rebooting', 'success']);
    const percents = events(g.sn, p.batchId)
      .filter((e) => e.phase === 'downloading')
      .map((e) => e.percent!);
    // 0 % first, then rising as the bytes arrive (a step per 10 % reached)
    expect(percents[0]).toBe(0);
    expect(percents.length).toBeGreaterThanOrEqual(4);
    expect(percents.at(-1)).toBeGreaterThanOrEqual(80);
    for (let i = 1; i < percents.length; i++) expect(percents[i]!).toBeGreaterThan(percents[i - 1]!);
    // offline (clean) during the reboot, then a birth carrying the new version, before success
    const status = on(g.sn, 'status');
    const death = status.findIndex((s) => s.online === false);
    expect(status[death]).toMatchObject({ reason: 'clean' });
    const rebirth = statusPayload.parse(status[death + 1]);
    expect(rebirth).toMatchObject({ online: true, firmware: p.version });
    expect(rebirth.devices?.find((d) => d.sn === g.site.devices[1]!.sn)?.firmware).toBe(
      g.site.devices[1]!.firmware,
    );
    const all = received.filter((m) => m.topic.startsWith(`ess/v1/${g.sn}/`));
    expect(all.findIndex((m) => m.payload === status[death + 1])).toBeLessThan(
      all.findIndex((m) => m.payload.phase === 'success' && m.payload.batchId === p.batchId),
    );
    expect(g.firmwareOf(g.sn)).toBe(p.version);
    expect(requests.filter((r) => r.path === `/pkg/${p.batchId}`)).toEqual([
      { path: `/pkg/${p.batchId}`, range: undefined },
    ]);
    expect(askedBy.get(`/pkg/${p.batchId}`)).toBe(g.sn);
    // the same command again (a redelivery): the same answer, no second download
    const again = await command(g.sn, 'ota_upgrade', p);
    expect(await waitFor('second reply', () => replyTo(g.sn, again))).toMatchObject({ ok: true });
    await new Promise((r) => setTimeout(r, 100));
    expect(requests.filter((r) => r.path === `/pkg/${p.batchId}`)).toHaveLength(1);
    expect(events(g.sn, p.batchId).filter((e) => e.phase === 'success')).toHaveLength(1);
    // kept across a restart of the simulated gateway
    await g.stop();
    const restarted = new SimGateway({
      site: g.site,
      url,
      secret: undefined,
      state: createSimSite(g.site, 1, START),
      paramsDir: dir,
    });
    gateways.push(restarted);
    expect(restarted.firmwareOf(g.sn)).toBe(p.version);
  });

  it('upgrades a device behind the gateway: out of telemetry while it reboots, then a birth listing its new version', async () => {
    const g = await gatewayFor({ rebootS: 1.5 });
    const pcs = g.site.devices.find((d) => d.type === 'pcs')!.sn;
    const p = upgrade(g, pcs);
    await command(g.sn, 'ota_upgrade', p);
    await waitFor('rebooting', () => events(g.sn, p.batchId).some((e) => e.phase === 'rebooting'));
    const telemetry = () => received.filter((m) => m.topic === deviceTopic(g.sn, 'telemetry'));
    const before = telemetry().length;
    g.advance(START + 120_000); // a telemetry message while the PCS reboots
    const during = (await waitFor('telemetry', () => telemetry()[before]))?.payload as {
      devices: Array<{ sn: string }>;
    };
    expect(during.devices.map((d) => d.sn)).not.toContain(pcs);
    expect(during.devices.map((d) => d.sn)).toContain(g.sn);
    const done = await waitFor('success', () => finalOf(g.sn, p.batchId));
    expect(done).toMatchObject({ phase: 'success', version: p.version, deviceSn: pcs });
    expect(askedBy.get(`/pkg/${p.batchId}`)).toBe(pcs);
    const births = on(g.sn, 'status').filter((s) => s.online === true);
    const last = statusPayload.parse(births.at(-1));
    expect(last.firmware).toBe('EMS-2.4.1');
    expect(last.devices?.find((d) => d.sn === pcs)).toMatchObject({
      firmware: p.version,
      model: 'PCS-100K-3P',
    });
    expect(g.firmwareOf(pcs)).toBe(p.version);
  });

  it('resumes a dropped download with a Range request and still verifies', async () => {
    const g = await gatewayFor();
    g.dropOtaDownloadOnce();
    const p = upgrade(g, g.sn);
    await command(g.sn, 'ota_upgrade', p);
    const done = await waitFor('success', () => finalOf(g.sn, p.batchId), 20_000);
    expect(done.phase).toBe('success');
    const seen = requests.filter((r) => r.path === `/pkg/${p.batchId}`);
    expect(seen).toEqual([
      { path: `/pkg/${p.batchId}`, range: undefined },
      { path: `/pkg/${p.batchId}`, range: `bytes=${Math.floor(SIZE / 2)}-` },
    ]);
    expect(g.ota.stats).toMatchObject({ requests: 2, ranged: 1, bytes: SIZE });
  });

  it('fails in each way it is told to, with the contract reason', async () => {
    const g = await gatewayFor();
    const bms = g.site.devices.find((d) => d.type === 'bms')!.sn;

    g.failOta('checksum_mismatch');
    let p = upgrade(g, g.sn);
    await command(g.sn, 'ota_upgrade', p);
    let f = await failure(g, p.batchId);
    expect(f).toMatchObject({ phase: 'failed', reason: 'checksum_mismatch' });
    expect(f.detail).toContain(SHA);
    expect(f.phases).toEqual([
      ...f.phases.filter((x) => x === 'downloading'),
      'downloaded',
      'verifying',
      'failed',
    ]);

    g.failOta('download_error');
    p = upgrade(g, g.sn);
    await command(g.sn, 'ota_upgrade', p);
    f = await failure(g, p.batchId);
    expect(f).toMatchObject({ phase: 'failed', reason: 'download_error' });
    expect(f.detail).toMatch(/after 3 requests/);
    expect(requests.filter((r) => r.path === `/pkg/${p.batchId}`)).toHaveLength(3);

    g.clearOtaFailures();
    p = upgrade(g, g.sn, { url: `${filesBase}/denied/x` });
    await command(g.sn, 'ota_upgrade', p);
    f = await failure(g, p.batchId);
    expect(f).toMatchObject({
      phase: 'failed',
      reason: 'download_error',
      detail: 'HTTP 403 from the download URL',
    });

    g.failOta('install_error', bms);
    p = upgrade(g, bms);
    await command(g.sn, 'ota_upgrade', p);
    f = await failure(g, p.batchId);
    expect(f).toMatchObject({ phase: 'failed', reason: 'install_error', deviceSn: bms });
    expect(f.phases.slice(-4)).toEqual(['downloaded', 'verifying', 'installing', 'failed']);
    expect(g.firmwareOf(bms)).toBe('BMS-3.0.4');

    g.failOta('incompatible_model', bms);
    p = upgrade(g, bms);
    let id = await command(g.sn, 'ota_upgrade', p);
    expect(await waitFor('refusal', () => replyTo(g.sn, id))).toMatchObject({
      ok: false,
      result: { reason: 'incompatible_model' },
    });
    // a package for another type is refused the same way, without the switch
    g.clearOtaFailures();
    p = upgrade(g, bms, { deviceType: 'pcs' });
    id = await command(g.sn, 'ota_upgrade', p);
    expect(await waitFor('refusal', () => replyTo(g.sn, id))).toMatchObject({
      ok: false,
      result: { reason: 'incompatible_model' },
    });
    expect(
      requests.filter((r) => r.path === `/pkg/${p.batchId}` || r.path === `/pkg/${p.batchId - 1}`),
    ).toEqual([]);

    // vanish: halfway through the download it stops and never reports again
    g.failOta('vanish');
    p = upgrade(g, g.sn);
    id = await command(g.sn, 'ota_upgrade', p);
    expect(await waitFor('reply', () => replyTo(g.sn, id))).toMatchObject({ ok: true });
    await waitFor('gave up', () => g.ota.stats.vanished === 1 && g.ota.busy.length === 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(finalOf(g.sn, p.batchId)).toBeUndefined();
    expect(events(g.sn, p.batchId).every((e) => e.phase === 'downloading' && (e.percent ?? 0) < 50)).toBe(
      true,
    );
    expect(g.firmwareOf(g.sn)).toBe(g.site.firmware);
  });

  it('refuses with low_soc_busy while discharging below its SOC threshold, and accepts once it stops', async () => {
    const g = await gatewayFor({ soc: 20, minSocPct: 30 });
    const plan = (action: 'discharge' | 'idle', version: number) =>
      touPlan([['00:00', action, action === 'discharge' ? 50 : 0]], { version });
    const discharge = await command(g.sn, 'set_tou_plan', plan('discharge', 1));
    await waitFor('plan', () => replyTo(g.sn, discharge));
    g.advance(START + 120_000);
    const p = upgrade(g, g.sn);
    const id = await command(g.sn, 'ota_upgrade', p);
    const refused = replyPayload.parse(await waitFor('refusal', () => replyTo(g.sn, id)));
    expect(refused).toMatchObject({ ok: false, result: { reason: 'low_soc_busy' } });
    expect(refused.error).toMatch(/discharging at SOC 1\d(\.\d+)? % \(below 30 %\)/);
    const idle = await command(g.sn, 'set_tou_plan', plan('idle', 2));
    await waitFor('plan', () => replyTo(g.sn, idle));
    g.advance(START + 180_000);
    const q = upgrade(g, g.sn);
    const ok = await command(g.sn, 'ota_upgrade', q);
    expect(await waitFor('accepted', () => replyTo(g.sn, ok))).toMatchObject({ ok: true });
    expect((await waitFor('success', () => finalOf(g.sn, q.batchId), 20_000)).phase).toBe('success');
  });
});
