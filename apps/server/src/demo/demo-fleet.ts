/**
 * The demo fleet of `npm start` (devices issue): the simulator's fleet (apps/simulator
 * `buildFleet`) registered as sites and devices of a few demo companies, and run in-process
 * against the server's own broker.
 *
 * Registration is idempotent (by site code); real devices' secrets are never touched. With the
 * server's own broker the demo gateways get fresh secrets at every start (the in-process
 * simulator is the only holder). On an external broker (`MQTT_URL`) the broker must know each
 * demo gateway's SN and secret (its password file), like a real device's: the secrets are then
 * kept in a credentials file (`DATA_DIR/demo-gateways.json`, `{ "<SN>": "<secret>" }`, the
 * simulator's `--credentials` format, mode 0600) for the operator to load into the broker, and
 * reused at the next start while they still match the stored hash — so the broker's password
 * file stays valid across restarts. Each simulated gateway logs in with its SN and its secret,
 * never with the server's credentials.
 *
 * A site of the fleet that carries a `touTemplateId` gets, when it is first registered, a ToU
 * scheme of its company made from that tariff template and assigned to it: the server pushes it
 * to the site's EMS at connect, which follows it (the other sites run their built-in strategy).
 *
 * Start (`startDemoFleet`): registration and the credentials file at once; then, in the
 * background, the fleet's past (demo-history.ts: the model up to each new site's registration),
 * the live simulator from where that past ends (or from what the server stored, after a
 * restart), and the past written through the ingest while the fleet runs. One gateway drops off
 * now and then (the simulator's `dropouts`).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { localTimeOf, schemeFromTemplate, TOU_TEMPLATES } from '@ess/contract';
import {
  buildFleet,
  type FleetSite,
  type RunningFleet,
  startFleet,
  TARIFF_OF_CITY,
  withoutCredentials,
} from '@ess/simulator';
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { company, device, site, touScheme } from '../core/db/schema';
import { closeDays } from '../devices/closed-days';
import { deviceSecretHash, newDeviceSecret, verifyDeviceSecret } from '../devices/device-secret';
import type { IngestPipeline } from '../devices/ingest';
import { writeTariffVersions } from '../devices/tariff-history';
import { BillService } from '../modules/bill/bill-service';
import { insertCompany } from '../modules/org/company-service';
import { touToday } from '../modules/tou/tou-routes';
import { TouService } from '../modules/tou/tou-service';
import { type DemoSite, demoStartStates, planDemoHistory, writeDemoHistory } from './demo-history';
import { seedDemoProjects } from './demo-projects';

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

/**
 * Registers the fleet of `sites` sites (seeded) and answers it with its gateways' secrets: the
 * one in `keep` for a gateway whose stored hash it matches, a fresh one (stored as its hash) for
 * every other; and the registered sites (ids, registration time: `now`, default the database's
 * clock). Sites registered now that carry a `touTemplateId` get their ToU scheme
 * ({@link assignDemoSchemes}).
 */
export async function registerDemoFleet(
  db: Db,
  options: {
    sites: number;
    seed: number;
    keep?: ReadonlyMap<string, string>;
    now?: Date;
    /** Days of past the fleet writes: the tariff versions of new sites start there (default 0). */
    historyDays?: number;
  },
): Promise<{ fleet: FleetSite[]; credentials: Map<string, string>; sites: DemoSite[] }> {
  const fleet = buildFleet({ seed: options.seed, sites: options.sites });
  const credentials = new Map<string, string>();
  const sites: DemoSite[] = [];
  const created: Array<{ fs: FleetSite; siteId: number; companyId: number }> = [];
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
            ...(options.now ? { createdAt: options.now, updatedAt: options.now } : {}),
          })
          .returning();
        created.push({ fs, siteId: row!.id, companyId: row!.companyId });
      }
      if (!row!.isDemo) continue; // a real site took the code: leave it alone
      const siteId = row!.id;
      const existing = await tx
        .select({ id: device.id, sn: device.sn, siteId: device.siteId, secretHash: device.secretHash })
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
      const kept = options.keep?.get(fs.gatewaySn);
      const current = existing.find((d) => d.id === gatewayId);
      if (kept !== undefined && current?.siteId === siteId && verifyDeviceSecret(kept, current.secretHash)) {
        credentials.set(fs.gatewaySn, kept);
      } else {
        const secret = newDeviceSecret();
        await tx
          .update(device)
          .set({ secretHash: deviceSecretHash(secret), secretIssuedAt: new Date() })
          .where(and(eq(device.id, gatewayId), eq(device.siteId, siteId)));
        credentials.set(fs.gatewaySn, secret);
      }
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
      sites.push({ site: fs, siteId, gatewayId, createdAt: row!.createdAt });
    }
  });
  await assignDemoSchemes(
    db,
    created,
    (options.now ?? new Date()).getTime() - (options.historyDays ?? 0) * 86_400_000,
  );
  // Projects over the operators' first C&I sites, bound from where the written past starts.
  if (created.length) {
    await seedDemoProjects(
      db,
      (options.now ?? new Date()).getTime() - (options.historyDays ?? 0) * 86_400_000,
    );
  }
  return { fleet: fleet.filter((fs) => credentials.has(fs.gatewaySn)), credentials, sites };
}

/**
 * Gives each newly registered site with a `touTemplateId` a ToU scheme of its company from that
 * template — arbitrage at the site's rated power within 10–95 % SOC, this year's seasons, named
 * after the region (`上海分时电价套利（演示）`, data stored in Chinese like the demo's other
 * names) — reusing one of that name, and assigns it to the site beside the scheme's other sites.
 * Only at registration: what an operator assigns later stays. The site's tariff version starts on
 * the local day its written past starts (`pastStartMs`), so the past is priced by that scheme.
 */
async function assignDemoSchemes(
  db: Db,
  created: ReadonlyArray<{ fs: FleetSite; siteId: number; companyId: number }>,
  pastStartMs: number,
): Promise<void> {
  const tou = new TouService(db);
  const all = { all: true } as const;
  const today = touToday();
  for (const { fs, siteId, companyId } of created) {
    const template = TOU_TEMPLATES.find((t) => t.id === fs.touTemplateId);
    if (!template) {
      await regionalTariff(db, fs, siteId, pastStartMs, today);
      continue;
    }
    const name = `${template.region.zh}分时电价套利（演示）`;
    const [existing] = await db
      .select({ id: touScheme.id })
      .from(touScheme)
      .where(and(eq(touScheme.companyId, companyId), eq(touScheme.name, name)));
    const schemeId =
      existing?.id ??
      (
        await tou.create(
          all,
          {
            companyId,
            name,
            document: schemeFromTemplate(template, {
              year: Number(today.slice(0, 4)),
              powerKw: fs.ratedPowerKw,
              socMinPct: 10,
              socMaxPct: 95,
              lang: 'zh',
            }),
          },
          today,
          'zh',
        )
      ).id;
    const others = await db.select({ id: site.id }).from(site).where(eq(site.touSchemeId, schemeId));
    await tou.assign(all, schemeId, [...others.map((o) => o.id), siteId], {
      effectiveFrom: localTimeOf(pastStartMs, fs.timezone).date,
      createdBy: null,
    });
  }
}

/**
 * A site that runs its EMS's built-in strategy (no ToU scheme of ours) is still billed at its
 * region's tariff (`TARIFF_OF_CITY`, the one its built-in strategy follows): a tariff version
 * without a scheme, from the start of its written past, so revenue statistics value its energy.
 */
async function regionalTariff(db: Db, fs: FleetSite, siteId: number, pastStartMs: number, today: string) {
  const template = TOU_TEMPLATES.find((t) => t.id === TARIFF_OF_CITY[fs.siteCode.slice(0, 3)]);
  if (!template) return;
  await db.transaction((tx) =>
    writeTariffVersions(tx, {
      siteIds: [siteId],
      scheme: {
        id: null,
        name: `${template.region.zh}分时电价（演示）`,
        version: 1,
        document: schemeFromTemplate(template, {
          year: Number(today.slice(0, 4)),
          powerKw: fs.ratedPowerKw,
          socMinPct: 10,
          socMaxPct: 95,
          lang: 'zh',
        }),
        twoPart: null,
      },
      effectiveFrom: localTimeOf(pastStartMs, fs.timezone).date,
      createdBy: null,
    }),
  );
}

/** Where and how the demo fleet runs. */
export interface DemoFleetOptions {
  sites: number;
  seed: number;
  speed: number;
  intervalS: number;
  /** Days of past written for newly registered sites (demo-history.ts; 0 = none). */
  historyDays: number;
  /** The ingest the past is written through. */
  ingest: IngestPipeline;
  /** The broker the simulated gateways connect to; a user name and password in it are not used. */
  brokerUrl: string;
  /**
   * An external broker's credentials file (`DATA_DIR/demo-gateways.json`): the secrets in it are
   * reused while they match, and it is written with the fleet's secrets. Absent: fresh secrets.
   */
  credentialsFile?: string;
  /** PEM of the CA that signed an external `mqtts://` broker's certificate (`MQTT_CA`). */
  ca?: string;
  /**
   * Where the simulated devices keep their parameters (`DATA_DIR/demo-params`, one JSON file per
   * gateway), so that what an operator set survives a restart; absent: kept in memory.
   */
  paramsDir?: string;
}

/** The secrets of a credentials file; none when it is missing or unreadable (logged). */
function readCredentials(file: string, log: FastifyBaseLogger): Map<string, string> {
  if (!existsSync(file)) return new Map();
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    return new Map(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch (err) {
    log.warn(
      { file, err: (err as Error).message },
      'demo gateway credentials unreadable: new secrets are issued',
    );
    return new Map();
  }
}

/** Writes `credentials` to `file` (mode 0600, replaced whole: written aside, then renamed). */
function writeCredentials(file: string, credentials: ReadonlyMap<string, string>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, `${JSON.stringify(Object.fromEntries(credentials), null, 2)}\n`, { mode: 0o600 });
  renameSync(aside, file);
}

/** The demo fleet while it runs. */
export interface DemoFleet {
  /** Resolves once the live simulator runs (its gateways connecting), or the start failed (logged). */
  readonly live: Promise<void>;
  /** Resolves once the fleet's past is written (or stopped, or failed: logged). */
  readonly history: Promise<void>;
  /** Stops the backfill (what is queued is stored), then the simulator (clean goodbyes). */
  stop(): Promise<void>;
}

/**
 * Registers the demo fleet and starts it against `options.brokerUrl` (module comment):
 * registration and the credentials file before it resolves, `afterRegister` after them (the
 * server reloads its device directory there, so the new secrets are known at connect); the
 * rest in the background — the model states the live run starts from, the first reading of each
 * new site's past, the simulator, the rest of the past. With `credentialsFile` the secrets are
 * kept there; a gateway the broker refuses keeps retrying, and comes online once the broker
 * knows its secret.
 */
export async function startDemoFleet(
  db: Db,
  log: FastifyBaseLogger,
  options: DemoFleetOptions,
  afterRegister: () => Promise<void>,
): Promise<DemoFleet> {
  const file = options.credentialsFile;
  const keep = file ? readCredentials(file, log) : undefined;
  const { fleet, credentials, sites } = await registerDemoFleet(db, {
    ...options,
    ...(keep ? { keep } : {}),
  });
  if (file) {
    writeCredentials(file, credentials);
    const fresh = [...credentials].filter(([sn, secret]) => keep?.get(sn) !== secret).length;
    log.info(
      { file, gateways: credentials.size, newSecrets: fresh },
      fresh > 0
        ? 'Demo gateways on an external broker: add their SNs and secrets from this file to the broker (docs/device-protocol.md "External broker"), or they stay offline.'
        : 'Demo gateways on an external broker: secrets unchanged (the broker already knows them, if it was given this file).',
    );
  }
  await afterRegister();

  const stopping = new AbortController();
  let running: RunningFleet | undefined;
  let markLive: () => void = () => {};
  const live = new Promise<void>((resolve) => {
    markLive = resolve;
  });
  const demoSites = sites.filter((s) => credentials.has(s.site.gatewaySn));
  const startLive = async (states: Awaited<ReturnType<typeof demoStartStates>>) => {
    if (stopping.signal.aborted) return;
    running = await startFleet({
      url: options.brokerUrl,
      sites: fleet,
      credentials,
      seed: options.seed,
      speed: options.speed,
      intervalS: options.intervalS,
      states,
      dropouts: true,
      ...(options.paramsDir ? { paramsDir: options.paramsDir } : {}),
      ...(options.ca ? { mqtt: { ca: options.ca } } : {}),
      logger: {
        info: (msg: string) => log.debug({ simulator: true }, msg),
        warn: (msg: string) => log.warn({ simulator: true }, msg),
        error: (msg: string) => log.error({ simulator: true }, msg),
      },
    });
    log.info(
      { sites: fleet.length, broker: withoutCredentials(options.brokerUrl) },
      'demo fleet simulator running',
    );
    markLive();
  };
  let liveStarted = false;
  const history = (async () => {
    let plans: Awaited<ReturnType<typeof planDemoHistory>> = [];
    let states: Awaited<ReturnType<typeof demoStartStates>> = new Map();
    try {
      plans = await planDemoHistory(db, demoSites, options.historyDays);
      states = await demoStartStates(db, demoSites, plans, {
        seed: options.seed,
        nowMs: Date.now(),
        signal: stopping.signal,
      });
    } catch (err) {
      log.error({ err }, 'demo fleet: its past could not be prepared; the fleet starts without it');
      plans = [];
    }
    try {
      const written = await writeDemoHistory(db, options.ingest, log, plans, {
        seed: options.seed,
        signal: stopping.signal,
        onFirst: () => {
          liveStarted = true;
          return startLive(states);
        },
      });
      if (written.complete && plans.length > 0) {
        // The past is stored: its days closed now — energy per tier, maximum demand (the hourly
        // task would take up to an hour).
        const tiers = await closeDays(db, {
          nowMs: Date.now(),
          lookbackDays: options.historyDays + 2,
          signal: stopping.signal,
        });
        log.info(tiers, 'demo fleet: energy per tier and maximum demand of its past computed');
        // ...then last month's bills of its projects (the bill-draft task would wait for the 1st).
        const bills = await new BillService(db).draftAll(Date.now());
        log.info(bills, 'demo fleet: last month’s bills of its projects drafted');
      }
    } catch (err) {
      if (!stopping.signal.aborted) log.error({ err }, 'demo fleet: writing its past failed');
      if (!liveStarted)
        await startLive(states).catch((e: unknown) => log.error({ err: e }, 'demo fleet not started'));
    } finally {
      markLive();
    }
  })();
  return {
    live,
    history,
    async stop() {
      stopping.abort();
      await history;
      await running?.stop();
    },
  };
}
