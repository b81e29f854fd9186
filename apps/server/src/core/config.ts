/**
 * The server's one typed, validated configuration (every setting is listed with its default in
 * `.env.example` at the repository root). Read from environment variables; a `.env` file in the
 * working directory is loaded first when present.
 *
 * Errors: {@link loadConfig} throws a `ConfigError` naming each bad variable.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fp from 'fastify-plugin';
import { z } from 'zod';

/** Least `LOG_RETENTION_DAYS` accepted (PRC Cybersecurity Law art. 21(3): six months). */
export const MIN_LOG_RETENTION_DAYS = 180;

export interface LogRetention {
  /** Days of operation and connection log kept (≥ {@link MIN_LOG_RETENTION_DAYS}). */
  logDays: number;
  /** Days a sent mail stays in the outbox. */
  sentMailDays: number;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Demo administrator password seeded on first start; refused in production. */
export const DEFAULT_ADMIN_PASSWORD = 'admin123';

/** Unset and empty both mean "not configured" (`.env.example` lists empty values). */
const emptyAsUnset = (v: unknown) => (v === '' ? undefined : v);

/** An integer setting; empty means the default (plain coercion would read `PORT=` as port 0). */
const intFromEnv = (def: number, min = 0) =>
  z.preprocess(emptyAsUnset, z.coerce.number().int().min(min).default(def));

const optionalUrl = z.preprocess(emptyAsUnset, z.string().url().optional());

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: intFromEnv(8080, 0).pipe(z.number().max(65535)),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalUrl,
  MQTT_URL: optionalUrl,
  MQTT_PORT: intFromEnv(1883, 0).pipe(z.number().max(65535)),
  MQTT_PLAIN: z.enum(['on', 'off']).default('on'),
  MQTT_TLS: z.enum(['on', 'off']).default('on'),
  MQTT_TLS_PORT: intFromEnv(8883, 0).pipe(z.number().max(65535)),
  MQTT_TLS_CERT: z.preprocess(emptyAsUnset, z.string().optional()),
  MQTT_TLS_KEY: z.preprocess(emptyAsUnset, z.string().optional()),
  MQTT_CA: z.preprocess(emptyAsUnset, z.string().optional()),
  MQTT_SHARE_GROUP: z.preprocess(
    emptyAsUnset,
    z
      .string()
      .regex(/^[^/+#]+$/, 'a name without /, + or #, or off')
      .default('off'),
  ),
  MQTT_CLIENT_ID: z.preprocess(emptyAsUnset, z.string().max(128).optional()),
  MQTT_SESSION_EXPIRY_S: intFromEnv(86_400, 0).pipe(z.number().max(0xffffffff)),
  ADMIN_PASSWORD: z.string().min(6).default(DEFAULT_ADMIN_PASSWORD),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_SLOW_REQUEST_MS: intFromEnv(1000, 1),
  WEB_DIST_DIR: z.string().default('apps/web/dist'),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  ACCESS_TOKEN_TTL_S: intFromEnv(1800, 10),
  REFRESH_TOKEN_TTL_S: intFromEnv(7 * 24 * 3600, 60),
  LOGIN_TICKET_TTL_S: intFromEnv(120, 5),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: intFromEnv(5, 1),
  LOGIN_MAX_FAILURES_PER_ADDRESS: intFromEnv(20, 1),
  LOGIN_THROTTLE_WINDOW_S: intFromEnv(900, 1),
  SCRYPT_LOG_N: intFromEnv(17, 10).pipe(z.number().max(20)),
  DEMO_SITES: intFromEnv(8, 0).pipe(z.number().max(999)),
  SIMULATOR: z.enum(['on', 'off']).default('on'),
  SIMULATOR_SPEED: z.coerce.number().positive().max(3600).default(1),
  SIMULATOR_INTERVAL_S: intFromEnv(10, 1),
  SIMULATOR_SEED: intFromEnv(1, 0),
  DEMO_HISTORY_DAYS: intFromEnv(90, 0).pipe(z.number().max(366)),
  TELEMETRY_RETENTION_DAYS: intFromEnv(400, 1),
  LOG_RETENTION_DAYS: intFromEnv(365, MIN_LOG_RETENTION_DAYS),
  MAIL_RETENTION_DAYS: intFromEnv(90, 1),
  SMTP_URL: z.preprocess(
    emptyAsUnset,
    z
      .string()
      .regex(/^smtps?:\/\//, 'smtp:// or smtps:// URL')
      .optional(),
  ),
  MAIL_FROM: z.preprocess(emptyAsUnset, z.string().min(3).default('ESS Console <noreply@localhost>')),
  PUBLIC_URL: optionalUrl,
  MAIL_JOB_INTERVAL_S: intFromEnv(10, 0).pipe(z.number().max(3600)),
  JOB_RUN_RETENTION_DAYS: intFromEnv(30, 1),
  /** Devices one server instance has downloading firmware at once, all batches (issue 16). */
  OTA_MAX_DOWNLOADS: intFromEnv(20, 1),
});

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  /** TCP port of the HTTP server; 0 picks a free one. */
  port: number;
  /** Folder of the embedded database (PGlite) and other local state. */
  dataDir: string;
  /** PostgreSQL URL; without it the embedded PGlite in `dataDir` is used. */
  databaseUrl: string | undefined;
  /** External MQTT broker; without it the embedded broker listens on `mqttPort` (devices issue). */
  mqttUrl: string | undefined;
  /** Plain-TCP port of the embedded broker (0 = any free one; unused when `mqttPlain` is false). */
  mqttPort: number;
  /** The embedded broker's plain-TCP listener is on (`MQTT_PLAIN`, default on: the local demo). */
  mqttPlain: boolean;
  /**
   * The embedded broker's TLS listener (`MQTT_TLS`, default on); null = none. Without
   * `certFile`/`keyFile` a self-signed certificate is made on first start and kept in
   * `DATA_DIR/mqtt-tls/` (devices/broker-tls.ts; docs/operations.md "MQTT over TLS").
   */
  mqttTls: { port: number; certFile: string | undefined; keyFile: string | undefined } | null;
  /** PEM file of the CA that signed an external `mqtts://` broker's certificate (`MQTT_CA`). */
  mqttCa: string | undefined;
  /**
   * This instance's client id on an external broker (`MQTT_CLIENT_ID`; default
   * {@link defaultMqttClientId}): stable across restarts, so the broker keeps its session.
   */
  mqttClientId: string;
  /**
   * Shared-subscription group of an external broker's ingest subscriptions (`MQTT_SHARE_GROUP`,
   * e.g. `ess-ingest`, for instances that split the traffic); null (`off`, the default): plain
   * subscriptions — every instance stores every message (once, deduplicated), and Mosquitto 2.0
   * keeps them across its restart, which it does not for shared ones (docs/operations.md "What
   * survives what").
   */
  mqttShareGroup: string | null;
  /** How long an external broker keeps this instance's session while it is away (s). */
  mqttSessionExpiryS: number;
  adminPassword: string;
  logLevel: string;
  /** A request answered after this many ms is logged at warn (others at debug; core/http/request-log.ts). */
  slowRequestMs: number;
  /** Built console served with history fallback. */
  webDistDir: string;
  trustProxy: boolean;
  demo: {
    /** Sites of the simulated demo fleet registered at start (0 = none). */
    sites: number;
    /** Run the demo fleet's simulator in-process. */
    simulator: boolean;
    /** Simulated seconds per real second. */
    speed: number;
    /** Simulated seconds between telemetry messages of each demo site. */
    intervalS: number;
    seed: number;
    /**
     * Days of past written for each demo site when it is first registered (0 = none),
     * in the background (demo/demo-history.ts).
     */
    historyDays: number;
  };
  /** Raw telemetry older than this is dropped by month (rollups are kept). */
  telemetryRetentionDays: number;
  /** Operation/connection log days and sent-mail days kept (jobs/log-retention.ts). */
  logRetention: LogRetention;
  /** Days the scheduler's run records (`job_run`, jobs/scheduler.ts) are kept. */
  jobRunRetentionDays: number;
  /** OTA_MAX_DOWNLOADS: devices this instance has in `sent`/`downloading` at once (devices/ota-batches.ts). */
  otaMaxDownloads: number;
  /** Alarm mail (jobs/alarm-mail.ts; docs/operations.md "Alarm mail"). */
  mail: {
    /** `smtp://user:pass@host:587` or `smtps://…`; without it mails stay in the outbox. */
    smtpUrl: string | undefined;
    /** The From header. */
    from: string;
    /** Where the console is reached from a mail's link; default `http://localhost:<port>`. */
    publicUrl: string;
    /** Seconds between runs of the mail job (a scheduler task); 0 = this instance runs none. */
    jobIntervalS: number;
  };
  auth: {
    accessTokenTtlS: number;
    /** Absolute lifetime of a session's refresh tokens, counted from sign-in. */
    refreshTokenTtlS: number;
    loginTicketTtlS: number;
    maxFailuresPerAccount: number;
    maxFailuresPerAddress: number;
    throttleWindowS: number;
    /** log2 of scrypt's N (17 = OWASP ASVS 5 parameter N = 2^17). */
    scryptLogN: number;
  };
}

export class ConfigError extends Error {}

/**
 * The default MQTT client id of an instance: `ess-<host name>-<8 hex digits of a hash of the
 * data folder and the HTTP port>`. Stable across restarts of one instance (same host, folder and
 * port), different for two instances on one host (they differ in port or folder). Where the host
 * name changes at every start (containers), set `MQTT_CLIENT_ID` instead.
 */
export function defaultMqttClientId(dataDir: string, port: number, hostname = os.hostname()): string {
  const host = hostname.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 40) || 'host';
  const hash = createHash('sha256').update(`${dataDir}\n${port}`).digest('hex').slice(0, 8);
  return `ess-${host}-${hash}`;
}

/**
 * Parse `env` (default: `process.env`, after loading `.env` if it exists) into a {@link Config}.
 * Refuses production mode with the default administrator password.
 */
export function loadConfig(env: NodeJS.ProcessEnv = readEnvironment()): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && e.ADMIN_PASSWORD === DEFAULT_ADMIN_PASSWORD) {
    throw new ConfigError(
      'Refusing to start in production with the default administrator password: set ADMIN_PASSWORD.',
    );
  }
  if (!e.MQTT_TLS_CERT !== !e.MQTT_TLS_KEY) {
    throw new ConfigError('Invalid configuration: set both MQTT_TLS_CERT and MQTT_TLS_KEY, or neither.');
  }
  if (!e.MQTT_URL && e.MQTT_PLAIN === 'off' && e.MQTT_TLS === 'off') {
    throw new ConfigError(
      'Invalid configuration: MQTT_PLAIN=off and MQTT_TLS=off leave devices no way to connect.',
    );
  }
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    mqttUrl: e.MQTT_URL,
    mqttPort: e.MQTT_PORT,
    mqttPlain: e.MQTT_PLAIN === 'on',
    mqttTls:
      e.MQTT_TLS === 'on'
        ? {
            port: e.MQTT_TLS_PORT,
            certFile: e.MQTT_TLS_CERT && path.resolve(e.MQTT_TLS_CERT),
            keyFile: e.MQTT_TLS_KEY && path.resolve(e.MQTT_TLS_KEY),
          }
        : null,
    mqttCa: e.MQTT_CA && path.resolve(e.MQTT_CA),
    mqttClientId: e.MQTT_CLIENT_ID ?? defaultMqttClientId(path.resolve(e.DATA_DIR), e.PORT),
    mqttSessionExpiryS: e.MQTT_SESSION_EXPIRY_S,
    mqttShareGroup: e.MQTT_SHARE_GROUP === 'off' ? null : e.MQTT_SHARE_GROUP,
    adminPassword: e.ADMIN_PASSWORD,
    logLevel: e.LOG_LEVEL,
    slowRequestMs: e.LOG_SLOW_REQUEST_MS,
    webDistDir: path.resolve(repoRoot, e.WEB_DIST_DIR),
    trustProxy: e.TRUST_PROXY,
    demo: {
      sites: e.DEMO_SITES,
      simulator: e.SIMULATOR === 'on',
      speed: e.SIMULATOR_SPEED,
      intervalS: e.SIMULATOR_INTERVAL_S,
      seed: e.SIMULATOR_SEED,
      historyDays: e.DEMO_HISTORY_DAYS,
    },
    telemetryRetentionDays: e.TELEMETRY_RETENTION_DAYS,
    logRetention: { logDays: e.LOG_RETENTION_DAYS, sentMailDays: e.MAIL_RETENTION_DAYS },
    jobRunRetentionDays: e.JOB_RUN_RETENTION_DAYS,
    otaMaxDownloads: e.OTA_MAX_DOWNLOADS,
    mail: {
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
      jobIntervalS: e.MAIL_JOB_INTERVAL_S,
    },
    auth: {
      accessTokenTtlS: e.ACCESS_TOKEN_TTL_S,
      refreshTokenTtlS: e.REFRESH_TOKEN_TTL_S,
      loginTicketTtlS: e.LOGIN_TICKET_TTL_S,
      maxFailuresPerAccount: e.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: e.LOGIN_MAX_FAILURES_PER_ADDRESS,
      throttleWindowS: e.LOGIN_THROTTLE_WINDOW_S,
      scryptLogN: e.SCRYPT_LOG_N,
    },
  };
}

function readEnvironment(): NodeJS.ProcessEnv {
  const envFile = path.resolve('.env');
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  return process.env;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The configuration the app was built with (plugin `ess-config`). */
    config: Config;
  }
}

/** Plugin `ess-config`: decorates the app with its {@link Config}; every other plugin depends on it. */
export const configPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    app.decorate('config', config);
  },
  { name: 'ess-config', fastify: '5.x' },
);
