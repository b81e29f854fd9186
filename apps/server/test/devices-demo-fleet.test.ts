/**
 * The demo fleet registration of `npm start`: idempotent by site code (a restart finds the same
 * sites and devices), fresh gateway secrets at every start (the old ones stop working) unless the
 * kept ones are handed in and still match (an external broker's password file), four demo
 * companies, and a real site that took a demo code is left alone.
 */
import { buildFleet } from '@ess/simulator';
import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { company, device, site } from '../src/core/db/schema';
import { registerDemoFleet } from '../src/demo/demo-fleet';
import { verifyDeviceSecret } from '../src/devices/device-secret';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('demo fleet registration on %s', (engine) => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestApp(engine);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const snapshot = async (codes: string[]) => {
    const db = ctx.database.db;
    const sites = await db
      .select({ id: site.id, code: site.code, companyId: site.companyId, isDemo: site.isDemo })
      .from(site)
      .where(inArray(site.code, codes))
      .orderBy(asc(site.id));
    const devices = await db
      .select({
        id: device.id,
        sn: device.sn,
        siteId: device.siteId,
        companyId: device.companyId,
        gatewayId: device.gatewayId,
        type: device.type,
        secretHash: device.secretHash,
      })
      .from(device)
      .where(
        inArray(
          device.siteId,
          sites.map((s) => s.id),
        ),
      )
      .orderBy(asc(device.id));
    return { sites, devices };
  };

  it('registering twice gives the same sites and devices, new secrets, and four companies', async () => {
    const first = await registerDemoFleet(ctx.database.db, { sites: 5, seed: 1 });
    const codes = first.fleet.map((s) => s.siteCode);
    expect(codes).toHaveLength(5);
    const before = await snapshot(codes);
    expect(before.sites).toHaveLength(5);
    expect(before.sites.every((s) => s.isDemo)).toBe(true);
    // Every fleet device registered once, under its site, behind the site's gateway.
    const fleetSns = first.fleet.flatMap((s) => s.devices.map((d) => d.sn)).sort();
    expect(before.devices.map((d) => d.sn).sort()).toEqual(fleetSns);
    for (const fs of first.fleet) {
      const siteRow = before.sites.find((s) => s.code === fs.siteCode)!;
      const gateway = before.devices.find((d) => d.sn === fs.gatewaySn)!;
      expect(gateway).toMatchObject({ siteId: siteRow.id, gatewayId: null, companyId: siteRow.companyId });
      for (const d of fs.devices.filter((x) => x.sn !== fs.gatewaySn)) {
        expect(before.devices.find((x) => x.sn === d.sn)).toMatchObject({
          siteId: siteRow.id,
          gatewayId: gateway.id,
          type: d.type,
        });
      }
      expect(verifyDeviceSecret(first.credentials.get(fs.gatewaySn)!, gateway.secretHash)).toBe(true);
    }
    const companyIds = [...new Set(before.sites.map((s) => s.companyId))];
    expect(companyIds).toHaveLength(4);

    const companiesBefore = (await ctx.database.db.select({ id: company.id }).from(company)).length;
    const second = await registerDemoFleet(ctx.database.db, { sites: 5, seed: 1 });
    expect(second.fleet.map((s) => s.siteCode)).toEqual(codes);
    const after = await snapshot(codes);
    const withoutSecrets = (s: typeof before) => ({
      sites: s.sites,
      devices: s.devices.map(({ secretHash: _, ...d }) => d),
    });
    expect(withoutSecrets(after)).toEqual(withoutSecrets(before));
    for (const fs of second.fleet) {
      const gateway = after.devices.find((d) => d.sn === fs.gatewaySn)!;
      const fresh = second.credentials.get(fs.gatewaySn)!;
      const old = first.credentials.get(fs.gatewaySn)!;
      expect(fresh).not.toBe(old);
      expect(verifyDeviceSecret(fresh, gateway.secretHash)).toBe(true);
      expect(verifyDeviceSecret(old, gateway.secretHash)).toBe(false);
    }
    // The second run added no company.
    expect(await ctx.database.db.select({ id: company.id }).from(company)).toHaveLength(companiesBefore);
  });

  it('secrets kept from the last start are reused while they match; others are replaced', async () => {
    const first = await registerDemoFleet(ctx.database.db, { sites: 5, seed: 1 });
    const [a, b] = first.fleet.map((s) => s.gatewaySn);
    const keep = new Map([
      [a!, first.credentials.get(a!)!],
      [b!, 'not-the-secret'],
    ]);
    const second = await registerDemoFleet(ctx.database.db, { sites: 5, seed: 1, keep });
    const hashOf = async (sn: string) =>
      (await ctx.database.db.select({ h: device.secretHash }).from(device).where(eq(device.sn, sn)))[0]!.h;
    expect(second.credentials.get(a!)).toBe(first.credentials.get(a!));
    expect(verifyDeviceSecret(second.credentials.get(a!)!, await hashOf(a!))).toBe(true);
    expect(second.credentials.get(b!)).not.toBe('not-the-secret');
    expect(verifyDeviceSecret(second.credentials.get(b!)!, await hashOf(b!))).toBe(true);
    expect(verifyDeviceSecret(first.credentials.get(b!)!, await hashOf(b!))).toBe(false);
  });

  it('a real (non-demo) site that took a demo site code is left alone', async () => {
    const db = ctx.database.db;
    const taken = buildFleet({ seed: 1, sites: 6 }).at(-1)!; // the site a sixth demo site would be
    const [owner] = await db.select({ id: company.id }).from(company).orderBy(asc(company.id)).limit(1);
    const [real] = await db
      .insert(site)
      .values({ companyId: owner!.id, code: taken.siteCode, name: 'Real site' })
      .returning();

    const { fleet, credentials } = await registerDemoFleet(db, { sites: 6, seed: 1 });
    expect(fleet.map((s) => s.siteCode)).not.toContain(taken.siteCode);
    expect(fleet).toHaveLength(5);
    expect(credentials.has(taken.gatewaySn)).toBe(false);
    expect(await db.select().from(device).where(eq(device.siteId, real!.id))).toEqual([]);
    const [after] = await db.select().from(site).where(eq(site.id, real!.id));
    expect(after).toMatchObject({ isDemo: false, name: 'Real site', companyId: owner!.id });
  });
});
