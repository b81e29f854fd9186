/**
 * The MQTT connection facts of a gateway, shown once after it is registered or its secret is
 * re-issued (docs/device-protocol.md "Connecting"): broker host (the page's host name unless
 * the server names one), port (the server's when given, else 1883), client id, username (= SN),
 * password (= the secret), each with a copy button, and a ready-to-paste `mosquitto_pub` that
 * publishes the retained birth message to `ess/v1/<SN>/status`. The secret is never stored in
 * the browser and cannot be shown again.
 * Test hooks: `secret-dialog`, `secret-value`, `secret-command`, `secret-done`,
 * `secret-copy-<field>`.
 */
import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { deviceTopic } from '@ess/contract';
import { Alert, Button, Modal, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showError } from '@/shared/feedback';
import { copyText } from '@/shared/ui/copy';
import type { DeviceSecret } from '../api';

/** MQTT port of the embedded broker unless the server says otherwise (design §2). */
export const DEFAULT_MQTT_PORT = 1883;

/** `value` quoted for a POSIX shell. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_.:/@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The `mosquitto_pub` line that sends the gateway's birth message (retained, QoS 1). */
export function birthCommand(secret: DeviceSecret, host: string, port: number): string {
  return [
    `mosquitto_pub -h ${shellQuote(host)} -p ${port} \\`,
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
  const port = shown?.mqttPort ?? DEFAULT_MQTT_PORT;
  const rows: { field: string; value: string; secret?: boolean }[] = shown
    ? [
        { field: 'host', value: host },
        { field: 'port', value: String(port) },
        { field: 'clientId', value: shown.mqttClientId },
        { field: 'username', value: shown.username },
        { field: 'password', value: shown.secret, secret: true },
        { field: 'topic', value: deviceTopic(shown.sn, 'status') },
      ]
    : [];
  const command = shown ? birthCommand(shown, host, port) : '';

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
        </div>
      </div>
    </Modal>
  );
}
