/**
 * Test support: one server instance in a process of its own, as a second instance is deployed
 * (two-instances.test.ts spawns it with `node --import tsx`). It builds the whole app from the
 * environment, like main.ts (DATABASE_URL, MQTT_URL, DATA_DIR, LOG_LEVEL, …), except that:
 *  - the ingest share group is `ESS_TEST_SHARE_GROUP` (the test's own, so that servers of other
 *    test files on the same broker never take its messages), and the scheduler is not started;
 *  - it does not listen for HTTP: the test talks to it over the IPC channel instead.
 *
 * Logs go to stdout as pino JSON lines (the test reads them). The process loads the server's
 * modules, tells `{loaded: true}` and waits for `{start: true}` before it builds the app (so that
 * the test can start two instances at the same moment), then tells `{ready: true}`. IPC requests
 * (`{id, ask}`), each answered `{id, answer}`:
 *  - `online` (`ids`): those of the gateways `ids` this instance's tracker holds online;
 *  - `settled`: answered once every delivery task this instance started has finished;
 *  - `close`: closes the app (as at SIGTERM), answers, then the process exits.
 */
import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/core/config';

interface Request {
  id: number;
  ask: 'online' | 'settled' | 'close';
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
  const app = await buildApp({
    config,
    devices: shareGroup ? { mqttShareGroup: shareGroup } : true,
    scheduler: false,
    demo: false,
  });
  process.on('message', async (message: Request) => {
    if (message.ask === 'online') {
      const ids = message.ids ?? [];
      send({ id: message.id, answer: ids.filter((id) => app.devices?.tracker.isOnline(id)) });
    } else if (message.ask === 'settled') {
      await app.touPush.settled();
      send({ id: message.id, answer: true });
    } else if (message.ask === 'close') {
      await app.close();
      send({ id: message.id, answer: true });
      process.disconnect?.();
      process.exit(0);
    }
  });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  send({ ready: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
