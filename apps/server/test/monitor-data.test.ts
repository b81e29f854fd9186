/**
 * Real-time data and history: the history query picks raw rows or rollups
 * by range and data density and answers the same totals either way; no series over 3000
 * points; min/max/avg per bucket; the range rules (3120–3122) in both languages; too many
 * series (3123), a bad point name (3124); a device without data (empty series, not an error);
 * scope (another company's site / device answers 3036 / 3030 as if it did not exist);
 * real-time points with their report times, the reporting interval and the gateway state;
 * two-period comparison; energy per day and month from the PCS registers. Data enters through
 * the ingest's batch writer (`storeBatch`), as MQTT messages do, so rollups are the real ones.
 */
import { ErrorCode, endpoints, errorMessage, localDayStart, MAX_POINTS_PER_SERIES } from '@ess/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyScope } from '../src/access/company-scope';
import type { Db } from '../src/core/db/database';
import { company, device, site } from '../src/core/db/schema';
import { storeBatch, type TelemetryRow } from '../src/devices/telemetry-store';
import { bucketCount, rollupFor } from '../src/modules/monitor/history-query';
import { MonitorService } from '../src/modules/monitor/monitor-service';
import { call, type SignedIn, signIn } from './support/client';
import { addRole, addStaff, unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

const TZ = 'Asia/Shanghai';
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** A PCS power reading that varies enough for min/max/avg to differ (kW). */
const powerAt = (i: number) => Math.round((60 * Math.sin(i / 37) + (i % 11) - 5) * 1000) / 1000;

describe('resolution rule (no database)', () => {
  it('never lets a rollup series pass 3000 buckets, and uses the finest that fits', () => {
    expect(rollupFor(0, 7 * DAY)).toBe(900);
    expect(rollupFor(0, 31 * DAY)).toBe(900);
    expect(bucketCount(900, 0, 31 * DAY)).toBeLessThanOrEqual(MAX_POINTS_PER_SERIES);
    expect(rollupFor(0, 32 * DAY)).toBe(3600);
    expect(bucketCount(900, 0, 32 * DAY)).toBeGreaterThan(MAX_POINTS_PER_SERIES);
    expect(rollupFor(0, 125 * DAY)).toBe(3600);
    expect(rollupFor(0, 126 * DAY)).toBe(86400);
    expect(rollupFor(0, 400 * DAY)).toBe(86400);
    // Misaligned starts touch one more bucket: still within the cap.
    for (const span of [DAY, 7 * DAY, 31 * DAY, 125 * DAY, 400 * DAY]) {
      const start = 123_456_789;
      const b = rollupFor(start, start + span);
      expect(bucketCount(b, start, start + span) + (b === 86400 ? 1 : 0)).toBeLessThanOrEqual(
        MAX_POINTS_PER_SERIES,
      );
    }
  });
});

describe.each(engines)('real-time data and history on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let A: number;
  let B: number;
  let siteA: number;
  let siteB: number;
  let gwA: number;
  let pcsA: number;
  let bmsA: number;
  let pcs2A: number;
  let quietA: number;
  let gwB: number;
  /** When the gateway's last soc_pct reading was taken (seeded below). */
  let gwLatestTs: number;
  let sA: SignedIn;
  let sB: SignedIn;
  let sViewer: SignedIn;
  let scopeA: CompanyScope;
  /** The service itself, for reads forced to one source (not offered over HTTP). */
  let monitor: MonitorService;
  /** Local midnight (site A) three days ago: a whole past day of data. */
  let day0: number;

  async function store(rows: TelemetryRow[]) {
    for (let i = 0; i < rows.length; i += 2000) await storeBatch(db, rows.slice(i, i + 2000), [], new Map());
  }

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    monitor = new MonitorService(db);
    const [platform] = await db.select().from(company).where(eq(company.type, 'platform'));
    const [a] = await db
      .insert(company)
      .values({ type: 'owner', name: unique('mon-A'), parentId: platform!.id })
      .returning();
    const [b] = await db
      .insert(company)
      .values({ type: 'owner', name: unique('mon-B'), parentId: platform!.id })
      .returning();
    A = a!.id;
    B = b!.id;
    scopeA = { all: false, companyIds: [A] };
    const [sa] = await db
      .insert(site)
      .values({ companyId: A, code: unique('MA').slice(-30), name: 'Monitor Alpha', timezone: TZ })
      .returning();
    const [sb] = await db
      .insert(site)
      .values({ companyId: B, code: unique('MB').slice(-30), name: 'Monitor Bravo' })
      .returning();
    siteA = sa!.id;
    siteB = sb!.id;
    const add = async (companyId: number, siteId: number, type: string, gatewayId: number | null) => {
      const [row] = await db
        .insert(device)
        .values({
          companyId,
          siteId,
          sn: unique(type.toUpperCase()).slice(-30),
          type,
          gatewayId,
          online: true,
        })
        .returning();
      return row!.id;
    };
    gwA = await add(A, siteA, 'ems', null);
    pcsA = await add(A, siteA, 'pcs', gwA);
    bmsA = await add(A, siteA, 'bms', gwA);
    pcs2A = await add(A, siteA, 'pcs', gwA);
    quietA = await add(A, siteA, 'meter', gwA);
    gwB = await add(B, siteB, 'ems', null);

    const adminA = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, isAdmin: true })],
    });
    const adminB = await addStaff(db, {
      companyId: B,
      roleIds: [await addRole(db, { companyId: B, isAdmin: true })],
    });
    // Real-time data only (menu 502), no history (503).
    const viewer = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, menuIds: [500, 502] })],
    });
    sA = await signIn(ctx.app, adminA.account, adminA.password);
    sB = await signIn(ctx.app, adminB.account, adminB.password);
    sViewer = await signIn(ctx.app, viewer.account, viewer.password);

    day0 = localDayStart(Date.now() - 3 * DAY, TZ);
    // PCS: one reading a minute over the whole local day (1440 rows).
    const pcsRows: TelemetryRow[] = [];
    for (let i = 0; i < 1440; i++) {
      pcsRows.push({
        deviceId: pcsA,
        ts: day0 + i * MIN,
        points: { p_kw: powerAt(i), freq_hz: 50 },
        timezone: TZ,
      });
    }
    // BMS: every 10 s over the same day (8640 rows: too many raw points for one series).
    const bmsRows: TelemetryRow[] = [];
    for (let i = 0; i < 8640; i++) {
      bmsRows.push({
        deviceId: bmsA,
        ts: day0 + i * 10_000,
        points: { soc_pct: 20 + (i % 600) / 10 },
        timezone: TZ,
      });
    }
    // Second PCS: energy registers once an hour over four days (grow 10 kWh charged, 8 discharged per hour).
    const energyRows: TelemetryRow[] = [];
    for (let h = 0; h < 4 * 24; h++) {
      energyRows.push({
        deviceId: pcs2A,
        ts: day0 - DAY + h * HOUR + 30 * MIN,
        points: { e_charge_total_kwh: 1000 + 10 * h, e_discharge_total_kwh: 500 + 8 * h },
        timezone: TZ,
      });
    }
    // Gateway: the last 5 minutes, every 10 s (real-time and trend).
    const now = Date.now();
    const gwRows: TelemetryRow[] = [];
    for (let i = 30; i >= 1; i--) {
      gwRows.push({
        deviceId: gwA,
        ts: now - i * 10_000,
        points: { soc_pct: 50 + i / 10, p_setpoint_kw: -50 },
        timezone: TZ,
      });
    }
    gwLatestTs = now - 10_000;
    // An older reading of a point the gateway no longer sends.
    gwRows.push({ deviceId: gwA, ts: now - 2 * HOUR, points: { run_mode: 1 }, timezone: TZ });
    await store([...pcsRows, ...bmsRows, ...energyRows, ...gwRows]);
    await store([{ deviceId: gwB, ts: now - MIN, points: { soc_pct: 77 }, timezone: 'Asia/Shanghai' }]);
  }, 120_000);

  afterAll(async () => {
    await ctx?.close();
  });

  const history = (body: object, token = sA.token, lang: 'zh' | 'en' = 'zh') =>
    call(ctx.app, endpoints.monitor.history.path, body, { token, lang });

  describe('raw vs rollup, same totals', () => {
    it('answers a day of 1-minute data from raw rows (1440 readings)', async () => {
      const r = await history({
        series: [{ deviceId: pcsA, point: 'p_kw' }],
        startMs: day0,
        endMs: day0 + DAY,
      });
      expect(r.code).toBe(0);
      expect(r.data.resolution).toBe('raw');
      const [s] = r.data.series;
      expect(s.ts).toHaveLength(1440);
      expect(s.ts[0]).toBe(day0);
      expect(s.avg[5]).toBe(powerAt(5));
      expect(s.min).toBeNull();
      expect(s.stats.n).toBe(1440);
    });

    it('gives the same n, sum, avg, min and max from raw rows, 15-min, hourly and daily rollups', async () => {
      const input = { series: [{ deviceId: pcsA, point: 'p_kw' }], startMs: day0, endMs: day0 + DAY };
      const raw = (await monitor.history(scopeA, input, { kind: 'raw' })).series[0]!;
      const values = Array.from({ length: 1440 }, (_, i) => powerAt(i));
      const expected = values.reduce((n, v) => n + v, 0);
      expect(raw.stats.sum).toBeCloseTo(expected, 6);
      for (const bucketS of [900, 3600, 86400] as const) {
        const rolled = await monitor.history(scopeA, input, { kind: 'rollup', bucketS });
        expect(rolled.resolution).toBe(String(bucketS));
        const s = rolled.series[0]!;
        expect(s.ts).toHaveLength((DAY / 1000 / bucketS) | 0);
        expect(s.stats.n).toBe(raw.stats.n);
        expect(s.stats.sum).toBeCloseTo(raw.stats.sum, 6);
        expect(s.stats.avg!).toBeCloseTo(raw.stats.avg!, 9);
        expect(s.stats.min).toBe(raw.stats.min);
        expect(s.stats.max).toBe(raw.stats.max);
        expect(s.stats.min).toBe(Math.min(...values));
        // The same buckets computed from raw rows in SQL agree bucket by bucket.
        const fromRaw = (await monitor.history(scopeA, input, { kind: 'raw-buckets', bucketS })).series[0]!;
        expect(fromRaw.ts).toEqual(s.ts);
        for (const [i, v] of fromRaw.avg.entries()) expect(v).toBeCloseTo(s.avg[i]!, 9);
        expect(fromRaw.min).toEqual(s.min);
        expect(fromRaw.max).toEqual(s.max);
      }
    });

    it('counts only the readings inside a range that cuts buckets, from every source', async () => {
      // Readings at each minute i: the range holds i = 8 … 1204 (the edge buckets hold more).
      const input = {
        series: [{ deviceId: pcsA, point: 'p_kw' }],
        startMs: day0 + 7 * MIN + 30_000,
        endMs: day0 + 20 * HOUR + 5 * MIN,
      };
      const values = Array.from({ length: 1205 - 8 }, (_, k) => powerAt(8 + k));
      const raw = (await monitor.history(scopeA, input, { kind: 'raw' })).series[0]!;
      expect(raw.stats.n).toBe(values.length);
      expect(raw.stats.sum).toBeCloseTo(
        values.reduce((n, v) => n + v, 0),
        6,
      );
      for (const bucketS of [900, 3600, 86400] as const) {
        for (const kind of ['rollup', 'raw-buckets'] as const) {
          const s = (await monitor.history(scopeA, input, { kind, bucketS })).series[0]!;
          // The series shows whole buckets, the first starting before the range…
          expect(s.ts[0]).toBeLessThan(input.startMs);
          // …but its totals are those of the range.
          expect({ kind, bucketS, n: s.stats.n }).toEqual({ kind, bucketS, n: raw.stats.n });
          expect(s.stats.sum).toBeCloseTo(raw.stats.sum, 6);
          expect(s.stats.avg!).toBeCloseTo(raw.stats.avg!, 9);
          expect(s.stats.min).toBe(Math.min(...values));
          expect(s.stats.max).toBe(Math.max(...values));
        }
      }
    });

    it('has min/max/avg per 15-minute bucket equal to the readings in it', async () => {
      const input = { series: [{ deviceId: pcsA, point: 'p_kw' }], startMs: day0, endMs: day0 + DAY };
      const s = (await monitor.history(scopeA, input, { kind: 'rollup', bucketS: 900 })).series[0]!;
      const bucket3 = Array.from({ length: 15 }, (_, i) => powerAt(45 + i));
      expect(s.ts[3]).toBe(day0 + 45 * MIN);
      expect(s.min![3]).toBe(Math.min(...bucket3));
      expect(s.max![3]).toBe(Math.max(...bucket3));
      expect(s.avg[3]).toBeCloseTo(bucket3.reduce((n, v) => n + v, 0) / 15, 9);
    });

    it('switches to 15-min rollups when a day holds more than 3000 raw readings, with the same totals', async () => {
      const body = { series: [{ deviceId: bmsA, point: 'soc_pct' }], startMs: day0, endMs: day0 + DAY };
      const r = await history(body);
      expect(r.data.resolution).toBe('900');
      const [s] = r.data.series;
      expect(s.ts).toHaveLength(96);
      expect(s.min).toHaveLength(96);
      const raw = (await monitor.history(scopeA, body, { kind: 'raw' })).series[0]!;
      expect(raw.ts).toHaveLength(8640);
      expect(s.stats.n).toBe(8640);
      expect(s.stats.sum).toBeCloseTo(raw.stats.sum, 6);
      expect(s.stats.max).toBe(raw.stats.max);
    });

    it('answers a group of points at one resolution, in the order asked', async () => {
      const r = await history({
        series: [
          { deviceId: bmsA, point: 'soc_pct' },
          { deviceId: pcsA, point: 'p_kw' },
        ],
        startMs: day0,
        endMs: day0 + DAY,
      });
      expect(r.data.resolution).toBe('900');
      expect(r.data.series.map((s: { point: string }) => s.point)).toEqual(['soc_pct', 'p_kw']);
      expect(r.data.series[1].ts).toHaveLength(96);
    });

    it('picks 15 min for a week, 1 h for two months and days for a year; no series over 3000 points', async () => {
      const end = day0 + DAY;
      const cases: Array<[number, string]> = [
        [7 * DAY, '900'],
        [60 * DAY, '3600'],
        [365 * DAY, '86400'],
      ];
      for (const [span, resolution] of cases) {
        const r = await history({
          series: [{ deviceId: pcsA, point: 'p_kw' }],
          startMs: end - span,
          endMs: end,
        });
        expect(r.code).toBe(0);
        expect(r.data.resolution).toBe(resolution);
        const [s] = r.data.series;
        expect(s.ts.length).toBeLessThanOrEqual(MAX_POINTS_PER_SERIES);
        expect(s.ts.length).toBeGreaterThan(0);
        expect(s.stats.n).toBe(1440);
        expect(s.stats.min).toBe(Math.min(...Array.from({ length: 1440 }, (_, i) => powerAt(i))));
      }
    });
  });

  describe('bad input', () => {
    it('refuses an inverted range with 3120, a range over 400 days with 3121, a future one with 3122 — translated', async () => {
      const series = [{ deviceId: pcsA, point: 'p_kw' }];
      const inverted = await history({ series, startMs: day0 + DAY, endMs: day0 });
      expect(inverted).toMatchObject({
        code: ErrorCode.RANGE_INVERTED,
        msg: '结束时间必须晚于开始时间',
        data: null,
      });
      const long = await history({ series, startMs: day0 - 401 * DAY, endMs: day0 }, sA.token, 'en');
      expect(long).toMatchObject({
        code: ErrorCode.RANGE_TOO_LONG,
        msg: 'The time range cannot exceed 400 days',
      });
      const future = await history(
        { series, startMs: Date.now() + DAY, endMs: Date.now() + 2 * DAY },
        sA.token,
        'en',
      );
      expect(future).toMatchObject({
        code: ErrorCode.RANGE_IN_FUTURE,
        msg: 'The time range cannot start in the future',
      });
      const energy = await call(
        ctx.app,
        endpoints.monitor.energy.path,
        { siteId: siteA, granularity: 'day', startMs: day0, endMs: day0 - 1 },
        { token: sA.token, lang: 'en' },
      );
      expect(energy).toMatchObject({ code: ErrorCode.RANGE_INVERTED, msg: errorMessage(3120, 'en') });
    });

    it('accepts a range ending in the future and answers up to now', async () => {
      const now = Date.now();
      const r = await history({
        series: [{ deviceId: gwA, point: 'soc_pct' }],
        startMs: now - HOUR,
        endMs: now + HOUR,
      });
      expect(r.code).toBe(0);
      expect(r.data.endMs).toBeLessThanOrEqual(Date.now());
      expect(r.data.series[0].ts).toHaveLength(30);
    });

    it('answers a device without data with an empty series, not an error', async () => {
      const r = await history({
        series: [{ deviceId: quietA, point: 'p_kw' }],
        startMs: day0,
        endMs: day0 + DAY,
      });
      expect(r.code).toBe(0);
      expect(r.data.series[0]).toMatchObject({
        ts: [],
        avg: [],
        stats: { n: 0, avg: null, min: null, max: null },
      });
      const year = await history({
        series: [{ deviceId: quietA, point: 'p_kw' }],
        startMs: day0 - 300 * DAY,
        endMs: day0,
      });
      expect(year.data.resolution).toBe('86400');
      expect(year.data.series[0].ts).toEqual([]);
    });

    it('refuses more than 8 series with 3123 and a malformed point name with 3124', async () => {
      const many = Array.from({ length: 9 }, (_, i) => ({ deviceId: pcsA, point: `x${i}_kw` }));
      const r = await history({ series: many, startMs: day0, endMs: day0 + DAY }, sA.token, 'en');
      expect(r).toMatchObject({
        code: ErrorCode.HISTORY_TOO_MANY_SERIES,
        msg: 'At most 8 series can be chosen',
      });
      const bad = await history({
        series: [{ deviceId: pcsA, point: 'P KW' }],
        startMs: day0,
        endMs: day0 + DAY,
      });
      expect(bad).toMatchObject({ code: ErrorCode.HISTORY_POINT_INVALID, msg: '测点名称无效：P KW' });
    });
  });

  describe('scope', () => {
    it('answers another company’s device as if it did not exist (3030) on every call', async () => {
      const missing = await history(
        { series: [{ deviceId: 987_654_321, point: 'p_kw' }], startMs: day0, endMs: day0 + DAY },
        sB.token,
      );
      const foreign = await history(
        { series: [{ deviceId: pcsA, point: 'p_kw' }], startMs: day0, endMs: day0 + DAY },
        sB.token,
      );
      expect(foreign).toEqual(missing);
      expect(foreign.code).toBe(ErrorCode.DEVICE_NOT_FOUND);
      const rt = await call(ctx.app, endpoints.monitor.realtime.path, { deviceId: gwA }, { token: sB.token });
      expect(rt.code).toBe(ErrorCode.DEVICE_NOT_FOUND);
      const trend = await call(
        ctx.app,
        endpoints.monitor.realtimeTrend.path,
        { deviceId: gwA, point: 'soc_pct' },
        { token: sB.token },
      );
      expect(trend.code).toBe(ErrorCode.DEVICE_NOT_FOUND);
      const cmp = await call(
        ctx.app,
        endpoints.monitor.compare.path,
        {
          deviceId: pcsA,
          point: 'p_kw',
          a: { startMs: day0, endMs: day0 + DAY },
          b: { startMs: day0 - DAY, endMs: day0 },
        },
        { token: sB.token },
      );
      expect(cmp.code).toBe(ErrorCode.DEVICE_NOT_FOUND);
    });

    it('answers another company’s site as if it did not exist (3036) and lists only own sites', async () => {
      const opts = await call(
        ctx.app,
        endpoints.monitor.historyOptions.path,
        { siteId: siteA },
        { token: sB.token },
      );
      expect(opts.code).toBe(ErrorCode.SITE_NOT_FOUND);
      const energy = await call(
        ctx.app,
        endpoints.monitor.energy.path,
        { siteId: siteA, granularity: 'day', startMs: day0, endMs: day0 + DAY },
        { token: sB.token },
      );
      expect(energy.code).toBe(ErrorCode.SITE_NOT_FOUND);
      const own = await call(ctx.app, endpoints.monitor.realtimeOptions.path, {}, { token: sB.token });
      expect(own.data.sites.map((s: { id: number }) => s.id)).toEqual([siteB]);
    });

    it('needs the history right for history calls (5034) while the real-time viewer reads real-time data', async () => {
      const r = await history(
        { series: [{ deviceId: pcsA, point: 'p_kw' }], startMs: day0, endMs: day0 + DAY },
        sViewer.token,
      );
      expect(r.code).toBe(ErrorCode.NO_PERMISSION);
      const rt = await call(
        ctx.app,
        endpoints.monitor.realtime.path,
        { deviceId: gwA },
        { token: sViewer.token },
      );
      expect(rt.code).toBe(0);
    });
  });

  describe('real-time', () => {
    it('lists the site’s devices with the points they report, standard order first', async () => {
      const r = await call(
        ctx.app,
        endpoints.monitor.realtimeOptions.path,
        { siteId: siteA },
        { token: sA.token },
      );
      expect(r.code).toBe(0);
      expect(r.data.sites.map((s: { id: number }) => s.id)).toEqual([siteA]);
      const gw = r.data.devices.find((d: { id: number }) => d.id === gwA);
      expect(gw).toMatchObject({
        type: 'ems',
        online: true,
        points: ['run_mode', 'p_setpoint_kw', 'soc_pct'],
      });
      expect(r.data.devices.map((d: { id: number }) => d.id)).toContain(quietA);
    });

    it('answers every point with its value and own report time, the reporting interval and the stale threshold', async () => {
      const r = await call(ctx.app, endpoints.monitor.realtime.path, { deviceId: gwA }, { token: sA.token });
      expect(r.code).toBe(0);
      expect(r.data.online).toBe(true);
      expect(r.data.intervalMs).toBe(10_000);
      expect(r.data.staleAfterMs).toBe(30_000);
      const byName = Object.fromEntries(r.data.points.map((p: { name: string }) => [p.name, p]));
      expect(byName.soc_pct.value).toBe(50.1);
      expect(byName.soc_pct.ts).toBe(gwLatestTs); // the latest reading's own time, however long ago
      // The point last reported two hours ago keeps its own (old) time: the console marks it stale.
      expect(byName.run_mode.value).toBe(1);
      expect(r.data.serverNow - byName.run_mode.ts).toBeGreaterThan(HOUR);
    });

    it('reports the gateway offline for a device behind it', async () => {
      await db.update(device).set({ online: false, offlineReason: 'timeout' }).where(eq(device.id, gwA));
      const r = await call(ctx.app, endpoints.monitor.realtime.path, { deviceId: pcsA }, { token: sA.token });
      expect(r.data).toMatchObject({ online: false, offlineReason: 'timeout' });
      await db.update(device).set({ online: true, offlineReason: null }).where(eq(device.id, gwA));
    });

    it('gives each point its own report time whatever characters its name holds', async () => {
      // Devices may report any key: commas, quotes, braces and spaces reach the query as data.
      const [gw] = await db.select().from(device).where(eq(device.id, gwA));
      const [odd] = await db
        .insert(device)
        .values({
          companyId: gw!.companyId,
          siteId: siteA,
          sn: unique('ODD').slice(-30),
          type: 'meter',
          gatewayId: gwA,
        })
        .returning();
      const names = ['a,b', 'q"uote', 'br{ace}', 'with space', "it's", 'back\\slash'];
      const old = Date.now() - 2 * HOUR;
      const recent = Date.now() - MIN;
      await store([
        { deviceId: odd!.id, ts: old, points: Object.fromEntries(names.map((n, i) => [n, i])), timezone: TZ },
        { deviceId: odd!.id, ts: recent, points: { p_kw: 1 }, timezone: TZ },
      ]);
      const r = await call(
        ctx.app,
        endpoints.monitor.realtime.path,
        { deviceId: odd!.id },
        { token: sA.token },
      );
      expect(r.code).toBe(0);
      const byName = Object.fromEntries(r.data.points.map((p: { name: string }) => [p.name, p]));
      for (const [i, n] of names.entries()) expect(byName[n]).toEqual({ name: n, value: i, ts: old });
      expect(byName.p_kw).toEqual({ name: 'p_kw', value: 1, ts: recent });
    });

    it('answers a point’s last hour from raw rows as the trend', async () => {
      const r = await call(
        ctx.app,
        endpoints.monitor.realtimeTrend.path,
        { deviceId: gwA, point: 'soc_pct' },
        { token: sViewer.token },
      );
      expect(r.code).toBe(0);
      expect(r.data.resolution).toBe('raw');
      expect(r.data.series[0].ts).toHaveLength(30);
      expect(r.data.series[0].avg.at(-1)).toBe(50.1);
    });
  });

  describe('comparison and energy', () => {
    it('overlays two periods at one resolution', async () => {
      const r = await call(
        ctx.app,
        endpoints.monitor.compare.path,
        {
          deviceId: pcsA,
          point: 'p_kw',
          a: { startMs: day0, endMs: day0 + DAY },
          b: { startMs: day0 - DAY, endMs: day0 },
        },
        { token: sA.token },
      );
      expect(r.code).toBe(0);
      expect(r.data.resolution).toBe('raw');
      expect(r.data.a.series.ts).toHaveLength(1440);
      expect(r.data.b.series.ts).toHaveLength(0);
      expect(r.data.b.startMs).toBe(day0 - DAY);
      // A week against a day: both at the week's resolution.
      const w = await call(
        ctx.app,
        endpoints.monitor.compare.path,
        {
          deviceId: pcsA,
          point: 'p_kw',
          a: { startMs: day0, endMs: day0 + DAY },
          b: { startMs: day0 - 6 * DAY, endMs: day0 + DAY },
        },
        { token: sA.token },
      );
      expect(w.data.resolution).toBe('900');
      expect(w.data.a.series.ts).toHaveLength(96);
    });

    it('answers charged/discharged kWh per local day from the PCS registers, null on days without readings', async () => {
      const r = await call(
        ctx.app,
        endpoints.monitor.energy.path,
        { siteId: siteA, granularity: 'day', startMs: day0 - 2 * DAY, endMs: day0 + 3 * DAY },
        { token: sA.token },
      );
      expect(r.code).toBe(0);
      expect(r.data.timezone).toBe(TZ);
      const bars = r.data.bars;
      expect(bars).toHaveLength(5);
      expect(bars[0]).toMatchObject({ startMs: day0 - 2 * DAY, chargeKwh: null, dischargeKwh: null });
      // First day with readings: last − first of that day (23 hourly steps).
      expect(bars[1]).toMatchObject({ chargeKwh: 230, dischargeKwh: 184 });
      // Following days: last − previous day's last (24 steps).
      expect(bars[2]).toMatchObject({ chargeKwh: 240, dischargeKwh: 192 });
      expect(bars[3]).toMatchObject({ chargeKwh: 240, dischargeKwh: 192 });
      expect(bars[4]).toMatchObject({ chargeKwh: 240, dischargeKwh: 192 });
      const one = await call(
        ctx.app,
        endpoints.monitor.energy.path,
        { siteId: siteA, deviceId: pcsA, granularity: 'day', startMs: day0, endMs: day0 + DAY },
        { token: sA.token },
      );
      expect(one.data.bars).toEqual([
        { label: expect.any(String), startMs: day0, chargeKwh: null, dischargeKwh: null },
      ]);
      const notPcs = await call(
        ctx.app,
        endpoints.monitor.energy.path,
        { siteId: siteA, deviceId: bmsA, granularity: 'day', startMs: day0, endMs: day0 + DAY },
        { token: sA.token },
      );
      expect(notPcs.code).toBe(ErrorCode.DEVICE_NOT_FOUND);
    });

    it('sums the days of a local month', async () => {
      const r = await call(
        ctx.app,
        endpoints.monitor.energy.path,
        { siteId: siteA, granularity: 'month', startMs: day0 - 40 * DAY, endMs: Date.now() },
        { token: sA.token },
      );
      expect(r.code).toBe(0);
      const total = r.data.bars.reduce(
        (n: number, b: { chargeKwh: number | null }) => n + (b.chargeKwh ?? 0),
        0,
      );
      expect(total).toBe(230 + 3 * 240);
      expect(r.data.bars.every((b: { label: string }) => /^\d{4}-\d{2}$/.test(b.label))).toBe(true);
    });
  });
});
