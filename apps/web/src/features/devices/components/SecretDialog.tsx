/**
 * The MQTT connection facts of a gateway, shown once after it is registered or its secret is
 * re-issued (docs/device-protocol.md "Connecting"): broker host (the page's host name unless
 * the server names one), plain port (when the broker takes plain connections), TLS port and the
 * SHA-256 fingerprint of the certificate to trust (when it offers TLS), client id, username
 * (= SN), password (= the secret), each with a copy button; a download of the certificate
 * (`ess-mqtt-ca.pem`); and a ready-to-paste `mosquitto_pub` that publishes the retained birth
 * message to `ess/v1/<SN>/status` — over TLS with `--cafile` when the broker offers TLS. The
 * secret is never stored in the browser and cannot be shown again.
 * Test hooks: `secret-dialog`, `secret-value`, `secret-command`, `secret-done`,
 * `secret-copy-<field>`, `secret-<field>`, `secret-ca-download`.
 */
import { CheckOutlined, CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { deviceTopic } from '@ess/contract';
import { Alert, Button, Modal, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showError } from '@/shared/feedback';
import { copyText } from '@/shared/ui/copy';
import { saveFile } from '@/shared/ui/download';
import type { DeviceSecret } from '../api';

/** MQTT port of the embedded broker unless the server says otherwise (design §2). */
export const DEFAULT_MQTT_PORT = 1883;

/** File name the broker's certificate is downloaded as, and that the TLS command names. */
export const CA_FILE_NAME = 'ess-mqtt-ca.pem';

/** `value` quoted for a POSIX shell. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_.:/@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The `mosquitto_pub` line that sends the gateway's birth message (retained, QoS 1): over TLS
 * when `tls` is given, trusting `--cafile` (the broker's certificate) or, when the server names
 * none, the system's CAs (`--capath /etc/ssl/certs`).
 */
export function birthCommand(
  secret: DeviceSecret,
  host: string,
  port: number,
  tls?: { caFile: string | null },
): string {
  const trust = tls ? (tls.caFile ? `--cafile ${shellQuote(tls.caFile)} ` : '--capath /etc/ssl/certs ') : '';
  return [
    `mosquitto_pub ${trust}-h ${shellQuote(host)} -p ${port} \\`,
    `  -i ${shellQuote(secret.mqttClientId)} -u ${shellQuote(secret.username)} -P ${shellQuote(secret.secret)} \\`,
    `  -q 1 -r -t ${shellQuote(deviceTopic(secret.sn, 'status'))} \\`,
    `  -m "{\\"v\\":1,\\"ts\\":$(date +%s)000,\\"online\\":true}"`,
  ].join('\n');
}

function CopyButton({ text, field }: { text: string; field: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(false), 2000);
    return () => window.clearTimeout(timer);
  }, [copied]);
  const label = copied ? t('devices.secret.copied') : t('devices.secret.copy');
  return (
    <Tooltip title={label}>
      <Button
        type="text"
        size="small"
        aria-label={`${label}: ${t(`devices.secret.${field}` as 'devices.secret.host')}`}
        icon={copied ? <CheckOutlined className="secret__copied" /> : <CopyOutlined />}
        onClick={() =>
          void copyText(text).then((ok) => (ok ? setCopied(true) : showError(t('devices.secret.copyFailed'))))
        }
        data-testid={`secret-copy-${field}`}
      />
    </Tooltip>
  );
}

interface Props {
  secret: DeviceSecret | null;
  onClose: () => void;
}

/** The one-time secret dialog; open while `secret` is set. */
export function SecretDialog({ secret, onClose }: Props) {
  const { t } = useTranslation();
  // Keep the last secret while the dialog animates out.
  const [shown, setShown] = useState<DeviceSecret | null>(secret);
  useEffect(() => {
    if (secret) setShown(secret);
  }, [secret]);

  const host = shown?.mqttHost || window.location.hostname;
  const tlsPort = shown?.mqttTlsPort ?? null;
  // No port at all: an older server; its embedded broker listened on 1883.
  const port = shown?.mqttPort ?? (tlsPort === null ? DEFAULT_MQTT_PORT : null);
  const ca = shown?.mqttTlsCa ?? null;
  const rows: { field: string; value: string; secret?: boolean }[] = shown
    ? [
        { field: 'host', value: host },
        ...(port !== null ? [{ field: 'port', value: String(port) }] : []),
        ...(tlsPort !== null ? [{ field: 'tlsPort', value: String(tlsPort) }] : []),
        ...(shown.mqttTlsFingerprint ? [{ field: 'fingerprint', value: shown.mqttTlsFingerprint }] : []),
        { field: 'clientId', value: shown.mqttClientId },
        { field: 'username', value: shown.username },
        { field: 'password', value: shown.secret, secret: true },
        { field: 'topic', value: deviceTopic(shown.sn, 'status') },
      ]
    : [];
  const command = !shown
    ? ''
    : tlsPort !== null
      ? birthCommand(shown, host, tlsPort, { caFile: ca ? CA_FILE_NAME : null })
      : birthCommand(shown, host, port ?? DEFAULT_MQTT_PORT);

  return (
    <Modal
      open={secret !== null}
      title={t('devices.secret.title', { sn: shown?.sn ?? '' })}
      width={DIALOG_WIDTH_PX}
      onCancel={onClose}
      afterClose={() => setShown(null)}
      destroyOnHidden
      mask={{ closable: false }}
      keyboard={false}
      footer={
        <Button type="primary" onClick={onClose} data-testid="secret-done">
          {t('devices.secret.done')}
        </Button>
      }
    >
      <div className="secret" data-testid="secret-dialog">
        <Alert
          type="warning"
          showIcon
          title={t('devices.secret.warning')}
          description={t('devices.secret.warningDetail')}
        />
        <dl className="secret__facts">
          {rows.map((row) => (
            <div
              key={row.field}
              className={row.secret ? 'secret__fact secret__fact--secret' : 'secret__fact'}
            >
              <dt>{t(`devices.secret.${row.field}` as 'devices.secret.host')}</dt>
              <dd>
                <code data-testid={row.secret ? 'secret-value' : `secret-${row.field}`}>{row.value}</code>
                <CopyButton text={row.value} field={row.field} />
              </dd>
            </div>
          ))}
        </dl>
        <div className="secret__example">
          <div className="secret__example-head">
            <span>{t('devices.secret.example')}</span>
            <CopyButton text={command} field="command" />
          </div>
          <pre className="secret__command" data-testid="secret-command">
            {command}
          </pre>
          <p className="secret__hint">{t('devices.secret.exampleHint')}</p>
          {tlsPort !== null && (
            <p className="secret__hint">
              {t(ca ? 'devices.secret.tlsHint' : 'devices.secret.tlsSystemCaHint', { file: CA_FILE_NAME })}
            </p>
          )}
          {ca && (
            <Button
              className="secret__ca"
              size="small"
              icon={<DownloadOutlined />}
              onClick={() => saveFile(CA_FILE_NAME, new Blob([ca], { type: 'application/x-pem-file' }))}
              data-testid="secret-ca-download"
            >
              {t('devices.secret.downloadCa', { file: CA_FILE_NAME })}
            </Button>
          )}
        </div>
      </div>
    </Modal>
  );
}
