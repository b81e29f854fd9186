/**
 * MQTT over TLS (devices/broker-tls.ts, embedded-broker.ts `listenTls`; issue 13 item 11): a
 * gateway connects to the embedded broker's TLS port trusting the certificate the secret answer
 * hands out, and its telemetry is stored; a client trusting another certificate (or only the
 * system CAs) is refused; with MQTT_PLAIN=off the plain port refuses connections; the generated
 * certificate is kept across restarts (same fingerprint, key mode 0600) and made anew when its
 * files are deleted; MQTT_TLS_CERT/KEY are used as given. With TEST_MQTT_URL, the server reaches
 * an external broker over `mqtts://` with MQTT_CA (through a TLS front for the test Mosquitto).
 */
import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { deviceSecretResponse, deviceTopic } from '@ess/contract';
import { eq } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/core/config';
import { telemetry } from '../src/core/db/schema';
import { GENERATED_CERT_FILE, GENERATED_KEY_FILE, loadBrokerCertificate } from '../src/devices/broker-tls';
import { DeviceService } from '../src/devices/device-service';
import { call, signIn } from './support/client';
import { conforms } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

/** Mosquitto's command-line publisher, where installed: checks the documented line with OpenSSL. */
const mosquittoPub = ['/usr/bin/mosquitto_pub', '/usr/local/bin/mosquitto_pub'].find((f) => existsSync(f));

/** A port nothing listens on now (bound, then released). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Registers a site with one gateway; answers the gateway's secret answer (contract-checked). */
async function registerGateway(ctx: TestContext, code: string) {
  const admin = await signIn(ctx.app);
  const api = (p: string, body: object) => call(ctx.app, `/api-bms/${p}`, body, { token: admin.token });
  const site = await api('site/save', { code, name: `TLS ${code}` });
  const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-${code}`, type: 'ems' });
  expect(ems.code).toBe(0);
  return {
    id: ems.data.id as number,
    secret: conforms(deviceSecretResponse, ems.data.secret),
    resetSecret: async () =>
      conforms(deviceSecretResponse, (await api('device/resetSecret', { id: ems.data.id })).data),
  };
}

const telemetryMessage = (sn: string, id: string) =>
  JSON.stringify({
    v: 1,
    id,
    ts: Date.now() - 1000,
    devices: [{ sn, type: 'ems', points: { soc_pct: 42 } }],
  });

describe.each(engines)('MQTT over TLS on the embedded broker on %s', (engine) => {
  let ctx: TestContext;
  let gateway: Awaited<ReturnType<typeof registerGateway>>;
  const code = `TLS-${engine}`;

  beforeAll(async () => {
    ctx = await createTestApp(engine, {}, { devices: { mqttPort: 0, mqttHost: '127.0.0.1' } });
    gateway = await registerGateway(ctx, code);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('the secret answer names the TLS port, the certificate to trust and its SHA-256 fingerprint', async () => {
    const { secret } = gateway;
    expect(secret.mqttPort).toBe(ctx.app.devices!.brokerAddress.port);
    expect(secret.mqttTlsPort).toBe(ctx.app.devices!.brokerAddress.tls!.port);
    expect(secret.mqttTlsPort).not.toBe(secret.mqttPort);
    const der = new X509Certificate(secret.mqttTlsCa!).raw;
    const hex = createHash('sha256').update(der).digest('hex').toUpperCase();
    expect(secret.mqttTlsFingerprint).toBe(hex.match(/../g)!.join(':'));
    // It is the certificate kept in the data folder, and the key beside it is the owner's only.
    const dir = path.join(ctx.config.dataDir, 'mqtt-tls');
    expect(readFileSync(path.join(dir, GENERATED_CERT_FILE), 'utf8')).toBe(secret.mqttTlsCa);
    if (process.platform !== 'win32') {
      expect(statSync(path.join(dir, GENERATED_KEY_FILE)).mode & 0o777).toBe(0o600);
    }
    // A re-issued secret answers the same broker facts.
    const reissued = await gateway.resetSecret();
    expect(reissued).toMatchObject({
      mqttTlsPort: secret.mqttTlsPort,
      mqttTlsCa: secret.mqttTlsCa,
      mqttTlsFingerprint: secret.mqttTlsFingerprint,
    });
    gateway.secret = reissued;
  });

  it('a gateway trusting that certificate connects over TLS with its SN and secret; its telemetry is stored', async () => {
    const { secret } = gateway;
    const client = await mqtt.connectAsync(`mqtts://localhost:${secret.mqttTlsPort}`, {
      ca: secret.mqttTlsCa!,
      clientId: secret.mqttClientId,
      username: secret.username,
      password: secret.secret,
      reconnectPeriod: 0,
    });
    try {
      // QoS 1: the PUBACK comes back only after the message is stored.
      await client.publishAsync(deviceTopic(secret.sn, 'telemetry'), telemetryMessage(secret.sn, 'tls-1'), {
        qos: 1,
      });
      const rows = await ctx.database.db.select().from(telemetry).where(eq(telemetry.deviceId, gateway.id));
      expect(rows.map((r) => r.points)).toEqual([{ soc_pct: 42 }]);
    } finally {
      await client.endAsync();
    }
  });

  it.runIf(mosquittoPub)('the documented `mosquitto_pub --cafile` line (OpenSSL) is accepted', async () => {
    const { secret } = gateway;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ess-cafile-'));
    try {
      const cafile = path.join(dir, 'ess-mqtt-ca.pem');
      writeFileSync(cafile, secret.mqttTlsCa!);
      const args = ['--cafile', cafile, '-h', 'localhost', '-p', String(secret.mqttTlsPort)];
      args.push('-i', secret.mqttClientId, '-u', secret.username, '-P', secret.secret, '-q', '1');
      args.push('-t', deviceTopic(secret.sn, 'telemetry'), '-m', telemetryMessage(secret.sn, 'tls-cafile'));
      // Asynchronous: the broker answering it runs in this process.
      const result = await promisify(execFile)(mosquittoPub!, args, { timeout: 10_000 });
      expect(result.stderr).toBe('');
      const rows = await ctx.database.db.select().from(telemetry).where(eq(telemetry.deviceId, gateway.id));
      expect(rows).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a client trusting another certificate, or only the system CAs, is refused before MQTT', async () => {
    const { secret } = gateway;
    const otherDir = mkdtempSync(path.join(os.tmpdir(), 'ess-other-ca-'));
    try {
      const other = await loadBrokerCertificate({ port: 0, dir: otherDir });
      expect(other.fingerprint).not.toBe(secret.mqttTlsFingerprint);
      const options = {
        clientId: secret.mqttClientId,
        username: secret.username,
        password: secret.secret,
        reconnectPeriod: 0,
        connectTimeout: 5_000,
      };
      const url = `mqtts://localhost:${secret.mqttTlsPort}`;
      await expect(mqtt.connectAsync(url, { ...options, ca: other.cert })).rejects.toThrow(
        /self[- ]signed|unable to verify|certificate/i,
      );
      await expect(mqtt.connectAsync(url, options)).rejects.toThrow(
        /self[- ]signed|unable to verify|certificate/i,
      );
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('a restart keeps the certificate (same fingerprint); deleting its files makes a new one', async () => {
    const dir = path.join(ctx.config.dataDir, 'mqtt-tls');
    const restarted = new DeviceService(ctx.database.db, ctx.app.log, {
      mqttPort: 0,
      mqttPlain: false,
      mqttHost: '127.0.0.1',
      mqttTls: { port: 0, dir },
    });
    await restarted.start();
    try {
      expect(restarted.brokerAddress.tls!.fingerprint).toBe(gateway.secret.mqttTlsFingerprint);
    } finally {
      await restarted.close();
    }
    const copy = mkdtempSync(path.join(os.tmpdir(), 'ess-rotate-'));
    try {
      const first = await loadBrokerCertificate({ port: 0, dir: copy });
      expect(first.source).toBe('generated');
      expect((await loadBrokerCertificate({ port: 0, dir: copy })).source).toBe('kept');
      rmSync(path.join(copy, GENERATED_CERT_FILE));
      rmSync(path.join(copy, GENERATED_KEY_FILE));
      const rotated = await loadBrokerCertificate({ port: 0, dir: copy });
      expect(rotated.source).toBe('generated');
      expect(rotated.fingerprint).not.toBe(first.fingerprint);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe.each(engines)('MQTT_PLAIN=off on %s', (engine) => {
  let ctx: TestContext;
  let plainPort: number;

  beforeAll(async () => {
    plainPort = await freePort();
    ctx = await createTestApp(
      engine,
      { MQTT_PLAIN: 'off', MQTT_PORT: String(plainPort) },
      { devices: { mqttHost: '127.0.0.1' } },
    );
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('the plain port refuses connections; the secret answer has no plain port, only TLS', async () => {
    const gateway = await registerGateway(ctx, `PLAIN-OFF-${engine}`);
    expect(gateway.secret.mqttPort).toBeNull();
    expect(gateway.secret.mqttTlsPort).toBeGreaterThan(0);
    const { secret } = gateway;
    const error = await mqtt
      .connectAsync(`mqtt://127.0.0.1:${plainPort}`, {
        clientId: secret.mqttClientId,
        username: secret.username,
        password: secret.secret,
        reconnectPeriod: 0,
      })
      .catch((err: NodeJS.ErrnoException) => err);
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    const client = await mqtt.connectAsync(`mqtts://localhost:${secret.mqttTlsPort}`, {
      ca: secret.mqttTlsCa!,
      clientId: secret.mqttClientId,
      username: secret.username,
      password: secret.secret,
      reconnectPeriod: 0,
    });
    await client.endAsync();
  });
});

describe('MQTT_TLS_CERT / MQTT_TLS_KEY', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ess-own-cert-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses the given pair as it is, and refuses a key of another certificate naming the setting', async () => {
    const own = await loadBrokerCertificate({ port: 0, dir: path.join(dir, 'a') });
    const other = await loadBrokerCertificate({ port: 0, dir: path.join(dir, 'b') });
    const given = await loadBrokerCertificate({
      port: 0,
      dir: path.join(dir, 'unused'),
      certFile: own.certFile,
      keyFile: path.join(dir, 'a', GENERATED_KEY_FILE),
    });
    expect(given).toMatchObject({ source: 'files', fingerprint: own.fingerprint, cert: own.cert });
    const mismatch = loadBrokerCertificate({
      port: 0,
      dir,
      certFile: own.certFile,
      keyFile: path.join(dir, 'b', GENERATED_KEY_FILE),
    });
    await expect(mismatch).rejects.toBeInstanceOf(ConfigError);
    await expect(mismatch).rejects.toThrow(/MQTT_TLS_KEY: .* is not the key of the certificate/);
    expect(other.fingerprint).not.toBe(own.fingerprint);
    const notPem = path.join(dir, 'not-a-cert.pem');
    writeFileSync(notPem, 'hello');
    await expect(
      loadBrokerCertificate({ port: 0, dir, certFile: notPem, keyFile: own.certFile }),
    ).rejects.toThrow(/MQTT_TLS_CERT: .* is not a PEM certificate/);
  });
});

describe.runIf(process.env.TEST_MQTT_URL)('external broker over mqtts:// with MQTT_CA', () => {
  let ctx: TestContext;
  let front: tls.Server;
  let frontPort: number;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ess-mqtts-front-'));

  beforeAll(async () => {
    // A TLS front for the test Mosquitto, with a certificate of its own as the "CA".
    const certificate = await loadBrokerCertificate({ port: 0, dir });
    const target = new URL(process.env.TEST_MQTT_URL!);
    front = tls.createServer({ cert: certificate.cert, key: certificate.key }, (socket) => {
      const upstream = net.connect(Number(target.port || 1883), target.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    frontPort = (front.address() as net.AddressInfo).port;
    ctx = await createTestApp(
      'pglite',
      {
        MQTT_URL: `mqtts://localhost:${frontPort}`,
        MQTT_CA: path.join(dir, GENERATED_CERT_FILE),
      },
      { devices: { mqttShareGroup: `ess-tls-${process.pid}` } },
    );
  });
  afterAll(async () => {
    await ctx?.close();
    await new Promise<void>((resolve) => front?.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects trusting MQTT_CA; the secret answer names the mqtts port and that CA', async () => {
    const gateway = await registerGateway(ctx, `MQTTS-${process.pid}`);
    expect(gateway.secret).toMatchObject({ mqttHost: 'localhost', mqttPort: null, mqttTlsPort: frontPort });
    expect(gateway.secret.mqttTlsCa).toBe(readFileSync(path.join(dir, GENERATED_CERT_FILE), 'utf8'));
    expect(gateway.secret.mqttTlsFingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });
});
