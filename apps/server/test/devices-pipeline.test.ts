/**
 * The ingest pipeline when the database misbehaves (docs/device-protocol.md "Delivery rules"):
 * a database that is briefly unreachable delays the acknowledgement until the write succeeds
 * (rows stored exactly once, failures counted); a full queue makes the next message wait
 * (back-pressure) instead of growing without bound.
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
  let pcs: { id: number; sn: string };
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
    pcs = { id: p.data.id, sn: `PCS-PL-${engine}` };
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
});
