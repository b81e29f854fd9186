/**
 * The ingest pipeline when the database misbehaves (docs/device-protocol.md "Delivery rules"):
 * a database that is briefly unreachable delays the acknowledgement until the write succeeds
 * (rows stored exactly once, failures counted); a full queue makes the next message wait
 * (back-pressure) instead of growing without bound; gateways in different lanes are written at
 * the same time, while one gateway's messages are written one batch after another, in order.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { telemetry } from '../src/core/db/schema';
import { DeviceDirectory } from '../src/devices/device-directory';
import { IngestPipeline } from '../src/devices/ingest';
import { call, signIn } from './support/client';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

/** `db` whose `transaction` is replaced by `transaction(real)`; everything else passes through. */
function withTransaction(db: Db, transaction: (real: Db['transaction']) => Db['transaction']): Db {
  const replaced = transaction(db.transaction.bind(db));
  return new Proxy(db, {
    get: (target, prop) => (prop === 'transaction' ? replaced : Reflect.get(target, prop, target)),
  });
}

describe.each(engines)('ingest pipeline against a failing database on %s', (engine) => {
  let ctx: TestContext;
  let directory: DeviceDirectory;
  let gatewaySn: string;
  let gatewayId: number;
  let pcs: { id: number; sn: string };
  let other: { gatewayId: number; gatewaySn: string; pcsSn: string; pcsId: number };
  let ts = Date.now() - 3600_000;

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    const admin = await signIn(ctx.app);
    const api = (path: string, body: object) =>
      call(ctx.app, `/api-bms/${path}`, body, { token: admin.token });
    const site = await api('site/save', { code: `PL-${engine}`, name: 'Pipeline site' });
    const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-PL-${engine}`, type: 'ems' });
    const p = await api('device/save', {
      siteId: site.data.id,
      sn: `PCS-PL-${engine}`,
      type: 'pcs',
      gatewayId: ems.data.id,
    });
    gatewaySn = ems.data.secret.sn;
    gatewayId = ems.data.id;
    pcs = { id: p.data.id, sn: `PCS-PL-${engine}` };
    const site2 = await api('site/save', { code: `PL2-${engine}`, name: 'Pipeline site 2' });
    const ems2 = await api('device/save', { siteId: site2.data.id, sn: `EMS-PL2-${engine}`, type: 'ems' });
    const p2 = await api('device/save', {
      siteId: site2.data.id,
      sn: `PCS-PL2-${engine}`,
      type: 'pcs',
      gatewayId: ems2.data.id,
    });
    other = {
      gatewayId: ems2.data.id,
      gatewaySn: ems2.data.secret.sn,
      pcsSn: `PCS-PL2-${engine}`,
      pcsId: p2.data.id,
    };
    directory = new DeviceDirectory(ctx.database.db);
    await directory.refresh();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const message = (points: Record<string, number>) => {
    ts += 1000;
    return Buffer.from(
      JSON.stringify({ v: 1, id: `m-${ts}`, ts, devices: [{ sn: pcs.sn, type: 'pcs', points }] }),
    );
  };
  const stored = async () =>
    (await ctx.database.db.select().from(telemetry).where(eq(telemetry.deviceId, pcs.id))).length;

  it('a database unreachable for two writes: accept() resolves only after the write, rows stored once', async () => {
    const events: string[] = [];
    let failuresLeft = 2;
    const db = withTransaction(
      ctx.database.db,
      (real) =>
        (async (run, config) => {
          if (failuresLeft > 0) {
            failuresLeft--;
            events.push('write failed');
            throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
          }
          const result = await real(run, config);
          events.push('write succeeded');
          return result;
        }) as Db['transaction'],
    );
    const pipeline = new IngestPipeline(db, directory, ctx.app.log, {}, { flushIntervalMs: 10 });
    const before = await stored();

    await pipeline.accept(gatewaySn, 'telemetry', message({ p_kw: 1 })).then(() => events.push('accepted'));

    expect(events).toEqual(['write failed', 'write failed', 'write succeeded', 'accepted']);
    expect(pipeline.stats.flushFailures).toBe(2);
    expect(pipeline.stats.storedRows).toBe(1);
    expect(await stored()).toBe(before + 1);
    await pipeline.close();
  });

  it('back-pressure: with the queue full and the database stuck, the next accept() waits', async () => {
    let release!: () => void;
    const stuck = new Promise<void>((r) => {
      release = r;
    });
    let writes = 0;
    const db = withTransaction(
      ctx.database.db,
      (real) =>
        (async (run, config) => {
          writes++;
          await stuck;
          return real(run, config);
        }) as Db['transaction'],
    );
    const maxQueuedRows = 3;
    const pipeline = new IngestPipeline(
      db,
      directory,
      ctx.app.log,
      {},
      { flushIntervalMs: 10, maxQueuedRows },
    );
    const before = await stored();

    const settled: number[] = [];
    const accepts = Array.from({ length: maxQueuedRows + 1 }, (_, i) =>
      pipeline.accept(gatewaySn, 'telemetry', message({ p_kw: i })).then(() => settled.push(i)),
    );
    // The first write starts after the flush interval: every accept() has run up to its wait by then
    // (the directory answers from its cache).
    await waitFor(() => writes === 1);
    // The first three are queued and being written (stuck); the fourth waits for room.
    expect(writes).toBe(1);
    expect(pipeline.stats.queued).toBe(maxQueuedRows);
    expect(settled).toEqual([]);

    release();
    await Promise.all(accepts);
    expect(settled).toEqual([0, 1, 2, 3]);
    expect(writes).toBe(2); // the waiting message went into a batch of its own
    expect(pipeline.stats.queued).toBe(0);
    expect(await stored()).toBe(before + maxQueuedRows + 1);
    await pipeline.close();
  });

  it('lanes: another gateway is written while one gateway’s batch is held; that gateway’s next batch waits for it', async () => {
    // A lane count that puts the two gateways in different lanes (lane = gateway id % lanes).
    let lanes = 2;
    while ((other.gatewayId - gatewayId) % lanes === 0) lanes++;
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const log: string[] = [];
    const db = withTransaction(
      ctx.database.db,
      (real) =>
        (async (run, config) => {
          // the first write (the first gateway's first batch) is held
          const first = log.length === 0;
          log.push(first ? 'first start' : 'later start');
          if (first) await held;
          return real(run, config);
        }) as Db['transaction'],
    );
    const pipeline = new IngestPipeline(db, directory, ctx.app.log, {}, { flushIntervalMs: 10, lanes });
    const before = await stored();
    const settled: string[] = [];
    const a1 = pipeline.accept(gatewaySn, 'telemetry', message({ p_kw: 1 })).then(() => settled.push('a1'));
    await waitFor(() => log.includes('first start'));
    const a2 = pipeline.accept(gatewaySn, 'telemetry', message({ p_kw: 2 })).then(() => settled.push('a2'));
    ts += 1000;
    const b = Buffer.from(
      JSON.stringify({
        v: 1,
        id: `o-${ts}`,
        ts,
        devices: [{ sn: other.pcsSn, type: 'pcs', points: { p_kw: 3 } }],
      }),
    );
    await pipeline.accept(other.gatewaySn, 'telemetry', b).then(() => settled.push('b'));
    log.push('other stored');
    // the other gateway's message is stored while the first gateway's batch is still held, and
    // the first gateway's second message has not been written beside its held batch
    expect(settled).toEqual(['b']);
    expect(log).toEqual(['first start', 'later start', 'other stored']);
    release();
    await Promise.all([a1, a2]);
    expect(settled).toEqual(['b', 'a1', 'a2']);
    expect(log).toEqual(['first start', 'later start', 'other stored', 'later start']);
    expect(await stored()).toBe(before + 2);
    await pipeline.close();
  });
});
