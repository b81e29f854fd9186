/**
 * The embedded broker's TLS certificate (issue 13 item 11; docs/operations.md "MQTT over TLS").
 *
 * - `MQTT_TLS_CERT` + `MQTT_TLS_KEY` set: those PEM files are read at every start (a chain file
 *   is fine: the first certificate is the broker's).
 * - Otherwise a self-signed certificate is made on first start and kept in
 *   `DATA_DIR/mqtt-tls/broker-cert.pem` and `broker-key.pem` (key mode 0600, folder 0700), so
 *   its fingerprint stays the same across restarts; deleting the two files makes a new one.
 *
 * The generated certificate: ECDSA P-256 / SHA-256 (supported by OpenSSL, mbedTLS and wolfSSL on
 * gateways), valid {@link GENERATED_VALIDITY_DAYS} days, a self-signed CA (so it can be given to
 * clients as `--cafile`), with subject alternative names for localhost, this machine's host name
 * and addresses, and the host of `PUBLIC_URL`. It is built with `@peculiar/x509` on
 * `node:crypto`'s WebCrypto (docs/architecture.md "MQTT over TLS" says why that library).
 *
 * Errors: {@link ConfigError} naming the setting or file when a certificate or key cannot be
 * read, is not PEM, or the key does not belong to the certificate.
 */
import { createPrivateKey, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../core/config';

/** Days a generated certificate is valid (ten years: devices pin it; rotate by deleting it). */
export const GENERATED_VALIDITY_DAYS = 3650;

/** File names of a generated certificate and key inside the TLS folder. */
export const GENERATED_CERT_FILE = 'broker-cert.pem';
export const GENERATED_KEY_FILE = 'broker-key.pem';

export interface BrokerTlsOptions {
  /** TLS port (0 = any free one; a taken port moves to the next free one, as the plain port). */
  port: number;
  /** PEM certificate (chain) file; with `keyFile`, used instead of a generated certificate. */
  certFile?: string | undefined;
  keyFile?: string | undefined;
  /** Folder a generated certificate is kept in (`DATA_DIR/mqtt-tls`). */
  dir: string;
  /** Extra host names or addresses a generated certificate is made for (e.g. PUBLIC_URL's host). */
  hosts?: string[];
}

export interface BrokerCertificate {
  /** PEM of the certificate (chain) the broker presents; what clients take as `--cafile`. */
  cert: string;
  /** PEM private key. */
  key: string;
  /** SHA-256 fingerprint of the (first) certificate, `AB:CD:…` (as `openssl x509 -fingerprint -sha256`). */
  fingerprint: string;
  /** Where it came from: the configured files, a kept generated one, or one made just now. */
  source: 'files' | 'kept' | 'generated';
  /** The certificate file. */
  certFile: string;
  /** Expiry (ms since the epoch). */
  validTo: number;
}

/**
 * The certificate and key for the TLS listener: the configured files, else the generated pair in
 * `options.dir` (made now when either file is missing).
 */
export async function loadBrokerCertificate(options: BrokerTlsOptions): Promise<BrokerCertificate> {
  if (options.certFile && options.keyFile) {
    return readPair(options.certFile, options.keyFile, 'files', ['MQTT_TLS_CERT', 'MQTT_TLS_KEY']);
  }
  const certFile = path.join(options.dir, GENERATED_CERT_FILE);
  const keyFile = path.join(options.dir, GENERATED_KEY_FILE);
  if (existsSync(certFile) && existsSync(keyFile)) {
    return readPair(certFile, keyFile, 'kept', [certFile, keyFile]);
  }
  const made = await generateSelfSigned(certificateHosts(options.hosts ?? []));
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  // Key first, each written whole then renamed, so a crash never leaves a half file.
  writeAtomically(keyFile, made.key, 0o600);
  writeAtomically(certFile, made.cert, 0o644);
  return { ...describeCertificate(made.cert), ...made, source: 'generated', certFile };
}

/** Facts of a PEM certificate (its first one, for a chain): fingerprint and expiry. */
export function describeCertificate(pem: string): { fingerprint: string; validTo: number } {
  const cert = new X509Certificate(pem);
  return { fingerprint: cert.fingerprint256, validTo: Date.parse(cert.validTo) };
}

function readPair(
  certFile: string,
  keyFile: string,
  source: 'files' | 'kept',
  names: [string, string],
): BrokerCertificate {
  const read = (file: string, name: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code})`);
    }
  };
  const cert = read(certFile, names[0]);
  const key = read(keyFile, names[1]);
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`${names[0]}: ${certFile} is not a PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(`${names[1]}: ${keyFile} is not a PEM private key (or it is encrypted)`);
  }
  if (!parsed.checkPrivateKey(privateKey)) {
    throw new ConfigError(`${names[1]}: ${keyFile} is not the key of the certificate ${certFile}`);
  }
  return {
    cert,
    key,
    source,
    certFile,
    fingerprint: parsed.fingerprint256,
    validTo: Date.parse(parsed.validTo),
  };
}

/** Names a generated certificate is valid for: localhost, loopback, this host, its addresses, `extra`. */
export function certificateHosts(extra: string[]): string[] {
  const hosts = new Set<string>(['localhost', '127.0.0.1', '::1', os.hostname()]);
  for (const list of Object.values(os.networkInterfaces())) {
    for (const address of list ?? []) {
      // Link-local IPv6 addresses carry a zone and cannot be named in a certificate.
      if (!address.internal && !address.address.toLowerCase().startsWith('fe80:')) hosts.add(address.address);
    }
  }
  for (const host of extra) if (host) hosts.add(host.replace(/^\[|\]$/g, ''));
  return [...hosts];
}

async function generateSelfSigned(hosts: string[]): Promise<{ cert: string; key: string }> {
  // @peculiar/x509 2.x resolves its services through tsyringe, which needs the Reflect metadata
  // polyfill loaded first; both are loaded only here, on the first start.
  await import('reflect-metadata');
  // It signs with the global WebCrypto (`globalThis.crypto`, Node ≥ 20): the same as `webcrypto`.
  const x509 = await import('@peculiar/x509');
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // a positive serial number (RFC 5280 §4.1.2.2)
  const notBefore = new Date(Date.now() - 60_000); // a minute of slack for clocks behind ours
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: `CN=ESS Console MQTT broker ${os.hostname()}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + GENERATED_VALIDITY_DAYS * 86_400_000),
    signingAlgorithm: algorithm,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        hosts.map((value) => ({ type: net.isIP(value) ? ('ip' as const) : ('dns' as const), value })),
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

function writeAtomically(file: string, text: string, mode: number): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode });
  chmodSync(temp, mode); // the umask may have narrowed or the file may have existed
  renameSync(temp, file);
}
