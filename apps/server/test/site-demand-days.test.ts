/**
 * Stored maximum demand of closed days (devices/site-demand.ts `computeMissingDemandDays`, table
 * `site_demand_day`) and the month's demand read from them (`siteDemand`), on both engines. A
 * Shanghai site with a grid meter and a PCS; July 2025's quarter hours by hand:
 *
 *   07-03 02:00  grid 180, PCS −100 (charging)     → with storage 180, without 180 − 100 = 80
 *   07-03 19:00  grid 270, PCS 150 (discharging)   → 270 / 420
 *   07-10 14:00  grid 300, no PCS figure (idle)    → 300 / 300
 *   07-20 15:00  grid 280, PCS 250                 → 280 / 530
 *
 * Month: with storage max(180, 270, 300, 280) = 300 kW, without max(80, 420, 300, 530) = 530 kW.
 * Days stored: 07-03 270 / 420, 07-10 300 / 300, 07-20 280 / 530 (the days with a daily rollup of
 * the grid meter). The month read from the stored days equals the month read from the quarter
 * hours; a stored day is read (a changed row shows), a part day is not; a row whose sources are no
 * longer the site's is ignored and computed again; an open day is not stored.
 */
import { localDateStart } from '@ess/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { site, siteDemandDay, telemetryRollup } from '../src/core/db/schema';
import { closeDays } from '../src/devices/closed-days';
import { computeMissingDemandDays, siteDemand } from '../src/devices/site-demand';
import { unique } from './support/fixtures';
import { addCompanyUnder } from './support/org';
import { addSiteDevice, rollupRow } from './support/project';
import { createTestApp, engines, type TestContext } from './support/test-app';

const ZONE = 'Asia/Shanghai';
const at = (local: string) => Date.parse(`${local}:00+08:00`);
const JULY = { startMs: localDateStart('2025-07-01', ZONE), endMs: localDateStart('2025-08-01', ZONE) };
/** 2 August 2025, noon in Shanghai: every July day is closed. */
const AUGUST_2 = at('2025-08-02T12:00');

describe.each(engines)('stored maximum demand of closed days on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let companyId: number;

  /** A Shanghai site with a grid meter and a PCS, and July's quarter hours of the module note. */
  async function addSite() {
    const [s] = await db
      .insert(site)
      .values({ companyId, code: unique('DD').slice(0, 30), name: unique('需量站'), timezone: ZONE })
      .returning({ id: site.id });
    const siteId = s!.id;
    const grid = await addSiteDevice(db, { companyId, siteId, type: 'meter', sn: unique('MTR') });
    const pcs = await addSiteDevice(db, { companyId, siteId, type: 'pcs', sn: unique('PCS') });
    const q = (id: number, local: string, kw: number) => rollupRow(id, 'p_kw', at(local), [kw]);
    const day = (id: number, date: string) => rollupRow(id, 'p_kw', at(`${date}T00:00`), [1], 86_400);
    await db
      .insert(telemetryRollup)
      .values([
        q(grid, '2025-07-03T02:00', 180),
        q(pcs, '2025-07-03T02:00', -100),
        q(grid, '2025-07-03T19:00', 270),
        q(pcs, '2025-07-03T19:00', 150),
        q(grid, '2025-07-10T14:00', 300),
        q(grid, '2025-07-20T15:00', 280),
        q(pcs, '2025-07-20T15:00', 250),
        day(grid, '2025-07-03'),
        day(grid, '2025-07-10'),
        day(grid, '2025-07-20'),
        day(pcs, '2025-07-03'),
        day(pcs, '2025-07-20'),
      ]);
    return { siteId, grid, pcs };
  }

  const stored = async (siteId: number) =>
    (
      await db
        .select({
          day: siteDemandDay.day,
          timezone: siteDemandDay.timezone,
          sources: siteDemandDay.sources,
          max: siteDemandDay.maxDemandKw,
          baseline: siteDemandDay.baselineMaxDemandKw,
        })
        .from(siteDemandDay)
        .where(eq(siteDemandDay.siteId, siteId))
        .orderBy(siteDemandDay.day)
    ).map((r) => ({
      ...r,
      max: r.max === null ? null : Number(r.max),
      baseline: r.baseline === null ? null : Number(r.baseline),
    }));

  const july = async (siteId: number, part = JULY) =>
    (await siteDemand(db, [{ siteId, ...part }])).get(siteId);

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    companyId = await addCompanyUnder(db, { type: 'agent', parentId: null });
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('closed days are stored with their sources; the month read from them equals the quarter hours', async () => {
    const { siteId, grid, pcs } = await addSite();
    const fromQuarters = await july(siteId);
    expect(fromQuarters).toEqual({ maxDemandKw: 300, baselineMaxDemandKw: 530 });

    expect(
      await computeMissingDemandDays(db, { nowMs: AUGUST_2, lookbackDays: 60, siteIds: [siteId] }),
    ).toEqual({
      sites: 1,
      days: 3,
    });
    const sources = `batteryKw:${pcs}:p_kw;gridKw:${grid}:p_kw`;
    expect(await stored(siteId)).toEqual([
      { day: '2025-07-03', timezone: ZONE, sources, max: 270, baseline: 420 },
      { day: '2025-07-10', timezone: ZONE, sources, max: 300, baseline: 300 },
      { day: '2025-07-20', timezone: ZONE, sources, max: 280, baseline: 530 },
    ]);
    // Idempotent: nothing missing the second time.
    expect(
      await computeMissingDemandDays(db, { nowMs: AUGUST_2, lookbackDays: 60, siteIds: [siteId] }),
    ).toEqual({
      sites: 0,
      days: 0,
    });
    expect(await july(siteId)).toEqual(fromQuarters);

    // The stored day is what is read: a changed row shows in the month…
    const the20th = and(eq(siteDemandDay.siteId, siteId), eq(siteDemandDay.day, '2025-07-20'));
    await db.update(siteDemandDay).set({ baselineMaxDemandKw: 999 }).where(the20th);
    expect(await july(siteId)).toEqual({ maxDemandKw: 300, baselineMaxDemandKw: 999 });
    // …a part of a day is read from its quarter hours (20 July from 12:00: 280 / 530, not 999)…
    expect(await july(siteId, { startMs: at('2025-07-20T12:00'), endMs: JULY.endMs })).toEqual({
      maxDemandKw: 280,
      baselineMaxDemandKw: 530,
    });
    // …and a range that leaves the day out does not see it (1–15 July: 300 / 420).
    expect(await july(siteId, { startMs: JULY.startMs, endMs: localDateStart('2025-07-16', ZONE) })).toEqual({
      maxDemandKw: 300,
      baselineMaxDemandKw: 420,
    });

    // Another grid meter on the site: the stored rows no longer hold (their sources differ), the
    // month is read from the quarter hours again (the second meter has none), and the next run
    // stores the three days again with the new sources.
    const second = await addSiteDevice(db, { companyId, siteId, type: 'meter', sn: unique('MTR') });
    expect(await july(siteId)).toEqual(fromQuarters);
    expect(
      await computeMissingDemandDays(db, { nowMs: AUGUST_2, lookbackDays: 60, siteIds: [siteId] }),
    ).toEqual({
      sites: 1,
      days: 3,
    });
    const now = await stored(siteId);
    expect(now.map((r) => [r.day, r.sources, r.baseline])).toEqual([
      ['2025-07-03', `batteryKw:${pcs}:p_kw;gridKw:${grid}:p_kw;gridKw:${second}:p_kw`, 420],
      ['2025-07-10', `batteryKw:${pcs}:p_kw;gridKw:${grid}:p_kw;gridKw:${second}:p_kw`, 300],
      ['2025-07-20', `batteryKw:${pcs}:p_kw;gridKw:${grid}:p_kw;gridKw:${second}:p_kw`, 530],
    ]);
    expect(await july(siteId)).toEqual(fromQuarters);
  });

  it('a day is stored once closed (30 minutes after its end), with the energy per tier (closeDays: the energy-tier task)', async () => {
    const { siteId } = await addSite();
    // 21 July 00:10 in Shanghai: the 20th ended 10 minutes ago, not closed yet.
    const run = await closeDays(db, {
      nowMs: at('2025-07-21T00:10'),
      lookbackDays: 30,
      siteIds: [siteId],
    });
    expect(run.demandDays).toBe(2);
    expect((await stored(siteId)).map((r) => r.day)).toEqual(['2025-07-03', '2025-07-10']);
    // The month so far reads the open day from its quarter hours.
    expect(await july(siteId)).toEqual({ maxDemandKw: 300, baselineMaxDemandKw: 530 });
    // 21 July 00:45: closed.
    const later = await closeDays(db, {
      nowMs: at('2025-07-21T00:45'),
      lookbackDays: 30,
      siteIds: [siteId],
    });
    expect(later.demandDays).toBe(1);
    expect((await stored(siteId)).map((r) => r.day)).toEqual(['2025-07-03', '2025-07-10', '2025-07-20']);
  });
});
