/**
 * The time base of the fleet views (issue 14 item 5; contract `fleetTimeBase`, docs/api.md
 * "Time bases"): the dashboard and the cockpits answer the zone their "today" curve is in — the
 * sites' zone when they all share one, whatever zone the caller names; the caller's zone (UTC
 * when none) once the sites are in several — and the curve starts at that zone's midnight. A
 * zone Intl does not know is refused naming the field.
 */
import {
  dashboardResponse,
  ErrorCode,
  endpoints,
  errorMessage,
  type FleetTimeBase,
  localDayStart,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { device, site } from '../src/core/db/schema';
import { call, type SignedIn, signIn } from './support/client';
import { addCompany, addRole, addStaff, conforms, uniqueIp } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

const QUARTER = 15 * 60_000;

describe.each(engines)('fleet time base on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let admin: SignedIn;
  let companyId: number;

  async function addSite(code: string, timezone: string): Promise<number> {
    const [row] = await db
      .insert(site)
      .values({ companyId, code, name: code, timezone })
      .returning({ id: site.id });
    const siteId = row!.id;
    const [ems] = await db
      .insert(device)
      .values({ companyId, siteId, sn: `EMS-${code}`, type: 'ems', online: true })
      .returning({ id: device.id });
    const [pcs] = await db
      .insert(device)
      .values({ companyId, siteId, sn: `PCS-${code}`, type: 'pcs', gatewayId: ems!.id, ratedPowerKw: 100 })
      .returning({ id: device.id });
    return pcs!.id;
  }

  /** A 15-minute rollup of the PCS's `p_kw` (one reading of `kw`) starting at `start`. */
  async function addBucket(pcs: number, start: number, kw: number) {
    const at = new Date(start);
    await db.execute(sql`
      INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
      VALUES (${pcs}, 900, ${at}, 'p_kw', 1, ${kw}, ${kw}, ${kw}, ${at}, ${kw}, ${at}, ${kw})`);
  }

  const dashboard = (timezone?: string) =>
    call(ctx.app, endpoints.dashboard.overview.path, timezone ? { timezone } : {}, { token: admin.token });

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    companyId = (await addCompany(db, { name: 'Zone储能公司' })).id;
    const staff = await addStaff(db, {
      companyId,
      roleIds: [await addRole(db, { companyId, isAdmin: true })],
    });
    admin = await signIn(ctx.app, staff.account, staff.password);
    const shanghai = localDayStart(Date.now(), 'Asia/Shanghai');
    for (const code of ['ZONE-SH1', 'ZONE-SH2']) {
      const pcs = await addSite(code, 'Asia/Shanghai');
      // The last bucket of yesterday and the first of today, Shanghai time.
      await addBucket(pcs, shanghai - QUARTER, -50);
      await addBucket(pcs, shanghai, 40);
    }
  });
  afterAll(async () => ctx?.close());

  it('is the sites’ zone when they all share one, whatever zone the caller names', async () => {
    const midnight = localDayStart(Date.now(), 'Asia/Shanghai');
    for (const zone of ['UTC', 'America/New_York', undefined]) {
      const answer = await dashboard(zone);
      expect(answer.code).toBe(0);
      const data = conforms(dashboardResponse, answer.data);
      expect(data.timeBase).toEqual({ timezone: 'Asia/Shanghai', basis: 'sites' } satisfies FleetTimeBase);
      // Today's curve from Shanghai's midnight: its first bucket, both sites summed; not yesterday's last.
      expect(data.powerCurve.ts[0]).toBe(midnight);
      expect(data.powerCurve.batteryKw[0]).toBe(80);
      expect(data.powerCurve.ts).not.toContain(midnight - QUARTER);
    }
    const cockpit = await call(
      ctx.app,
      endpoints.screen.cockpit.path,
      { timezone: 'UTC' },
      { token: admin.token },
    );
    expect(cockpit.code).toBe(0);
    expect(cockpit.data.timeBase).toEqual({ timezone: 'Asia/Shanghai', basis: 'sites' });
    expect(cockpit.data.powerCurve.ts[0]).toBe(midnight);
  });

  it('is the caller’s zone (UTC when none) once the sites are in several, the curve from its midnight', async () => {
    const pcs = await addSite('ZONE-BER', 'Europe/Berlin');
    const newYork = localDayStart(Date.now(), 'America/New_York');
    await addBucket(pcs, newYork - QUARTER, -10);
    await addBucket(pcs, newYork, 10);

    const data = conforms(dashboardResponse, (await dashboard('America/New_York')).data);
    expect(data.timeBase).toEqual({ timezone: 'America/New_York', basis: 'caller' });
    expect(data.powerCurve.ts).toContain(newYork);
    expect(data.powerCurve.ts).not.toContain(newYork - QUARTER);
    expect(data.powerCurve.ts.every((t) => t >= newYork)).toBe(true);

    const none = conforms(dashboardResponse, (await dashboard()).data);
    expect(none.timeBase).toEqual({ timezone: 'UTC', basis: 'caller' });
    expect(none.powerCurve.ts.every((t) => t >= localDayStart(Date.now(), 'UTC'))).toBe(true);

    // The public cockpit answers each requested zone with its own time base.
    const publicIn = async (timezone?: string) =>
      (
        await call(ctx.app, endpoints.screen.cockpitPublic.path, timezone ? { timezone } : {}, {
          ip: uniqueIp(),
        })
      ).data.timeBase;
    expect(await publicIn('Asia/Tokyo')).toEqual({ timezone: 'Asia/Tokyo', basis: 'caller' });
    expect(await publicIn()).toEqual({ timezone: 'UTC', basis: 'caller' });
  });

  it('refuses a zone Intl does not know, naming the field', async () => {
    for (const lang of ['zh', 'en'] as const) {
      const answer = await call(
        ctx.app,
        endpoints.dashboard.overview.path,
        { timezone: 'Mars/Olympus_Mons' },
        { token: admin.token, lang },
      );
      expect(answer.code).toBe(ErrorCode.PARAM_ERROR);
      expect(answer.msg).toContain('timezone');
      expect(answer.msg).not.toBe(errorMessage(ErrorCode.PARAM_ERROR, lang));
    }
  });
});
