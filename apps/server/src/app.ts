/**
 * Builds the ESS Console server as a Fastify instance that never listens (fastify/demo style):
 * tests call `buildApp` and `app.inject`; `main.ts` owns listening and shutdown.
 *
 * The app is assembled from named plugins (fastify-plugin, each declaring what it depends on
 * and decorating what it makes), in this order:
 *
 * 1. external plugins: helmet, rate limit, OpenAPI (+ reference page), websocket;
 * 2. `ess-config` (core/config.ts): `config`;
 * 3. `ess-db` (core/db/db-plugin.ts): `db` — opened, migrated and seeded here unless passed in;
 * 4. `ess-devices` (devices/device-service.ts): `devices` — broker, ingest, tracker, commands;
 * 5. `ess-jobs` (jobs/jobs-plugin.ts): `scheduler`, `alarmMail`;
 * 6. `ess-services` (below): `sessions`, `fleet`, `live`, `touPush`, `registry`, `debugSessions`;
 * 7. `ess-routes` (below): `/ws`, the `/api-bms` calls (`apiRoutes`), the built console;
 * 8. `ess-demo` (demo/demo-plugin.ts): the simulated fleet, when configured.
 *
 * Everything is built and started before `buildApp` answers; nothing is set on the app after.
 * `app.close()` releases everything in reverse order (the HTTP server first, the database last).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { API_PREFIX, ErrorCode, LIVE_PATH } from '@ess/contract';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { registerAudit } from './access/audit';
import { type ApiRouteAccess, registerAuthHook } from './access/auth-hook';
import { seedIfEmpty } from './access/seed';
import { SessionService } from './access/session-service';
import { type Config, configPlugin } from './core/config';
import type { Db } from './core/db/database';
import { dbPlugin } from './core/db/db-plugin';
import { failure, registerEnvelope } from './core/http/envelope';
import { RequestLogController, registerRequestLog } from './core/http/request-log';
import { demoPlugin } from './demo/demo-plugin';
import type { DeliveryOptions } from './devices/delivery';
import { type DeviceServiceOptions, devicesPlugin } from './devices/device-service';
import {
  downloadBaseUrl,
  FirmwareStore,
  type FirmwareStoreOptions,
  mintOtaUrl,
} from './devices/firmware-store';
import { FleetSnapshot } from './devices/fleet-snapshot';
import { LiveHub } from './devices/live-hub';
import { LiveRelay } from './devices/live-relay';
import { type OtaBatchOptions, OtaBatchService } from './devices/ota-batches';
import { OtaLive } from './devices/ota-live';
import { ParamsPushService } from './devices/params-push';
import { TouPushService, touTarget } from './devices/tou-push';
import { jobsPlugin } from './jobs/jobs-plugin';
import type { SchedulerOptions } from './jobs/scheduler';
import { alarmRoutes } from './modules/alarm/alarm-routes';
import { logRoutes } from './modules/audit/log-routes';
import { billRoutes } from './modules/bill/bill-routes';
import { billDraftKind } from './modules/bill/bill-task';
import { dashboardRoutes } from './modules/dashboard/dashboard-routes';
import { debugRoutes } from './modules/debug/debug-routes';
import { DebugService } from './modules/debug/debug-service';
import { employeeRoutes } from './modules/employee/employee-routes';
import { exportRoutes } from './modules/export/export-routes';
import { firmwareRoutes, otaDownloadRoutes } from './modules/firmware/firmware-routes';
import { jobRoutes } from './modules/job/job-routes';
import { menuRoutes } from './modules/menu/menu-routes';
import { monitorRoutes } from './modules/monitor/monitor-routes';
import { siteMonitorRoutes } from './modules/monitor/site-monitor-routes';
import { companyRoutes } from './modules/org/company-routes';
import { departmentRoutes } from './modules/org/department-routes';
import { employeeAdminRoutes } from './modules/org/employee-admin-routes';
import { roleRoutes } from './modules/org/role-routes';
import { paramsRoutes } from './modules/params/params-routes';
import { projectRoutes } from './modules/project/project-routes';
import { deadLetterRoutes } from './modules/registry/dead-letter-routes';
import { registryRoutes } from './modules/registry/registry-routes';
import { RegistryService } from './modules/registry/registry-service';
import { revenueRoutes } from './modules/revenue/revenue-routes';
import { energyTierKind } from './modules/revenue/tier-task';
import { screenRoutes } from './modules/screen/screen-routes';
import { touOptimalRoutes } from './modules/tou/optimal-routes';
import { touRoutes } from './modules/tou/tou-routes';
import { upgradeRoutes } from './modules/upgrade/upgrade-routes';
import { userRoutes } from './modules/user/user-routes';

declare module 'fastify' {
  interface FastifyInstance {
    /** Sessions, tokens and revocation (plugin `ess-services`). */
    sessions: SessionService;
    /** Fleet snapshot for the dashboard, screens and live push (plugin `ess-services`). */
    fleet: FleetSnapshot;
    /** Live push over `/ws` (plugin `ess-services`). */
    live: LiveHub;
    /** Delivery of ToU schemes to the EMS (plugin `ess-services`). */
    touPush: TouPushService;
    /** Delivery of device parameters, reads and reports, initialization (plugin `ess-services`). */
    paramsPush: ParamsPushService;
    /** Firmware package bytes: uploads, download tokens, downloads (plugin `ess-services`). */
    firmware: FirmwareStore;
    /** Upgrade batches: waves, limits, deadlines, what devices report (plugin `ess-services`). */
    upgrades: OtaBatchService;
    /** Sites and devices (plugin `ess-services`); a site's new time zone goes out with its ToU scheme. */
    registry: RegistryService;
  }
}

export interface BuildAppOptions {
  config: Config;
  /**
   * An open database the caller migrated, seeded and closes (tests, benchmarks). Default: the
   * app opens the configured one, migrates and seeds it, and closes it with the app.
   */
  db?: Db;
  /** Fastify logger option; default: pino at `config.logLevel`. */
  logger?: FastifyServerOptions['logger'];
  /**
   * The device side: true (default) runs it as configured (MQTT_URL, or the embedded broker on
   * MQTT_PORT); an object runs it with these overrides (e.g. `{ mqttPort: 0 }`); false runs
   * none (`app.devices` is null: tests without a broker).
   */
  devices?: boolean | Partial<DeviceServiceOptions>;
  /**
   * The scheduler: true (default) starts its timer when the app is ready; false registers the
   * tasks but fires them only when called (`app.scheduler.fire`, tests); an object gives its
   * options (instance id, clock, lease) and starts it.
   */
  scheduler?: boolean | SchedulerOptions;
  /** Run the demo fleet when the config asks for it (SIMULATOR=on, DEMO_SITES > 0); default true. */
  demo?: boolean;
  /** Options of the ToU delivery (clock, sweep, retries; tests); default as delivery.ts says. */
  delivery?: DeliveryOptions;
  /** Options of the upgrade batches (clock, instance id, download limit; tests); default from the config. */
  upgrade?: OtaBatchOptions;
  /** Options of the firmware store (clock, chunk size, size limit; tests). */
  firmware?: Omit<FirmwareStoreOptions, 'baseUrl'>;
}

/** The whole server, started and ready for `inject` or `listen`. */
export async function buildApp({
  config,
  db,
  logger,
  devices = true,
  scheduler = true,
  demo = true,
  delivery,
  upgrade,
  firmware,
}: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? { level: config.logLevel },
    // One line per answered request, at debug unless failed, slow or a security event.
    logController: new RequestLogController(config.slowRequestMs),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Opening and migrating a large database may take minutes; main.ts owns the timeouts.
    pluginTimeout: 0,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the answers (OpenAPI) and are checked by the tests against the
  // contract; at run time answers are written with plain JSON.stringify, which is several times
  // cheaper than re-validating every answer with zod.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerEnvelope(app);
  registerRequestLog(app);

  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Ant Design injects its CSS-in-JS as <style> elements.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'", 'ws:', 'wss:'],
        fontSrc: ["'self'", 'data:'],
        upgradeInsecureRequests: null,
      },
    },
    // Plain-HTTP installs are common on site networks; HSTS belongs to the TLS proxy, and
    // browsers refuse (and log) the opener policy on plain-HTTP origins.
    strictTransportSecurity: false,
    crossOriginOpenerPolicy: false,
  });
  await app.register(fastifyRateLimit, { global: false });
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'ESS Console API',
        version: '0.1.0',
        description:
          'Every call is POST with a JSON body and answers HTTP 200 `{code, msg, data}`; code 0 is success. ' +
          'Send the access token in `X-Token`. See docs/api.md for the session handshake and the error catalogue.',
      },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'X-Token' } } },
      security: [{ token: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api-docs' });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });

  await app.register(configPlugin, { config });
  await app.register(dbPlugin, {
    db,
    prepare: async (opened, log) => {
      const seeded = await seedIfEmpty(opened, {
        adminPassword: config.adminPassword,
        scryptLogN: config.auth.scryptLogN,
      });
      if (seeded) log.info('Seeded a new database: sign in as admin with ADMIN_PASSWORD (default admin123).');
    },
  });
  await app.register(devicesPlugin, {
    enabled: devices !== false,
    overrides: typeof devices === 'object' ? devices : {},
  });
  await app.register(jobsPlugin, {
    start: scheduler !== false,
    ...(typeof scheduler === 'object' ? { scheduler } : {}),
  });
  await app.register(servicesPlugin, { delivery, upgrade, firmware });
  await app.register(routesPlugin);
  if (demo && config.demo.simulator && config.demo.sites > 0 && app.devices) {
    await app.register(demoPlugin);
  }
  return app;
}

/**
 * Plugin `ess-services`: the services the routes and the live push share. The live hub and the
 * ToU delivery follow the device side (`start(devices)`); the registry tells the ToU delivery
 * about a site's new time zone and about gateways moved between sites.
 */
const servicesPlugin = fp(
  async (
    app,
    options: {
      delivery?: DeliveryOptions;
      upgrade?: OtaBatchOptions;
      firmware?: Omit<FirmwareStoreOptions, 'baseUrl'>;
    },
  ) => {
    const { config, db, devices } = app;
    app.decorate('sessions', new SessionService(db, config.auth));
    app.decorate('fleet', new FleetSnapshot(db));
    const live = new LiveHub(db, app.sessions, app.fleet, app.log);
    app.decorate('live', live);
    live.start(devices);
    app.addHook('onClose', () => live.close());
    if (config.databaseUrl) {
      // Other instances on the same database: what one stores reaches browsers on all of them.
      const relay = new LiveRelay(db, config.databaseUrl, app.log);
      await relay.start((change) => live.remoteChange(change));
      live.useRelay(relay);
      app.addHook('onClose', () => relay.close());
    }
    const touPush = new TouPushService(db, app.log, options.delivery);
    app.decorate('touPush', touPush);
    touPush.start(devices);
    // Delivery state changes reach the console live (`delivery:tou`, scoped by the site's company).
    const unpublish = touPush.publishTo(live);
    app.addHook('onClose', async () => {
      unpublish();
      touPush.stop();
    });
    // Device parameters (issue 15): `delivery:params` live, reports and reads through the devices.
    const paramsPush = new ParamsPushService(db, app.log, options.delivery);
    app.decorate('paramsPush', paramsPush);
    paramsPush.start(devices);
    const unpublishParams = paramsPush.publishTo(live);
    app.addHook('onClose', async () => {
      unpublishParams();
      paramsPush.stop();
    });
    // Re-push of unanswered ToU and parameter sends: a scheduled task (one instance per fire),
    // not a timer of each delivery service.
    app.taskKinds.register({
      kind: 'delivery-retry',
      label: { zh: '下发重试', en: 'Delivery retry' },
      description: {
        zh: '释放已过期的下发租约，并按重试间隔重新下发未应答的分时电价和设备参数',
        en: 'Frees delivery leases that ran out and re-sends unanswered ToU schemes and device parameters when their retry is due',
      },
      params: [],
      defaultCron: '*/15 * * * * *',
      defaultTimeoutS: 120,
      system: { cron: '*/15 * * * * *', misfire: 'skip' },
      run: async () => {
        await touPush.delivery.sweep();
        await paramsPush.delivery.sweep();
        return null;
      },
    });
    // Energy per tier of closed days (issue 17 item 3): a seeded system task.
    app.taskKinds.register(energyTierKind(db));
    // Monthly bills (issue 17 item 5): last month's bills drafted on the 1st, a seeded system task.
    app.taskKinds.register(billDraftKind(db));
    // Firmware packages (issue 16): bytes in the database; stale uploads and expired download
    // tokens swept on every instance (idempotent deletes).
    const firmware = new FirmwareStore(db, {
      ...options.firmware,
      baseUrl: () =>
        downloadBaseUrl(config.mail.publicUrl, `http://localhost:${config.port}`, app.server.address()),
    });
    app.decorate('firmware', firmware);
    app.scheduler.register({
      name: 'firmware-sweep',
      schedule: { everyMs: 60_000 },
      claimed: false,
      run: () => firmware.sweep(),
    });
    // Upgrade batches (issue 16): the engine follows the device side; its changes reach the
    // console on the live channel `upgrade`; the sweep (deadlines, waves, starts) runs on every
    // instance as a local task of the scheduler.
    const upgrades = new OtaBatchService(db, app.log, mintOtaUrl(app), {
      maxDownloads: config.otaMaxDownloads,
      ...options.upgrade,
    });
    app.decorate('upgrades', upgrades);
    upgrades.start(devices);
    const otaLive = new OtaLive(db, app.log, live);
    const unpublishOta = upgrades.onChange((change) => otaLive.take(change));
    app.scheduler.register({
      name: 'upgrade-sweep',
      schedule: { everyMs: upgrades.sweepEveryMs },
      claimed: false,
      run: () => upgrades.sweep(),
    });
    app.addHook('onClose', async () => {
      unpublishOta();
      otaLive.close();
      upgrades.stop();
    });
    app.decorate(
      'registry',
      new RegistryService(db, {
        touSiteTimezoneChanged: (siteId) => touPush.timezoneChanged(siteId),
        // A gateway moved between sites: each site's scheme goes out again to its gateway now;
        // what the site's previous gateway ran says nothing about its new one.
        siteGatewaysChanged: (siteIds) =>
          touPush.delivery.reset(siteIds.map(touTarget), { forgetApplied: true }),
      }),
    );
    // Transparent debugging relays through whichever device side the app has at call time.
    app.decorate('debugSessions', new DebugService(db, () => app.devices));
  },
  { name: 'ess-services', dependencies: ['ess-config', 'ess-db', 'ess-devices', 'ess-jobs'], fastify: '5.x' },
);

/**
 * Plugin `ess-routes`: the live push socket, the `/api-bms` calls in one encapsulated context
 * (auth hook and audit apply to them only; their access rules are collected in `apiRoutes`),
 * then the built console with history fallback.
 */
const routesPlugin = fp(
  async (app) => {
    app.get(LIVE_PATH, { websocket: true, schema: { hide: true } }, (socket, request) =>
      app.live.attach(socket, request),
    );
    const apiRoutes: ApiRouteAccess[] = [];
    app.decorate('apiRoutes', apiRoutes);
    await app.register(async (api) => {
      registerAuthHook(api, api.sessions, api.db, apiRoutes);
      registerAudit(api, api.db);
      await api.register(userRoutes);
      await api.register(employeeRoutes);
      await api.register(menuRoutes);
      await api.register(registryRoutes);
      await api.register(deadLetterRoutes);
      await api.register(dashboardRoutes);
      await api.register(companyRoutes);
      await api.register(departmentRoutes);
      await api.register(employeeAdminRoutes);
      await api.register(roleRoutes);
      await api.register(logRoutes);
      await api.register(touRoutes);
      await api.register(touOptimalRoutes);
      await api.register(alarmRoutes);
      await api.register(exportRoutes);
      await api.register(screenRoutes);
      await api.register(siteMonitorRoutes);
      await api.register(monitorRoutes);
      await api.register(paramsRoutes);
      await api.register(debugRoutes);
      await api.register(upgradeRoutes);
      await api.register(firmwareRoutes);
      await api.register(jobRoutes);
      await api.register(billRoutes);
      await api.register(projectRoutes);
      await api.register(revenueRoutes);
    });
    // The devices' firmware download (issue 16): outside /api-bms, a token instead of a session.
    await app.register(otaDownloadRoutes);
    registerConsole(app, app.config.webDistDir);
  },
  { name: 'ess-routes', dependencies: ['ess-config', 'ess-db', 'ess-services'], fastify: '5.x' },
);

/** Serves the built SPA; unknown GETs that want HTML get index.html (history fallback). */
function registerConsole(app: FastifyInstance, distDir: string): void {
  const built = existsSync(path.join(distDir, 'index.html'));
  if (built) {
    app.register(fastifyStatic, {
      root: distDir,
      wildcard: false,
      index: false,
      // The build's .br / .gz copies go to browsers that accept them (apps/web/vite.config.ts).
      preCompressed: true,
      maxAge: '1h',
      immutable: false,
      // index.html names the hashed assets of one build: it must be revalidated, or browsers keep
      // asking for the previous build's assets for up to an hour after a deploy.
      setHeaders: (reply, filePath) => {
        // (Also its compressed copies, should a build have made them.)
        if (/^index\.html(\.br|\.gz)?$/.test(path.basename(filePath)))
          reply.header('cache-control', 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith(API_PREFIX)) {
      return reply
        .code(404)
        .send(failure(request.lang, ErrorCode.PARAM_ERROR, {}, `no call ${request.method} ${request.url}`));
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return reply
        .code(404)
        .send(failure(request.lang, ErrorCode.PARAM_ERROR, {}, `no route ${request.method} ${request.url}`));
    }
    if (!built) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built yet: run `npm run build:web` (npm start does it for you).');
    }
    if (path.extname(request.url.split('?')[0] ?? '') !== '') return reply.code(404).send('Not found');
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}
