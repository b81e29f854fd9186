/**
 * Poison device messages (issue 13; docs/device-protocol.md "Dead letters" and "Text from
 * devices"): a message the database refuses for a reason in its data is stored as a dead letter
 * with its SN and the error, everything else around it is stored, and every publish is
 * acknowledged — nothing waits behind it. Text PostgreSQL cannot store (NUL, lone surrogates) is
 * cleaned at validation. A failure of the database itself is retried, never dead-lettered.
 *
 * Through the real broker path — the embedded broker, and the external one (Mosquitto) when
 * TEST_MQTT_URL is set — on PGlite and PostgreSQL; and the pipeline alone, fed what validation
 * would have cleaned, for the NUL that reaches the database and for connection failures.
 */
import { randomBytes } from 'node:crypto';
import { deviceTopic, type EventPayload, type TelemetryPayload } from '@ess/contract';
import { and, eq, sql } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { alarmEvent, deviceDeadLetter, telemetry } from '../src/core/db/schema';
import { DeviceDirectory } from '../src/devices/device-directory';
import { DeviceService } from '../src/devices/device-service';
import { IngestPipeline } from '../src/devices/ingest';
import { call, signIn } from './support/client';
import { addCompany, addRole, addStaff } from './support/fixtures';
import { createTestApp, type Engine, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

const brokerUrl = process.env.TEST_MQTT_URL;
const transports: ('embedded' | 'external')[] = brokerUrl ? ['embedded', 'external'] : ['embedded'];
const cases = engines.flatMap((engine) => transports.map((transport) => [engine, transport] as const));

/** A point value whose rollup sum overflows float8 once two of them meet (SQLSTATE 22003). */
const HUGE = 1.7e308;

interface Fleet {
  ctx: TestContext;
  adminToken: string;
  siteId: number;
  gateway: { id: number; sn: string; secret: string };
  pcs: { id: number; sn: string };
}

async function fleet(engine: Engine, tag: string): Promise<Fleet> {
  const ctx = await createTestApp(engine);
  const admin = await signIn(ctx.app);
  const api = (path: string, body: object) => call(ctx.app, `/api-bms/${path}`, body, { token: admin.token });
  const site = await api('site/save', { code: `PZ-${tag}`, name: 'Poison site' });
  const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-PZ-${tag}`, type: 'ems' });
  const p = await api('device/save', {
    siteId: site.data.id,
    sn: `PCS-PZ-${tag}`,
    type: 'pcs',
    gatewayId: ems.data.id,
  });
  return {
    ctx,
    adminToken: admin.token,
    siteId: site.data.id,
    gateway: { id: ems.data.id, sn: ems.data.secret.sn, secret: ems.data.secret.secret },
    pcs: { id: p.data.id, sn: `PCS-PZ-${tag}` },
  };
}

/** Start of a 15-minute bucket two hours ago (all test readings fall in one bucket of each size). */
const bucketBase = () => Math.floor((Date.now() - 2 * 3600_000) / 900_000) * 900_000;

const telemetryOf = (pcsSn: string, id: string, ts: number, points: Record<string, number>) =>
  JSON.stringify({ v: 1, id, ts, devices: [{ sn: pcsSn, type: 'pcs', points }] } satisfies TelemetryPayload);

const eventOf = (pcsSn: string, id: string, ts: number, code: string, content: string) =>
  JSON.stringify({
    v: 1,
    id,
    ts,
    events: [{ deviceSn: pcsSn, kind: 'produce', code, level: 'warning', content }],
  } satisfies EventPayload);

describe.each(cases)('poison messages through the %s database and the %s broker', (engine, transport) => {
  const tag = `${engine === 'postgres' ? 'P' : 'G'}${transport === 'external' ? 'X' : 'E'}${randomBytes(3).toString('hex')}`;
  let f: Fleet;
  let devices: DeviceService;
  let client: MqttClient;

  beforeAll(async () => {
    f = await fleet(engine, tag);
    devices = new DeviceService(
      f.ctx.database.db,
      f.ctx.app.log,
      transport === 'external'
        ? { mqttUrl: brokerUrl, mqttPort: 0, mqttShareGroup: `ess-test-${tag}` }
        : { mqttPort: 0, mqttHost: '127.0.0.1' },
    );
    await devices.start();
    const url = transport === 'external' ? brokerUrl! : `mqtt://127.0.0.1:${devices.brokerAddress.port}`;
    client = await mqtt.connectAsync(url, {
      clientId: f.gateway.sn,
      username: f.gateway.sn,
      password: f.gateway.secret,
      reconnectPeriod: 0,
      clean: true,
    });
  });
  afterAll(async () => {
    await client?.endAsync();
    await devices?.close();
    await f?.ctx.close();
  });

  it('a reading the database refuses → one dead letter; NUL text cleaned; everything else stored; all acknowledged', async () => {
    const { pcs, gateway } = f;
    const db = f.ctx.database.db;
    const base = bucketBase() + 1000;
    const good = Array.from({ length: 10 }, (_, i) => ({
      id: `g-${i}`,
      ts: base + i * 1000,
      body: telemetryOf(pcs.sn, `g-${i}`, base + i * 1000, { p_kw: i }),
    }));
    const overflowA = telemetryOf(pcs.sn, 'huge-a', base + 20_000, { big_x: HUGE });
    const overflowB = telemetryOf(pcs.sn, 'huge-b', base + 21_000, { big_x: HUGE });
    // NUL and a lone surrogate in the content, as a device's JSON encoder writes them.
    const dirty = eventOf(pcs.sn, 'ev-dirty', base + 22_000, 'pcs.dirty_text', 'a\u0000b c\ud800d');
    const clean = eventOf(pcs.sn, 'ev-clean', base + 23_000, 'pcs.clean_text', 'fine');
    const sent: (readonly [topic: 'telemetry' | 'event', body: string])[] = [
      ...good.slice(0, 5).map((g) => ['telemetry', g.body] as const),
      ['telemetry', overflowA],
      ['event', dirty],
      ['telemetry', overflowB],
      ...good.slice(5).map((g) => ['telemetry', g.body] as const),
      ['event', clean],
      ['telemetry', good[3]!.body], // a redelivery: a duplicate, not a loss
    ];
    const ackedBefore = devices.acknowledgedData ?? 0;

    // All published at once, so the refused reading shares its batch with good ones. On the
    // embedded broker each publish resolves on its PUBACK, sent only once the message is settled.
    await Promise.all(
      sent.map(([kind, body]) => client.publishAsync(deviceTopic(gateway.sn, kind), body, { qos: 1 })),
    );
    if (transport === 'external') {
      await waitFor(() => (devices.acknowledgedData ?? 0) - ackedBefore >= sent.length, 10_000);
    }

    const letters = await db
      .select()
      .from(deviceDeadLetter)
      .where(eq(deviceDeadLetter.gatewaySn, gateway.sn));
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      gatewaySn: gateway.sn,
      deviceSn: pcs.sn,
      kind: 'telemetry',
      errorCode: '22003',
      siteId: f.siteId,
    });
    expect(JSON.parse(letters[0]!.payload)).toMatchObject({
      id: 'huge-b',
      devices: [{ points: { big_x: HUGE } }],
    });
    expect(letters[0]!.error).toMatch(/out of range/);

    const rows = await db.select({ ts: telemetry.ts }).from(telemetry).where(eq(telemetry.deviceId, pcs.id));
    const storedTs = rows.map((r) => r.ts.getTime()).sort((a, b) => a - b);
    expect(storedTs).toEqual([...good.map((g) => g.ts), base + 20_000].sort((a, b) => a - b));

    const events = await db
      .select({ code: alarmEvent.code, content: alarmEvent.content })
      .from(alarmEvent)
      .where(eq(alarmEvent.deviceId, pcs.id));
    expect(events.sort((a, b) => a.code.localeCompare(b.code))).toEqual([
      { code: 'pcs.clean_text', content: 'fine' },
      { code: 'pcs.dirty_text', content: 'ab c\uFFFDd' },
    ]);

    // The figures: sent = stored + duplicated + dead-lettered; nothing lost.
    const figures = {
      sent: sent.length,
      acknowledged: transport === 'external' ? (devices.acknowledgedData ?? 0) - ackedBefore : sent.length,
      storedTelemetry: storedTs.length,
      storedEvents: events.length,
      duplicated: devices.ingest.stats.duplicateRows,
      deadLettered: devices.ingest.stats.deadLettered,
    };
    expect(figures).toEqual({
      sent: 15,
      acknowledged: 15,
      storedTelemetry: 11,
      storedEvents: 2,
      duplicated: 1,
      deadLettered: 1,
    });
    expect(figures.storedTelemetry + figures.storedEvents + figures.duplicated + figures.deadLettered).toBe(
      figures.sent,
    );

    // Ingest goes on: a later message is stored at once.
    await client.publishAsync(
      deviceTopic(gateway.sn, 'telemetry'),
      telemetryOf(pcs.sn, 'after', base + 30_000, { p_kw: 42 }),
      { qos: 1 },
    );
    await waitFor(async () => {
      const [r] = await db
        .select()
        .from(telemetry)
        .where(and(eq(telemetry.deviceId, pcs.id), eq(telemetry.ts, new Date(base + 30_000))));
      return r;
    });
  });

  it('administrators list the dead letter; another company sees none', async () => {
    const list = await call(
      f.ctx.app,
      '/api-bms/device/deadLetterPageList',
      { pageNum: 1, pageSize: 10, keyword: f.gateway.sn },
      { token: f.adminToken },
    );
    expect(list.code).toBe(0);
    expect(list.data.total).toBe(1);
    expect(list.data.list[0]).toMatchObject({
      gatewaySn: f.gateway.sn,
      deviceSn: f.pcs.sn,
      kind: 'telemetry',
      errorCode: '22003',
      siteId: f.siteId,
      siteName: 'Poison site',
      timezone: 'Asia/Shanghai',
    });
    expect(JSON.parse(list.data.list[0].payload).id).toBe('huge-b');

    const db = f.ctx.database.db;
    const { id: companyId } = await addCompany(db);
    const roleId = await addRole(db, { companyId, isAdmin: true });
    const other = await addStaff(db, { companyId, roleIds: [roleId] });
    const outsider = await signIn(f.ctx.app, other.account, other.password);
    const theirs = await call(
      f.ctx.app,
      '/api-bms/device/deadLetterPageList',
      { pageNum: 1, pageSize: 10 },
      { token: outsider.token },
    );
    expect(theirs.code).toBe(0);
    expect(theirs.data).toEqual({ list: [], total: 0 });
  });
});

/** `db` whose `transaction` is replaced by `transaction(real)`; everything else passes through. */
function withTransaction(db: Db, transaction: (real: Db['transaction']) => Db['transaction']): Db {
  const replaced = transaction(db.transaction.bind(db));
  return new Proxy(db, {
    get: (target, prop) => (prop === 'transaction' ? replaced : Reflect.get(target, prop, target)),
  });
}

/** The pipeline without validation: what reaches the store is the device's JSON as sent. */
class UnvalidatedPipeline extends IngestPipeline {
  protected override parse(kind: 'telemetry' | 'event', payload: Buffer) {
    const body = JSON.parse(payload.toString('utf8'));
    return kind === 'telemetry'
      ? { kind, body: body as TelemetryPayload }
      : { kind, body: body as EventPayload };
  }
}

/** A connection-class failure as node-postgres raises it. */
const connectionLost = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe.each(engines)('the ingest pipeline and refused data on %s', (engine) => {
  let f: Fleet;
  let directory: DeviceDirectory;
  let ts = bucketBase() + 100_000;

  beforeAll(async () => {
    f = await fleet(engine, `${engine === 'postgres' ? 'P' : 'G'}U${randomBytes(3).toString('hex')}`);
    directory = new DeviceDirectory(f.ctx.database.db);
    await directory.refresh();
  });
  afterAll(async () => f?.ctx.close());

  const reading = (p_kw: number) => {
    ts += 1000;
    return { ts, body: Buffer.from(telemetryOf(f.pcs.sn, `u-${ts}`, ts, { p_kw })) };
  };
  const storedAt = async (at: number[]) =>
    (
      await f.ctx.database.db
        .select({ ts: telemetry.ts })
        .from(telemetry)
        .where(eq(telemetry.deviceId, f.pcs.id))
    )
      .map((r) => r.ts.getTime())
      .filter((t) => at.includes(t))
      .sort((a, b) => a - b);
  const lettersOf = (msgId: string) =>
    f.ctx.database.db
      .select()
      .from(deviceDeadLetter)
      .where(sql`${deviceDeadLetter.payload} LIKE ${`%"id":"${msgId}"%`}`);

  it('a NUL that reaches the database (22P05): that event is a dead letter, the rest of its batch is stored', async () => {
    const pipeline = new UnvalidatedPipeline(
      f.ctx.database.db,
      directory,
      f.ctx.app.log,
      {},
      { flushIntervalMs: 10 },
    );
    const before = [reading(1), reading(2)];
    const nulTs = ts + 500;
    const nul = Buffer.from(eventOf(f.pcs.sn, 'u-nul', nulTs, 'pcs.nul', 'a\u0000b'));
    const after = [reading(3), reading(4)];

    await Promise.all([
      ...before.map((r) => pipeline.accept(f.gateway.sn, 'telemetry', r.body)),
      pipeline.accept(f.gateway.sn, 'event', nul),
      ...after.map((r) => pipeline.accept(f.gateway.sn, 'telemetry', r.body)),
    ]);

    const all = [...before, ...after].map((r) => r.ts);
    expect(await storedAt(all)).toEqual(all);
    const [letter, ...more] = await lettersOf('u-nul');
    expect(more).toEqual([]);
    expect(letter).toMatchObject({
      gatewaySn: f.gateway.sn,
      deviceSn: f.pcs.sn,
      kind: 'event',
      errorCode: '22P05',
    });
    // The payload is kept as sent: the NUL escaped in the JSON text.
    expect(JSON.parse(letter!.payload).events[0].content).toBe('a\u0000b');
    expect(pipeline.stats).toMatchObject({ deadLettered: 1, flushFailures: 0, storedRows: 4 });
    await pipeline.close();
  });

  it('a database unreachable, also while a batch is split, is retried: only the NUL event is a dead letter', async () => {
    let calls = 0;
    const failing = new Set([1, 2, 4]); // the first write twice, then the first half of the split
    const db = withTransaction(
      f.ctx.database.db,
      (real) =>
        (async (run, config) => {
          calls++;
          if (failing.has(calls)) throw connectionLost();
          return real(run, config);
        }) as Db['transaction'],
    );
    const pipeline = new UnvalidatedPipeline(db, directory, f.ctx.app.log, {}, { flushIntervalMs: 10 });
    const good = [reading(5), reading(6), reading(7)];
    const nul = Buffer.from(eventOf(f.pcs.sn, 'u-nul-2', ts + 500, 'pcs.nul', 'x\u0000'));

    await Promise.all([
      ...good.map((r) => pipeline.accept(f.gateway.sn, 'telemetry', r.body)),
      pipeline.accept(f.gateway.sn, 'event', nul),
    ]);

    expect(await storedAt(good.map((r) => r.ts))).toEqual(good.map((r) => r.ts));
    expect(await lettersOf('u-nul-2')).toHaveLength(1);
    expect(pipeline.stats).toMatchObject({ deadLettered: 1, flushFailures: 3, storedRows: 3 });
    await pipeline.close();
  });

  it('only connection failures: retried until the database is back, never dead-lettered', async () => {
    let failuresLeft = 3;
    const db = withTransaction(
      f.ctx.database.db,
      (real) =>
        (async (run, config) => {
          if (failuresLeft > 0) {
            failuresLeft--;
            throw connectionLost();
          }
          return real(run, config);
        }) as Db['transaction'],
    );
    const pipeline = new IngestPipeline(db, directory, f.ctx.app.log, {}, { flushIntervalMs: 10 });
    const r = reading(8);
    await pipeline.accept(f.gateway.sn, 'telemetry', r.body);
    expect(await storedAt([r.ts])).toEqual([r.ts]);
    expect(await lettersOf(`u-${r.ts}`)).toEqual([]);
    expect(pipeline.stats).toMatchObject({ deadLettered: 0, flushFailures: 3, storedRows: 1 });
    await pipeline.close();
  });

  it.each([
    ['never answers', () => new Promise<never>(() => {})],
    ['keeps failing', () => Promise.reject(connectionLost())],
  ] as const)(
    'close() gives up after its grace while the database %s: the message stays unacknowledged',
    async (_, write) => {
      const db = withTransaction(
        f.ctx.database.db,
        () => (async () => write()) as unknown as Db['transaction'],
      );
      const lines: string[] = [];
      const log = Object.assign(Object.create(f.ctx.app.log), {
        warn: (obj: unknown, msg?: string) => void lines.push(msg ?? String(obj)),
        error: () => undefined,
      });
      const pipeline = new IngestPipeline(db, directory, log, {}, { flushIntervalMs: 10 });
      const r = reading(9);
      let acknowledged = false;
      void pipeline.accept(f.gateway.sn, 'telemetry', r.body).then(() => {
        acknowledged = true;
      });
      await waitFor(
        () => pipeline.stats.flushes + pipeline.stats.flushFailures > 0 || pipeline.stats.queued > 0,
      );
      // The grace is short so the test does not wait 5 s; without the deadline close() never returns.
      await pipeline.close(300);
      expect(lines).toContain('ingest closed with messages unstored (not acknowledged)');
      expect(acknowledged).toBe(false);
      expect(await storedAt([r.ts])).toEqual([]);
    },
  );
});
