/**
 * The demo projects' bills price the storage's own energy (issue 17 item 5 review, demo-projects.ts):
 * the demo declares no storage meter — its meter `MTR-…` is the site's grid connection meter, which
 * billed the site's consumption as "charged" (6,785 kWh charged, 0 discharged, −4,701 CNY in two
 * days) — so its bills read the PCS's charge/discharge registers. The demo fleet is registered at
 * an injected instant, two days of its past written through the ingest, priced per ToU period
 * (`computeMissingTierDays`) and the month drafted: every line of a C&I project is a PCS's, with
 * energy charged AND discharged, and discharging earns more than charging costs on its
 * peak-valley tariff (net > 0). The self-investment (Shanghai) project's site is billed with a
 * max-demand basic charge: its bill has a demand line with the month's maximum demand measured
 * with storage and without, priced at 40.8 CNY/kW·month × the bound share of the month; the other
 * has none. Its EMS runs demand control (simulator fleet.ts `demandLimitKwOf`), so storage LOWERS
 * the month's maximum demand: measured < baseline and the change is positive (without the target
 * the valley charging on top of the load set the peak: 295 kW against 209 kW, −3,514 CNY).
 *
 * The past is a whole month (August 2026, the site's first month), as the demo drafts it: the
 * demand charge is on the month's peak, which falls on a dull workday. Over a few days of low load
 * (the two days before used to be a weekend: 137 kW peak without storage) the peak stays under
 * the target, and charging held at the target sets a measured maximum above it — a window no
 * month's bill has. Two sites: the two projects' sites (fleet positions 0 and 1) and no others,
 * to keep the month's backfill short. No wall clock: registration, ingest and tier task take the
 * test's.
 */
import { BILL_DEFAULT_TIME_ZONE, localTimeOf } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { device, project, projectMeter, projectSite, siteDemandDay } from '../src/core/db/schema';
import { registerDemoFleet } from '../src/demo/demo-fleet';
import { planDemoHistory, writeDemoHistory } from '../src/demo/demo-history';
import { closeDays } from '../src/devices/closed-days';
import { DeviceDirectory } from '../src/devices/device-directory';
import { IngestPipeline } from '../src/devices/ingest';
import { BillService } from '../src/modules/bill/bill-service';
import { createTestApp, engines, type TestContext } from './support/test-app';

const SEED = 1;
const SITES = 2;
const DAYS = 31;
/** Registration: 2026-09-01 00:00 Asia/Shanghai; the past covers August (local). */
const REGISTERED = Date.UTC(2026, 7, 31, 16);
const clock = () => REGISTERED + 3_600_000;

describe.each(engines)('demo project bills on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
  }, 120_000);
  afterAll(async () => {
    await ctx?.close();
  });

  it('bill the PCS registers: charged > 0, discharged > 0, net > 0; no grid meter declared', async () => {
    const { sites } = await registerDemoFleet(db, {
      sites: SITES,
      seed: SEED,
      now: new Date(REGISTERED),
      historyDays: DAYS,
    });
    const directory = new DeviceDirectory(db, 5_000, ctx.app.log, clock);
    await directory.refresh();
    const ingest = new IngestPipeline(db, directory, ctx.app.log, {}, { now: clock });
    const plans = await planDemoHistory(db, sites, DAYS);
    expect((await writeDemoHistory(db, ingest, ctx.app.log, plans, { seed: SEED })).complete).toBe(true);
    await closeDays(db, { nowMs: clock(), lookbackDays: DAYS + 2 });

    const demo = await db.select().from(project).where(sql`${project.name} LIKE '%（演示）'`);
    expect(demo).toHaveLength(2);
    expect(await db.select().from(projectMeter), 'the demo declares no storage meter').toEqual([]);
    const month = localTimeOf(REGISTERED - 1, BILL_DEFAULT_TIME_ZONE).date.slice(0, 7);
    expect(month).toBe('2026-08');
    const service = new BillService(db, clock);
    for (const p of demo) {
      const { id } = await service.draft({ all: true }, p.id, month, null, 'en');
      const bill = await service.detail({ all: true }, id);
      const doc = bill.document;
      const types = await db
        .select({ id: device.id, type: device.type })
        .from(device)
        .where(eq(device.projectId, p.id));
      const typeOf = new Map(types.map((d) => [d.id, d.type]));
      expect(doc.lines.length, p.name).toBeGreaterThan(0);
      // every line reads a PCS's registers (× 1), and says so
      expect(doc.lines.every((l) => typeOf.get(l.meterId) === 'pcs' && l.deviceType === 'pcs')).toBe(true);
      expect(doc.lines.every((l) => l.multiplier === 1)).toBe(true);
      const { chargedKwh, dischargedKwh, energyNetCny } = doc.totals;
      expect(chargedKwh, `${p.name} charged`).toBeGreaterThan(0);
      expect(dischargedKwh, `${p.name} discharged`).toBeGreaterThan(0);
      // storage-sized, not site-sized: under two full cycles a day of the site's batteries
      expect(p.capacityKwh).toBeGreaterThan(0);
      expect(chargedKwh + dischargedKwh).toBeLessThan(p.capacityKwh! * 2 * 2 * DAYS);
      expect(energyNetCny, `${p.name} discharge value > charging cost`).toBeGreaterThan(0);
      expect(bill.valueCny).toBeGreaterThan(bill.costCny);
      if (p.incomeMode === 'self_investment') {
        // The Shanghai project's site has a max-demand basic charge of 40.8 CNY/kW·month
        // (demo-projects.ts): its month's maximum demand is measured from the simulated grid
        // meter and PCS, with storage and without, prorated by the bound days.
        expect(doc.demand, 'one demand line').toHaveLength(1);
        const d = doc.demand[0]!;
        expect(d.measuredKw).toBeGreaterThan(0);
        expect(d.baselineKw).toBeGreaterThan(0);
        // demand control: storage lowers the month's maximum demand, the change is a saving
        expect(d.measuredKw!, 'max demand with storage < without').toBeLessThan(d.baselineKw!);
        expect(d.changeCny, 'demand charge change').toBeGreaterThan(0);
        expect(d.baselineCny).toBeCloseTo(40.8 * d.baselineKw! * d.monthFraction, 2);
        expect(d.measuredCny).toBeCloseTo(40.8 * d.measuredKw! * d.monthFraction, 2);
        expect(d.changeCny).toBeCloseTo(d.baselineCny - d.measuredCny, 2);
        expect(doc.totals.demandChangeCny).toBe(d.changeCny);
        // Read from the closed days' stored maxima; the same as from every quarter hour of them.
        const [bound] = await db.select().from(projectSite).where(eq(projectSite.projectId, p.id));
        const days = await db.select().from(siteDemandDay).where(eq(siteDemandDay.siteId, bound!.siteId));
        expect(days.length, 'August days closed').toBe(DAYS);
        await db.delete(siteDemandDay).where(eq(siteDemandDay.siteId, bound!.siteId));
        await service.draft({ all: true }, p.id, month, null, 'en');
        expect((await service.detail({ all: true }, id)).document.demand).toEqual(doc.demand);
      } else {
        expect(doc.demand, 'a single-part tariff: no demand line').toEqual([]);
      }
    }
  }, 240_000);
});
