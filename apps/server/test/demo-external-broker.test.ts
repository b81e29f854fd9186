/**
 * The demo fleet on an external broker with the documented ACL (issue 13 item 5): a Mosquitto of
 * this test's own (free port, no anonymous clients), its `acl_file` taken verbatim from
 * docs/device-protocol.md "External broker", its `password_file` holding the server's user
 * (`MQTT_URL=mqtt://ess-server:<password>@…`) and — written with `mosquitto_passwd -b` once the
 * server has seeded the demo fleet — each demo gateway's SN and secret from the credentials file
 * the server keeps (`DATA_DIR/demo-gateways.json`). Observed on the broker and in the server:
 *  - every demo gateway comes online, its telemetry is stored (the server's subscription
 *    passes the ACL) and a command to it is answered;
 *  - each gateway logged in as itself (Mosquitto's connection log: user name = SN), none with the
 *    server's user name;
 *  - a restart of the server keeps the secrets: the fleet comes online again with the password
 *    file untouched.
 * Skipped when `mosquitto` or `mosquitto_passwd` is not installed.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFleet } from '@ess/simulator';
import { and, inArray, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { device, telemetry } from '../src/core/db/schema';
import { DEMO_CREDENTIALS_FILE } from '../src/demo/demo-plugin';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor as waitUntil } from './support/wait';

const here = path.dirname(fileURLToPath(import.meta.url));
const installed = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const mosquittoInstalled = installed('mosquitto') && installed('mosquitto_passwd');

/** Gateways retry every 2 s; a loaded machine needs more than the default 5 s. */
const waitFor = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000) =>
  waitUntil(probe, ms);

/** The Mosquitto ACL of docs/device-protocol.md "External broker", as written there. */
function documentedAcl(): string {
  const doc = readFileSync(path.resolve(here, '../../../docs/device-protocol.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## External broker'));
  const block = section.slice(
    section.indexOf('```conf') + '```conf'.length,
    section.indexOf('```', section.indexOf('```conf') + 7),
  );
  const acl = block.slice(block.indexOf('# /etc/mosquitto/acl'));
  if (!acl.includes('pattern write ess/v1/%u/telemetry'))
    throw new Error('no ACL found in docs/device-protocol.md');
  return acl;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe.skipIf(!mosquittoInstalled).each(engines)(
  'demo fleet on an external broker with ACLs on %s',
  (engine) => {
    const SITES = 3;
    const serverPassword = 'server-secret-1';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ess-mosquitto-'));
    const passwd = path.join(dir, 'passwd');
    let broker: ChildProcess | null = null;
    /** Mosquitto's log so far. */
    const brokerLog = () => readFileSync(path.join(dir, 'mosquitto.log'), 'utf8');
    let ctx: TestContext;
    let restarted: FastifyInstance | null = null;
    const gatewaySns = buildFleet({ seed: 1, sites: SITES }).map((s) => s.gatewaySn);

    const gatewaysOnline = async () => {
      const rows = await ctx.database.db
        .select({ sn: device.sn, online: device.online })
        .from(device)
        .where(and(inArray(device.sn, gatewaySns), isNull(device.gatewayId)));
      return rows.length === SITES && rows.every((r) => r.online);
    };
    /** Successful logins in Mosquitto's log: client id and user name. */
    const brokerLogins = () =>
      [...brokerLog().matchAll(/New client connected from \S+ as (\S+) \([^)]*u'([^']*)'\)/g)].map((m) => ({
        clientId: m[1]!,
        user: m[2]!,
      }));
    const credentials = () =>
      JSON.parse(readFileSync(path.join(ctx.config.dataDir, DEMO_CREDENTIALS_FILE), 'utf8')) as Record<
        string,
        string
      >;

    beforeAll(async () => {
      const port = await freePort();
      execFileSync('mosquitto_passwd', ['-c', '-b', passwd, 'ess-server', serverPassword]);
      writeFileSync(path.join(dir, 'acl'), documentedAcl());
      writeFileSync(
        path.join(dir, 'mosquitto.conf'),
        [
          `listener ${port} 127.0.0.1`,
          'allow_anonymous false',
          `password_file ${passwd}`,
          `acl_file ${path.join(dir, 'acl')}`,
          'persistence false',
          `log_dest file ${path.join(dir, 'mosquitto.log')}`,
          'log_type all',
          // Started as root, Mosquitto would switch to its own user, which cannot read this folder.
          'user root',
          '',
        ].join('\n'),
      );
      broker = spawn('mosquitto', ['-c', path.join(dir, 'mosquitto.conf')], { stdio: 'ignore' });
      await waitFor(() => accepts(port), 10_000);
      ctx = await createTestApp(
        engine,
        {
          MQTT_URL: `mqtt://ess-server:${serverPassword}@127.0.0.1:${port}`,
          SIMULATOR: 'on',
          DEMO_SITES: String(SITES),
          SIMULATOR_SEED: '1',
          // a day of past (demo-history.ts) keeps the start light
          DEMO_HISTORY_DAYS: '1',
          // One telemetry message per site every ~0.2 s.
          SIMULATOR_SPEED: '60',
        },
        { devices: true, demo: true },
      );
    });
    afterAll(async () => {
      await restarted?.close();
      await ctx?.close();
      broker?.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    });

    it('with the demo secrets in the password file every demo gateway comes online as itself', async () => {
      // Seeded at start: the server wrote each demo gateway's secret for the broker's password file.
      const secrets = credentials();
      expect(Object.keys(secrets).sort()).toEqual([...gatewaySns].sort());
      expect(await gatewaysOnline()).toBe(false);
      for (const [sn, secret] of Object.entries(secrets))
        execFileSync('mosquitto_passwd', ['-b', passwd, sn, secret]);
      broker!.kill('SIGHUP'); // Mosquitto reloads its password and ACL files
      await waitFor(gatewaysOnline);

      // Telemetry passes the ACL both ways (gateway → broker → the server's subscription).
      await waitFor(async () => {
        const [row] = await ctx.database.db
          .select({ n: sql<number>`count(distinct ${telemetry.deviceId})::int` })
          .from(telemetry);
        return row!.n >= SITES;
      });
      // A command reaches the gateway and its reply the server.
      const reply = await ctx.app.devices!.commands.send(gatewaySns[0]!, 'time_sync', {
        serverTs: Date.now(),
      });
      expect(reply.ok).toBe(true);

      // Each gateway logged in with its own SN as user name, none with the server's.
      const logins = brokerLogins();
      for (const sn of gatewaySns) {
        const mine = logins.filter((l) => l.clientId === sn);
        expect(mine.length, sn).toBeGreaterThan(0);
        expect(mine.every((l) => l.user === sn)).toBe(true);
      }
      expect(logins.filter((l) => l.user === 'ess-server').map((l) => l.clientId)).toEqual([
        ctx.config.mqttClientId,
      ]);
    });

    it('a restart keeps the secrets: the fleet comes online again with the password file untouched', async () => {
      const secrets = credentials();
      const passwords = readFileSync(passwd, 'utf8');
      await ctx.app.close(); // the fleet says goodbye: offline
      await waitFor(async () => !(await gatewaysOnline()));
      const loginsBefore = brokerLogins().length;
      restarted = await buildApp({
        config: ctx.config,
        db: ctx.database.db,
        logger: false,
        devices: true,
        scheduler: false,
        demo: true,
      });
      await waitFor(gatewaysOnline);
      // Each logged in again as itself, with the secret the broker already had.
      const again = brokerLogins().slice(loginsBefore);
      for (const sn of gatewaySns) expect(again, sn).toContainEqual({ clientId: sn, user: sn });
      expect(credentials()).toEqual(secrets);
      expect(readFileSync(passwd, 'utf8')).toBe(passwords);
    });
  },
);
