/**
 * Builds the ESS Console server as a Fastify instance that never listens (fastify/demo style):
 * tests call `buildApp` and `app.inject`; `main.ts` owns listening and shutdown.
 *
 * Order: external plugins (helmet, rate limit, OpenAPI), our services as decorators, the
 * `/api-bms` calls, then the built console with history fallback.
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
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { registerAudit } from './access/audit';
import { type ApiRouteAccess, registerAuthHook } from './access/auth-hook';
import { SessionService } from './access/session-service';
import type { Config } from './core/config';
import type { Db } from './core/db/database';
import { failure, registerEnvelope } from './core/http/envelope';
import type { DeviceService } from './devices/device-service';
import { DashboardService } from './devices/fleet-snapshot';
import { LiveHub } from './devices/live-hub';
import { TouPushService } from './devices/tou-push';
import { AlarmMailer } from './jobs/alarm-mail';
import { alarmRoutes } from './modules/alarm/alarm-routes';
import { logRoutes } from './modules/audit/log-routes';
import { dashboardRoutes } from './modules/dashboard/dashboard-routes';
import { employeeRoutes } from './modules/employee/employee-routes';
import { exportRoutes } from './modules/export/export-routes';
import { menuRoutes } from './modules/menu/menu-routes';
import { monitorRoutes } from './modules/monitor/monitor-routes';
import { siteMonitorRoutes } from './modules/monitor/site-monitor-routes';
import { companyRoutes } from './modules/org/company-routes';
import { departmentRoutes } from './modules/org/department-routes';
import { employeeAdminRoutes } from './modules/org/employee-admin-routes';
import { roleRoutes } from './modules/org/role-routes';
import { registryRoutes } from './modules/registry/registry-routes';
import { RegistryService } from './modules/registry/registry-service';
import { screenRoutes } from './modules/screen/screen-routes';
import { touRoutes } from './modules/tou/tou-routes';
import { userRoutes } from './modules/user/user-routes';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    sessions: SessionService;
    dashboard: DashboardService;
    /** The device side (broker, ingest); null when the app runs without it (some tests). */
    devices: DeviceService | null;
    live: LiveHub;
  }
}

export interface BuildAppOptions {
  config: Config;
  db: Db;
  /** Fastify logger option; default: pino at `config.logLevel`. */
  logger?: FastifyServerOptions['logger'];
  /** The started device service, whose traffic feeds the live push. */
  devices?: DeviceService | null;
}

/** The whole server, ready for `inject` or `listen`. Closing it does not close `db`. */
export async function buildApp({
  config,
  db,
  logger,
  devices = null,
}: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? { level: config.logLevel },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the answers (OpenAPI) and are checked by the tests against the
  // contract; at run time answers are written with plain JSON.stringify, which is several times
  // cheaper than re-validating every answer with zod.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerEnvelope(app);

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

  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('sessions', new SessionService(db, config.auth));
  app.decorate('dashboard', new DashboardService(db));
  app.decorate('devices', devices);
  const live = new LiveHub(db, app.sessions, app.dashboard, app.log);
  app.decorate('live', live);
  live.start(devices);
  app.addHook('onClose', () => live.close());
  // ToU delivery to the EMS: like the live hub, re-targeted with start(devices) once they run.
  const touPush = new TouPushService(db, app.log);
  app.decorate('touPush', touPush);
  touPush.start(devices);
  app.addHook('onClose', async () => touPush.stop());
  // Alarm mail job (digests, delivery, retries): like the live hub, re-targeted once devices run.
  const alarmMail = new AlarmMailer(db, app.log, {
    smtpUrl: config.mail.smtpUrl,
    from: config.mail.from,
    publicUrl: config.mail.publicUrl,
    intervalS: config.mail.jobIntervalS,
  });
  app.decorate('alarmMail', alarmMail);
  alarmMail.start(devices);
  app.addHook('onClose', () => alarmMail.stop());
  // Sites and devices; a site's new time zone goes out with its ToU scheme.
  app.decorate(
    'registry',
    new RegistryService(db, { touSiteTimezoneChanged: (siteId) => touPush.timezoneChanged(siteId) }),
  );

  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  app.get(LIVE_PATH, { websocket: true, schema: { hide: true } }, (socket, request) =>
    live.attach(socket, request),
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
    await api.register(dashboardRoutes);
    await api.register(companyRoutes);
    await api.register(departmentRoutes);
    await api.register(employeeAdminRoutes);
    await api.register(roleRoutes);
    await api.register(logRoutes);
    await api.register(touRoutes);
    await api.register(alarmRoutes);
    await api.register(exportRoutes);
    await api.register(screenRoutes);
    await api.register(siteMonitorRoutes);
    await api.register(monitorRoutes);
  });

  registerConsole(app, config.webDistDir);
  return app;
}

/** Serves the built SPA; unknown GETs that want HTML get index.html (history fallback). */
function registerConsole(app: FastifyInstance, distDir: string): void {
  const built = existsSync(path.join(distDir, 'index.html'));
  if (built) {
    app.register(fastifyStatic, {
      root: distDir,
      wildcard: false,
      index: false,
      maxAge: '1h',
      immutable: false,
      // index.html names the hashed assets of one build: it must be revalidated, or browsers keep
      // asking for the previous build's assets for up to an hour after a deploy.
      setHeaders: (reply, filePath) => {
        if (path.basename(filePath) === 'index.html') reply.header('cache-control', 'no-cache');
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
