/**
 * Runs a simulated fleet against any MQTT broker:
 *
 *     npm run sim -- --url mqtt://127.0.0.1:1883 --sites 5 --seed 1 --speed 1 \
 *                    [--password X | --credentials file.json] [--interval 60] [--start ISO]
 *                    [--params-dir DIR]
 *
 * `--credentials` names a JSON file `{ "<gateway SN>": "<secret>", … }` (the secrets the server
 * issued when the devices were registered); `--password` uses one password for every gateway
 * (test brokers); with neither, gateways connect without a password (anonymous brokers). Each
 * gateway's user name is its SN; a user name and password in `--url` are ignored.
 * `--params-dir` keeps each gateway's device parameters in `DIR/<gatewaySn>.json` across runs
 * (params.ts; without it they reset at every start). `--list` prints the fleet as JSON and exits. Prints one line per site on start and the
 * counters every 30 s; Ctrl-C publishes each gateway's clean offline status and exits.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildFleet, type Logger, startFleet } from './index';

const USAGE =
  'usage: npm run sim -- --url mqtt://host:1883 [--sites 5] [--seed 1] [--speed 1] [--interval 60]\n' +
  '                      [--password X | --credentials file.json] [--start 2025-07-01T00:00:00Z]\n' +
  '                      [--params-dir DIR] [--list]';

function fail(message: string): never {
  process.stderr.write(`sim: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function num(name: string, text: string | undefined, dflt: number, min: number, max: number): number {
  if (text === undefined) return dflt;
  const v = Number(text);
  if (!Number.isFinite(v) || v < min || v > max)
    fail(`--${name} must be a number ${min}–${max}, got "${text}"`);
  return v;
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: 'string' },
        sites: { type: 'string' },
        seed: { type: 'string' },
        speed: { type: 'string' },
        interval: { type: 'string' },
        password: { type: 'string' },
        credentials: { type: 'string' },
        start: { type: 'string' },
        'params-dir': { type: 'string' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    fail((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const str = (k: string) => values[k] as string | undefined;
  const sitesN = num('sites', str('sites'), 5, 1, 999);
  if (!Number.isInteger(sitesN)) fail('--sites must be a whole number');
  const seed = num('seed', str('seed'), 1, 0, 2 ** 31 - 1);
  const speed = num('speed', str('speed'), 1, 0.001, 1_000_000);
  const intervalS = num('interval', str('interval'), 60, 1, 3600);
  const sites = buildFleet({ seed, sites: sitesN });
  if (values.list) {
    process.stdout.write(`${JSON.stringify(sites, null, 2)}\n`);
    return;
  }
  const url = str('url') ?? fail('--url is required');
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password)
      process.stderr.write(
        'sim: the user name and password in --url are ignored: each gateway logs in as its SN\n',
      );
  } catch {
    fail(`--url is not a URL: "${url}"`);
  }
  let startTimeMs: number | undefined;
  if (str('start') !== undefined) {
    startTimeMs = Date.parse(str('start')!);
    if (Number.isNaN(startTimeMs)) fail(`--start is not a date: "${str('start')}"`);
  }

  const credentials = new Map<string, string>();
  if (str('credentials') !== undefined && str('password') !== undefined) {
    fail('use --password or --credentials, not both');
  }
  if (str('credentials') !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(str('credentials')!, 'utf8'));
    } catch (e) {
      fail(`cannot read ${str('credentials')}: ${(e as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      fail('credentials must be a JSON object');
    for (const [sn, secret] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof secret !== 'string') fail(`credentials: secret of ${sn} is not a string`);
      credentials.set(sn, secret);
    }
    const missing = sites.filter((s) => !credentials.has(s.gatewaySn)).map((s) => s.gatewaySn);
    if (missing.length) fail(`credentials has no secret for ${missing.join(', ')}`);
  } else if (str('password') !== undefined) {
    for (const s of sites) credentials.set(s.gatewaySn, str('password')!);
  } else {
    process.stderr.write('sim: no --password or --credentials: connecting without a password\n');
  }

  const stamp = () => new Date().toISOString().slice(11, 19);
  const logger: Logger = {
    info: (m) => process.stdout.write(`${stamp()} ${m}\n`),
    warn: (m) => process.stderr.write(`${stamp()} WARN ${m}\n`),
    error: (m) => process.stderr.write(`${stamp()} ERROR ${m}\n`),
  };
  for (const s of sites) {
    const pv = s.pvKwp > 0 ? `, PV ${s.pvKwp} kWp` : '';
    logger.info(
      `${s.siteCode.padEnd(9)} ${s.gatewaySn.padEnd(16)} ${s.profile} ${s.capacityKwh} kWh / ${s.ratedPowerKw} kW${pv} · ${s.nameEn} (${s.latitude}, ${s.longitude})`,
    );
  }
  const fleet = await startFleet({
    url,
    sites,
    credentials,
    allowMissingCredentials: credentials.size === 0,
    speed,
    seed,
    intervalS,
    logger,
    ...(startTimeMs !== undefined ? { startTimeMs } : {}),
    ...(str('params-dir') !== undefined ? { paramsDir: str('params-dir')! } : {}),
  });
  const t0 = fleet.totals();
  logger.info(`fleet of ${sites.length} started against ${url}: ${t0.connected} connected, speed ×${speed}`);

  const report = setInterval(() => {
    const t = fleet.totals();
    const simTime = new Date(fleet.clock.now()).toISOString().slice(0, 16).replace('T', ' ');
    logger.info(
      `sim ${simTime}Z · connected ${t.connected}/${sites.length} · telemetry ${t.telemetry} · events ${t.events} · commands ${t.commands} · dropped ${t.dropped} · errors ${t.errors}`,
    );
  }, 30_000);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info(`${signal}: stopping`);
    clearInterval(report);
    await fleet.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((e: unknown) => {
  process.stderr.write(`sim: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
