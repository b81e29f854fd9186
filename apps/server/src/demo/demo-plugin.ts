/**
 * Plugin `ess-demo` (last; registered by app.ts only when `SIMULATOR=on`, `DEMO_SITES` > 0 and
 * the device side runs): registers and runs the simulated demo fleet against the server's
 * broker, and writes its past (`DEMO_HISTORY_DAYS`, demo-history.ts) in the background through
 * the device side's ingest; stops both in `onClose`, before anything else of ours closes (what
 * the backfill queued is stored first). On an external broker
 * (`MQTT_URL`) each simulated gateway logs in as itself (its SN and secret, never the URL's user
 * name and password), and the secrets are kept in `DATA_DIR/demo-gateways.json` for the broker's
 * password file (demo-fleet.ts). Run the demo fleet on one instance only (`SIMULATOR=off` on the
 * others): two simulators of one fleet take each other's connections over.
 *
 * The simulator (`@ess/simulator`, an optional dependency of the server: a production install
 * may leave it out with `npm ci --omit=optional`) is loaded with a dynamic `import()` of
 * demo-fleet.ts, so nothing else of the server ever loads it. When it cannot be loaded, the
 * server logs why and runs without the demo fleet.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../core/db/database';
import type { IngestPipeline } from '../devices/ingest';

/** The demo gateways' secrets on an external broker, in `DATA_DIR` (demo-fleet.ts). */
export const DEMO_CREDENTIALS_FILE = 'demo-gateways.json';

/** The folder under `DATA_DIR` where the simulated devices keep their parameters across restarts. */
export const DEMO_PARAMS_DIR = 'demo-params';

/** What the plugin needs of demo-fleet.ts (a local shape: no type import of the simulator). */
interface DemoFleetModule {
  startDemoFleet(
    db: Db,
    log: FastifyBaseLogger,
    options: {
      sites: number;
      seed: number;
      brokerUrl: string;
      speed: number;
      intervalS: number;
      historyDays: number;
      ingest: IngestPipeline;
      credentialsFile?: string;
      paramsDir?: string;
      ca?: string;
    },
    afterRegister: () => Promise<void>,
  ): Promise<{ stop(): Promise<void> }>;
}

/** The innermost error of `err`'s `cause` chain (loaders may wrap the import's error). */
function rootCause(err: unknown): { code?: string; message?: string } {
  let e = err as { code?: string; message?: string; cause?: unknown };
  while (e?.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e ?? {};
}

export const demoPlugin = fp(
  async (app) => {
    const { config, devices, log } = app;
    if (!devices) return;
    let demo: DemoFleetModule;
    try {
      demo = await import('./demo-fleet');
    } catch (err) {
      const cause = rootCause(err);
      const missing = cause.code === 'ERR_MODULE_NOT_FOUND' && /@ess\/simulator/.test(cause.message ?? '');
      log.warn(
        { err: cause.message ?? String(err) },
        missing
          ? 'Demo fleet not started: the simulator (@ess/simulator) is not installed. Install it (npm install, optional dependencies included) or set SIMULATOR=off.'
          : 'Demo fleet not started: the simulator could not be loaded. Running without it.',
      );
      return;
    }
    const plainPort = devices.brokerAddress.port;
    if (!config.mqttUrl && plainPort === undefined) {
      // The simulated gateways connect over plain TCP on the loopback interface.
      log.warn(
        'Demo fleet not started: it needs the plain MQTT port, and MQTT_PLAIN=off. Set SIMULATOR=off.',
      );
      return;
    }
    const brokerUrl = config.mqttUrl ?? `mqtt://127.0.0.1:${plainPort}`;
    const external = config.mqttUrl
      ? {
          credentialsFile: path.join(config.dataDir, DEMO_CREDENTIALS_FILE),
          ...(config.mqttCa ? { ca: readFileSync(config.mqttCa, 'utf8') } : {}),
        }
      : {};
    const fleet = await demo.startDemoFleet(
      app.db,
      log,
      {
        ...config.demo,
        brokerUrl,
        ingest: devices.ingest,
        paramsDir: path.join(config.dataDir, DEMO_PARAMS_DIR),
        ...external,
      },
      () => devices.directory.refresh(),
    );
    app.addHook('onClose', () => fleet.stop());
  },
  { name: 'ess-demo', dependencies: ['ess-config', 'ess-db', 'ess-devices'], fastify: '5.x' },
);
