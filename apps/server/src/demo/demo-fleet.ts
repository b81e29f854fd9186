/**
 * The demo fleet of `npm start` (devices issue): the simulator's fleet (apps/simulator
 * `buildFleet`) registered as sites and devices of a few demo companies, and run in-process
 * against the server's own broker.
 *
 * Registration is idempotent (by site code); the demo gateways get fresh secrets at every start
 * (the simulator is the only holder), so real devices' secrets are never touched.
 */
import { buildFleet, type FleetSite, type RunningFleet, startFleet } from '@ess/simulator';
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { company, device, site } from '../core/db/schema';
import { deviceSecretHash, newDeviceSecret } from '../devices/device-secret';
import { insertCompany } from '../modules/org/company-service';

/** Demo companies by what they run (names are data, stored in Chinese like customer data). */
const DEMO_COMPANIES = {
  ciEast: { name: '华东储能运营有限公司', type: 'agent' },
  ciSouth: { name: '粤港澳综合能源服务有限公司', type: 'agent' },
  household: { name: '户用光储用户', type: 'owner' },
  station: { name: '共享储能投资有限公司', type: 'investor' },
} as const;

type CompanyKey = keyof typeof DEMO_COMPANIES;

function companyOf(fleetSite: FleetSite, index: number): CompanyKey {
  if (fleetSite.kind === 'station') return 'station';
  if (fleetSite.kind === 'household') return 'household';
  return index % 2 === 0 ? 'ciEast' : 'ciSouth';
}

/** Registers the fleet of `sites` sites (seeded) and answers it with fresh gateway secrets. */
export async function registerDemoFleet(
  db: Db,
  options: { sites: number; seed: number },
): Promise<{ fleet: FleetSite[]; credentials: Map<string, string> }> {
  const fleet = buildFleet({ seed: options.seed, sites: options.sites });
  const credentials = new Map<string, string>();
  await db.transaction(async (tx) => {
    const [platform] = await tx.select().from(company).where(eq(company.type, 'platform')).limit(1);
    const companyIds = new Map<CompanyKey, number>();
    for (const [key, spec] of Object.entries(DEMO_COMPANIES) as [
      CompanyKey,
      (typeof DEMO_COMPANIES)[CompanyKey],
    ][]) {
      const [existing] = await tx.select().from(company).where(eq(company.name, spec.name));
      const id =
        existing?.id ??
        (await insertCompany(tx, { name: spec.name, type: spec.type, parentId: platform?.id ?? null })).id;
      companyIds.set(key, id);
    }
    for (const [i, fs] of fleet.entries()) {
      const companyId = companyIds.get(companyOf(fs, i))!;
      let [row] = await tx.select().from(site).where(eq(site.code, fs.siteCode));
      if (!row) {
        [row] = await tx
          .insert(site)
          .values({
            companyId,
            code: fs.siteCode,
            name: fs.name,
            address: fs.city,
            timezone: fs.timezone,
            latitude: fs.latitude,
            longitude: fs.longitude,
            isDemo: true,
          })
          .returning();
      }
      if (!row!.isDemo) continue; // a real site took the code: leave it alone
      const siteId = row!.id;
      const secret = newDeviceSecret();
      const existing = await tx
        .select({ id: device.id, sn: device.sn })
        .from(device)
        .where(
          inArray(
            device.sn,
            fs.devices.map((d) => d.sn),
          ),
        );
      const idBySn = new Map(existing.map((d) => [d.sn, d.id]));
      let gatewayId = idBySn.get(fs.gatewaySn);
      if (gatewayId === undefined) {
        const ems = fs.devices.find((d) => d.sn === fs.gatewaySn)!;
        [{ id: gatewayId }] = (await tx
          .insert(device)
          .values({
            companyId: row!.companyId,
            siteId,
            sn: ems.sn,
            type: ems.type,
            model: ems.model,
            mqttClientId: ems.sn,
          })
          .returning({ id: device.id })) as [{ id: number }];
      }
      await tx
        .update(device)
        .set({ secretHash: deviceSecretHash(secret), secretIssuedAt: new Date() })
        .where(and(eq(device.id, gatewayId), eq(device.siteId, siteId)));
      credentials.set(fs.gatewaySn, secret);
      for (const d of fs.devices) {
        if (d.sn === fs.gatewaySn || idBySn.has(d.sn)) continue;
        await tx.insert(device).values({
          companyId: row!.companyId,
          siteId,
          gatewayId,
          sn: d.sn,
          type: d.type,
          model: d.model,
          ratedPowerKw: d.type === 'pcs' ? fs.ratedPowerKw : d.type === 'pv' ? fs.pvKwp : null,
          capacityKwh: d.type === 'bms' ? fs.capacityKwh : null,
        });
      }
    }
  });
  return { fleet: fleet.filter((fs) => credentials.has(fs.gatewaySn)), credentials };
}

/**
 * Registers and starts the demo fleet against `brokerUrl`. `afterRegister` runs between the two
 * (the server reloads its device directory there, so the new secrets are known at connect).
 */
export async function startDemoFleet(
  db: Db,
  log: FastifyBaseLogger,
  options: { sites: number; seed: number; brokerUrl: string; speed: number; intervalS: number },
  afterRegister: () => Promise<void>,
): Promise<RunningFleet> {
  const { fleet, credentials } = await registerDemoFleet(db, options);
  await afterRegister();
  const running = await startFleet({
    url: options.brokerUrl,
    sites: fleet,
    credentials,
    seed: options.seed,
    speed: options.speed,
    intervalS: options.intervalS,
    logger: {
      info: (msg: string) => log.debug({ simulator: true }, msg),
      warn: (msg: string) => log.warn({ simulator: true }, msg),
      error: (msg: string) => log.error({ simulator: true }, msg),
    },
  });
  log.info({ sites: fleet.length, broker: options.brokerUrl }, 'demo fleet simulator running');
  return running;
}
