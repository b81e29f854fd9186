/**
 * Configuration (config.ts): defaults, production guard, and errors naming the variable.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_ADMIN_PASSWORD, defaultMqttClientId, loadConfig } from '../src/core/config';

/** The ConfigError thrown for `env`, or a failure when none is. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('defaults every setting', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      host: '0.0.0.0',
      port: 8080,
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      mqttUrl: undefined,
      mqttPort: 1883,
      adminPassword: DEFAULT_ADMIN_PASSWORD,
      logLevel: 'info',
      trustProxy: false,
      auth: {
        accessTokenTtlS: 1800,
        refreshTokenTtlS: 7 * 24 * 3600,
        loginTicketTtlS: 120,
        maxFailuresPerAccount: 5,
        maxFailuresPerAddress: 20,
        throttleWindowS: 900,
        scryptLogN: 17,
      },
    });
    expect(DEFAULT_ADMIN_PASSWORD).toBe('admin123');
    expect(path.isAbsolute(config.dataDir)).toBe(true);
    expect(path.isAbsolute(config.webDistDir)).toBe(true);
    expect(config.webDistDir.endsWith(path.join('apps', 'web', 'dist'))).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '9090',
      DATA_DIR: '/var/lib/ess',
      DATABASE_URL: 'postgres://ess:secret@db:5432/ess',
      MQTT_URL: 'mqtt://broker:1883',
      MQTT_PORT: '1884',
      ADMIN_PASSWORD: 'a-long-secret',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'true',
      ACCESS_TOKEN_TTL_S: '600',
      REFRESH_TOKEN_TTL_S: '86400',
      LOGIN_TICKET_TTL_S: '30',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '7',
      LOGIN_THROTTLE_WINDOW_S: '60',
      SCRYPT_LOG_N: '15',
    });
    expect(config).toMatchObject({
      nodeEnv: 'production',
      host: '127.0.0.1',
      port: 9090,
      dataDir: '/var/lib/ess',
      databaseUrl: 'postgres://ess:secret@db:5432/ess',
      mqttUrl: 'mqtt://broker:1883',
      mqttPort: 1884,
      adminPassword: 'a-long-secret',
      logLevel: 'warn',
      trustProxy: true,
      auth: {
        accessTokenTtlS: 600,
        refreshTokenTtlS: 86400,
        loginTicketTtlS: 30,
        maxFailuresPerAccount: 3,
        maxFailuresPerAddress: 7,
        throttleWindowS: 60,
        scryptLogN: 15,
      },
    });
  });

  it('runs the embedded broker on plain TCP and TLS (8883) by default; either may be off, not both', () => {
    expect(loadConfig({})).toMatchObject({
      mqttPlain: true,
      mqttTls: { port: 8883, certFile: undefined, keyFile: undefined },
      mqttCa: undefined,
    });
    const own = loadConfig({
      MQTT_PLAIN: 'off',
      MQTT_TLS_PORT: '18883',
      MQTT_TLS_CERT: 'certs/broker.pem',
      MQTT_TLS_KEY: '/etc/ess/broker.key',
      MQTT_CA: 'ca.pem',
    });
    expect(own).toMatchObject({
      mqttPlain: false,
      mqttTls: { port: 18883, certFile: path.resolve('certs/broker.pem'), keyFile: '/etc/ess/broker.key' },
      mqttCa: path.resolve('ca.pem'),
    });
    expect(loadConfig({ MQTT_TLS: 'off' }).mqttTls).toBeNull();
    expect(configError({ MQTT_PLAIN: 'off', MQTT_TLS: 'off' }).message).toMatch(
      /MQTT_PLAIN=off and MQTT_TLS=off/,
    );
    // With an external broker the embedded one's listeners do not matter.
    expect(loadConfig({ MQTT_PLAIN: 'off', MQTT_TLS: 'off', MQTT_URL: 'mqtts://b:8883' }).mqttTls).toBeNull();
    expect(configError({ MQTT_TLS_CERT: 'c.pem' }).message).toMatch(/MQTT_TLS_CERT and MQTT_TLS_KEY/);
    expect(configError({ MQTT_TLS_KEY: 'k.pem' }).message).toMatch(/MQTT_TLS_CERT and MQTT_TLS_KEY/);
    expect(configError({ MQTT_PLAIN: 'no' }).message).toMatch(/\bMQTT_PLAIN: /);
  });

  it('resolves a relative DATA_DIR against the working directory', () => {
    expect(loadConfig({ DATA_DIR: 'var/ess' }).dataDir).toBe(path.resolve('var/ess'));
  });

  it('treats empty DATABASE_URL and MQTT_URL as unset (as .env.example lists them)', () => {
    const config = loadConfig({ DATABASE_URL: '', MQTT_URL: '' });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.mqttUrl).toBeUndefined();
  });

  it('refuses production with the default administrator password, set or defaulted', () => {
    expect(configError({ NODE_ENV: 'production' }).message).toContain('ADMIN_PASSWORD');
    expect(configError({ NODE_ENV: 'production', ADMIN_PASSWORD: 'admin123' }).message).toContain(
      'ADMIN_PASSWORD',
    );
    expect(loadConfig({ NODE_ENV: 'production', ADMIN_PASSWORD: 'Another-1' }).nodeEnv).toBe('production');
    // Development and tests may use the demo password.
    expect(loadConfig({ NODE_ENV: 'test' }).adminPassword).toBe('admin123');
  });

  it.each(['abc', '70000', '-1', '80.5'])('a bad PORT %j throws naming PORT', (port) => {
    const error = configError({ PORT: port });
    expect(error.message).toMatch(/^Invalid configuration:/);
    expect(error.message).toMatch(/\bPORT: /);
  });

  it('treats an empty number variable as unset, not as 0', () => {
    const config = loadConfig({ PORT: '', MQTT_PORT: '', SCRYPT_LOG_N: '', LOGIN_THROTTLE_WINDOW_S: '' });
    expect(config.port).toBe(8080);
    expect(config.mqttPort).toBe(1883);
    expect(config.auth.scryptLogN).toBe(17);
    expect(config.auth.throttleWindowS).toBe(900);
  });

  it('keeps logs a year and sent mails 90 days by default; never logs under six months', () => {
    expect(loadConfig({}).logRetention).toEqual({ logDays: 365, sentMailDays: 90 });
    expect(loadConfig({ LOG_RETENTION_DAYS: '180', MAIL_RETENTION_DAYS: '7' }).logRetention).toEqual({
      logDays: 180,
      sentMailDays: 7,
    });
    expect(configError({ LOG_RETENTION_DAYS: '30' }).message).toMatch(/\bLOG_RETENTION_DAYS: /);
  });

  it('PORT 0 (pick a free port) is allowed', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it('names each bad variable', () => {
    const message = configError({
      PORT: 'x',
      LOG_LEVEL: 'loud',
      NODE_ENV: 'staging',
      TRUST_PROXY: 'yes',
      DATABASE_URL: 'not a url',
      ADMIN_PASSWORD: '12345',
      SCRYPT_LOG_N: '9',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '0',
      ACCESS_TOKEN_TTL_S: '5',
    }).message;
    for (const name of [
      'PORT',
      'LOG_LEVEL',
      'NODE_ENV',
      'TRUST_PROXY',
      'DATABASE_URL',
      'ADMIN_PASSWORD',
      'SCRYPT_LOG_N',
      'LOGIN_MAX_FAILURES_PER_ACCOUNT',
      'ACCESS_TOKEN_TTL_S',
    ]) {
      expect(message).toMatch(new RegExp(`\\b${name}: `));
    }
  });

  it('bounds SCRYPT_LOG_N to 10–20', () => {
    expect(loadConfig({ SCRYPT_LOG_N: '10' }).auth.scryptLogN).toBe(10);
    expect(loadConfig({ SCRYPT_LOG_N: '20' }).auth.scryptLogN).toBe(20);
    expect(configError({ SCRYPT_LOG_N: '21' }).message).toContain('SCRYPT_LOG_N');
  });

  it('gives each instance a stable MQTT client id of its own; MQTT_CLIENT_ID, MQTT_SESSION_EXPIRY_S and MQTT_SHARE_GROUP override', () => {
    const one = loadConfig({ DATA_DIR: '/var/lib/ess', PORT: '8080' });
    expect(one.mqttClientId).toMatch(/^ess-[A-Za-z0-9_.-]+-[0-9a-f]{8}$/);
    // The same instance restarted: the same id (the broker keeps its session for it).
    expect(loadConfig({ DATA_DIR: '/var/lib/ess', PORT: '8080' }).mqttClientId).toBe(one.mqttClientId);
    // A second instance on the host differs in port or folder: another id.
    expect(loadConfig({ DATA_DIR: '/var/lib/ess', PORT: '8081' }).mqttClientId).not.toBe(one.mqttClientId);
    expect(loadConfig({ DATA_DIR: '/var/lib/ess2', PORT: '8080' }).mqttClientId).not.toBe(one.mqttClientId);
    expect(defaultMqttClientId('/d', 1, 'host name/ä')).toMatch(/^ess-host-name---[0-9a-f]{8}$/);
    expect(one).toMatchObject({ mqttSessionExpiryS: 86_400, mqttShareGroup: null });

    expect(
      loadConfig({ MQTT_CLIENT_ID: 'ess-a', MQTT_SESSION_EXPIRY_S: '3600', MQTT_SHARE_GROUP: 'off' }),
    ).toMatchObject({ mqttClientId: 'ess-a', mqttSessionExpiryS: 3600, mqttShareGroup: null });
    expect(loadConfig({ MQTT_SHARE_GROUP: 'plant-a' }).mqttShareGroup).toBe('plant-a');
    expect(configError({ MQTT_SHARE_GROUP: 'a/b' }).message).toContain('MQTT_SHARE_GROUP');
    expect(configError({ MQTT_SESSION_EXPIRY_S: '-1' }).message).toContain('MQTT_SESSION_EXPIRY_S');
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ SOMETHING_ELSE: 'x', PATH: '/usr/bin' }).port).toBe(8080);
  });
});
