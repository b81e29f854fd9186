/**
 * Test support for projects and what their bills read, put straight into the database (the bill
 * and meter-swap tests): a self-investment project with its investors, a site bound to it with a
 * tariff version on the flat scheme (./tou.ts {@link FLAT_TOU}: off-peak 0.3, peak 1.2 CNY/kWh),
 * devices, a declared storage meter, a day of stored ToU periods as the `energy-tier` task writes
 * them, and `telemetry_rollup` rows. Every figure a test computes its bill from (shares, ratios,
 * CT, registers, kWh) is an argument the test passes, not a default here.
 */
import type { TwoPartTariff } from '@ess/contract';
import type { Db } from '../../src/core/db/database';
import {
  device,
  energyTierDay,
  project,
  projectInvestor,
  projectMeter,
  projectSite,
  site,
  siteTariff,
  type telemetryRollup,
} from '../../src/core/db/schema';
import { unique } from './fixtures';
import { addCompanyUnder } from './org';
import { FLAT_TOU } from './tou';

/**
 * A self-investment project of `companyId` (contract from 2025-01-01, 10 years; no maintenance
 * or insurance; costs borne by the investors), `status` 'in_operation' unless given, keeping
 * `ownerSharePct`, with one new investor company below `companyId` per entry of
 * `investorRatiosPct` (its ratio, %, sorted in that order).
 */
export async function addSelfInvestmentProject(
  db: Db,
  options: {
    companyId: number;
    ownerSharePct: number;
    investorRatiosPct: readonly number[];
    name?: string;
    status?: string;
  },
): Promise<{ projectId: number; investorIds: number[] }> {
  const { companyId } = options;
  const investorIds: number[] = [];
  for (const _ of options.investorRatiosPct) {
    investorIds.push(await addCompanyUnder(db, { type: 'investor', parentId: companyId }));
  }
  const [p] = await db
    .insert(project)
    .values({
      companyId,
      name: options.name ?? unique('项目'),
      contractStart: '2025-01-01',
      contractYears: 10,
      status: options.status ?? 'in_operation',
      incomeMode: 'self_investment',
      ownerSharePct: options.ownerSharePct,
      maintenanceCnyPerMonth: 0,
      insuranceCnyPerMonth: 0,
      costBearer: 'investors',
    })
    .returning({ id: project.id });
  const projectId = p!.id;
  await db.insert(projectInvestor).values(
    options.investorRatiosPct.map((ratioPct, i) => ({
      companyId,
      projectId,
      investorCompanyId: investorIds[i]!,
      ratioPct,
      sort: i + 1,
    })),
  );
  return { projectId, investorIds };
}

/**
 * A site of `companyId` bound to `projectId` from 2025-06-01 (open-ended), with one tariff
 * version from 2025-01-01 on {@link FLAT_TOU} (scheme `schemeName`, version 1; `twoPart` when
 * given, none stored otherwise). Code `unique(codePrefix)` cut to 30 characters; name, and zone
 * Asia/Shanghai, unless given.
 */
export async function addFlatSite(
  db: Db,
  options: {
    companyId: number;
    projectId: number;
    codePrefix: string;
    name?: string;
    timezone?: string;
    schemeName?: string;
    twoPart?: TwoPartTariff;
  },
): Promise<{ siteId: number; code: string; tariffId: number }> {
  const { companyId, projectId } = options;
  const code = unique(options.codePrefix).slice(0, 30);
  const [s] = await db
    .insert(site)
    .values({
      companyId,
      code,
      name: options.name ?? unique('站点'),
      timezone: options.timezone ?? 'Asia/Shanghai',
    })
    .returning({ id: site.id });
  const siteId = s!.id;
  await db.insert(projectSite).values({ companyId, projectId, siteId, boundFrom: '2025-06-01' });
  const [tariff] = await db
    .insert(siteTariff)
    .values({
      companyId,
      siteId,
      effectiveFrom: '2025-01-01',
      schemeName: options.schemeName ?? 'flat',
      schemeVersion: 1,
      document: FLAT_TOU,
      ...(options.twoPart ? { twoPart: options.twoPart } : {}),
    })
    .returning({ id: siteTariff.id });
  return { siteId, code, tariffId: tariff!.id };
}

/** A device of `type` with serial `sn` on `siteId` (behind gateway `gatewayId` when given). */
export async function addSiteDevice(
  db: Db,
  options: { companyId: number; siteId: number; type: string; sn: string; gatewayId?: number },
): Promise<number> {
  const [row] = await db.insert(device).values(options).returning({ id: device.id });
  return row!.id;
}

/**
 * Declares `deviceId` a storage meter of `projectId`: CT `ctRatio`, PT `ptRatio` (1 unless
 * given), read on the secondary side unless `readsSecondary` is false.
 */
export async function declareMeter(
  db: Db,
  options: {
    companyId: number;
    projectId: number;
    deviceId: number;
    ctRatio: number;
    ptRatio?: number;
    readsSecondary?: boolean;
  },
): Promise<void> {
  await db.insert(projectMeter).values({
    companyId: options.companyId,
    projectId: options.projectId,
    deviceId: options.deviceId,
    ctRatio: options.ctRatio,
    ptRatio: options.ptRatio ?? 1,
    readsSecondary: options.readsSecondary ?? true,
  });
}

/** A register pair of a stored period and the kWh the test computed from it. */
export interface RegisterKwh {
  /** Register at the start and at the end of the period it moves in (kWh as read). */
  from: number;
  to: number;
  /** Primary kWh: (to − from) × multiplier, as the test works it out. */
  kwh: number;
}

/**
 * 2025-07-03 (Shanghai) of `deviceId` on a {@link FLAT_TOU} tariff version, as the `energy-tier`
 * task stores it from the registers: 00:00–12:00 off-peak at 0.3 CNY/kWh charging `charge.kwh`
 * (charge register `from` → `to`, discharge register at `discharge.from`), 12:00–24:00 peak at
 * 1.2 CNY/kWh discharging `discharge.kwh` (discharge register `from` → `to`, charge register at
 * `charge.to`).
 */
export async function addFlatTierDay(
  db: Db,
  options: {
    companyId: number;
    siteId: number;
    deviceId: number;
    siteTariffId: number;
    multiplier: number;
    charge: RegisterKwh;
    discharge: RegisterKwh;
  },
): Promise<void> {
  const { charge, discharge } = options;
  const base = Date.UTC(2025, 6, 2, 16); // 2025-07-03 00:00 Shanghai
  const row = {
    companyId: options.companyId,
    siteId: options.siteId,
    deviceId: options.deviceId,
    day: '2025-07-03',
    siteTariffId: options.siteTariffId,
    multiplier: options.multiplier,
    source: 'registers',
  };
  await db.insert(energyTierDay).values([
    {
      ...row,
      startAt: new Date(base),
      endAt: new Date(base + 12 * 3_600_000),
      startHhmm: '00:00',
      endHhmm: '12:00',
      tier: 'off_peak',
      priceCnyPerKwh: 0.3,
      chargedKwh: charge.kwh,
      dischargedKwh: 0,
      chargeStart: charge.from,
      chargeEnd: charge.to,
      dischargeStart: discharge.from,
      dischargeEnd: discharge.from,
    },
    {
      ...row,
      startAt: new Date(base + 12 * 3_600_000),
      endAt: new Date(base + 24 * 3_600_000),
      startHhmm: '12:00',
      endHhmm: '00:00',
      tier: 'peak',
      priceCnyPerKwh: 1.2,
      chargedKwh: 0,
      dischargedKwh: discharge.kwh,
      chargeStart: charge.to,
      chargeEnd: charge.to,
      dischargeStart: discharge.from,
      dischargeEnd: discharge.to,
    },
  ]);
}

/**
 * A `telemetry_rollup` row of `point` of `deviceId`: the bucket of `bucketS` seconds (900
 * unless given) starting at `startMs` (UTC ms) holding `samples` (n, sum, min, max; first the
 * first sample and last the last one, both stamped at the bucket's start).
 */
export function rollupRow(
  deviceId: number,
  point: string,
  startMs: number,
  samples: readonly number[],
  bucketS = 900,
): typeof telemetryRollup.$inferInsert {
  const at = new Date(startMs);
  return {
    deviceId,
    bucketS,
    bucketStart: at,
    point,
    n: samples.length,
    sum: samples.reduce((a, b) => a + b, 0),
    min: Math.min(...samples),
    max: Math.max(...samples),
    firstTs: at,
    firstValue: samples[0]!,
    lastTs: at,
    lastValue: samples[samples.length - 1]!,
  };
}
