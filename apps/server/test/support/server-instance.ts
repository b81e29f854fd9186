/**
 * Test support: one server instance in a process of its own, as a second instance is deployed
 * (two-instances.test.ts and scale-out.test.ts spawn it with `node --import tsx`; the parent side
 * is support/instance-process.ts). It builds the whole app from the environment, like main.ts
 * (DATABASE_URL, MQTT_URL, DATA_DIR, LOG_LEVEL, MAIL_JOB_INTERVAL_S, …), except that:
 *  - the ingest share group is `ESS_TEST_SHARE_GROUP` (the test's own, so that servers of other
 *    test files on the same broker never take its messages);
 *  - by default it does not listen for HTTP (the test talks to it over the IPC channel) and its
 *    scheduler is not started. With `ESS_TEST_LISTEN=on` it is a whole instance as deployed: it
 *    listens on HOST:PORT (PORT=0: a free port, told in `{ready: true, port}`) and its scheduler
 *    runs, with `claimed_by` = `ESS_TEST_INSTANCE_ID` (default: the scheduler's own id) and a
 *    lease of `ESS_TEST_JOB_LEASE_MS` (default: the scheduler's 2 minutes; the configuration has
 *    no setting for it).
 *
 * Logs go to stdout as pino JSON lines (the test reads them). The process loads the server's
 * modules, tells `{loaded: true}` and waits for `{start: true}` before it builds the app (so that
 * the test can start two instances at the same moment), then tells `{ready: true}`. IPC requests
 * (`{id, ask}`), each answered `{id, answer}`:
 *  - `online` (`ids`): those of the gateways `ids` this instance's tracker holds online;
 *  - `settled`: answered once every delivery task this instance started has finished (ToU and
 *    parameters) and its upgrade engine is idle;
 *  - `stats`: `{acknowledgedData, messages}` — device data messages this instance acknowledged
 *    (PUBACK sent: stored or settled) and received, since it started;
 *  - `close`: closes the app (as at SIGTERM), answers, then the process exits.
 */
import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/core/config';

interface Request {
  id: number;
  ask: 'online' | 'settled' | 'stats' | 'close';
  /** `online`: the gateways asked about. */
  ids?: number[];
}

async function main(): Promise<void> {
  const send = (message: object) => process.send?.(message);
  const started = new Promise<void>((resolve) => {
    const onStart = (message: { start?: boolean }) => {
      if (!message.start) return;
      process.off('message', onStart);
      resolve();
    };
    process.on('message', onStart);
  });
  send({ loaded: true });
  await started;
  const config = loadConfig();
  const shareGroup = process.env.ESS_TEST_SHARE_GROUP;
  const listen = process.env.ESS_TEST_LISTEN === 'on';
  const leaseMs = Number(process.env.ESS_TEST_JOB_LEASE_MS) || undefined;
  const app = await buildApp({
    config,
    devices: shareGroup ? { mqttShareGroup: shareGroup } : true,
    scheduler: listen ? { instanceId: process.env.ESS_TEST_INSTANCE_ID || undefined, leaseMs } : false,
    demo: false,
  });
  process.on('message', async (message: Request) => {
    if (message.ask === 'online') {
      const ids = message.ids ?? [];
      send({ id: message.id, answer: ids.filter((id) => app.devices?.tracker.isOnline(id)) });
    } else if (message.ask === 'settled') {
      await Promise.all([app.touPush.settled(), app.paramsPush.settled(), app.upgrades.settled()]);
      send({ id: message.id, answer: true });
    } else if (message.ask === 'stats') {
      const devices = app.devices;
      send({
        id: message.id,
        answer: {
          acknowledgedData: devices?.acknowledgedData ?? 0,
          messages: devices?.ingest.stats.messages ?? 0,
        },
      });
    } else if (message.ask === 'close') {
      await app.close();
      send({ id: message.id, answer: true });
      process.disconnect?.();
      process.exit(0);
    }
  });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  if (listen) {
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    send({ ready: true, port: typeof address === 'object' && address ? address.port : config.port });
  } else {
    send({ ready: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
