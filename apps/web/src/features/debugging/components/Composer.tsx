/**
 * The frame composer of a debugging session (issue 15 item 5): the serial port (`DEBUG_PORTS`),
 * then either a Modbus RTU request built from unit address, function (03/04 read, 06/16 write),
 * register and count / value / values — with a live preview of the frame and its CRC — or a raw
 * hex frame checked as it is typed; the reply timeout (ms); send. Faults are the contract's
 * (`modbusRequestIssue`, `parseHexFrame`), shown at their field in the UI language; a frame
 * with a fault is not sent. Whether a frame writes is decided here for the second confirmation,
 * which the session view asks.
 * Test hooks: `debug-port`, `debug-mode`, `debug-address`, `debug-fn`, `debug-register`,
 * `debug-count`, `debug-value`, `debug-values`, `debug-hex`, `debug-add-crc`, `debug-preview`,
 * `debug-timeout`, `debug-send`; field errors are `.ant-form-item-explain-error` of their item,
 * which carry `data-field`.
 */
import { SendOutlined } from '@ant-design/icons';
import {
  appendCrc,
  DEBUG_DEFAULT_TIMEOUT_MS,
  DEBUG_MAX_TIMEOUT_MS,
  DEBUG_MIN_TIMEOUT_MS,
  DEBUG_PORTS,
  type DebugPort,
  formatHex,
  hasValidCrc,
  MODBUS_FUNCTIONS,
  type ModbusFunction,
} from '@ess/contract';
import { Button, Form, Input, InputNumber, Segmented, Select } from 'antd';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLang } from '@/shared/i18n';
import {
  type Composed,
  type ComposerField,
  composedErrorText,
  composeHex,
  composeModbus,
  DEFAULT_DRAFT,
  type FrameMode,
  type ModbusDraft,
  splitCrc,
} from '../model';

/** What the composer hands over on send: a frame that passed the checks. */
export type ReadyFrame = Extract<Composed, { ok: true }>;

interface Props {
  /** Sends the frame; resolves when the exchange is over (answered, refused or cancelled). */
  onSend: (frame: ReadyFrame, port: DebugPort, timeoutMs: number) => Promise<void>;
  /** False while no session is open. */
  enabled: boolean;
}

const FN_HEX = (fn: number) => fn.toString(16).toUpperCase().padStart(2, '0');

/** The composer form. */
export function Composer({ onSend, enabled }: Props) {
  const { t, i18n } = useTranslation();
  const [port, setPort] = useState<DebugPort>('internal');
  const [mode, setMode] = useState<FrameMode>('modbus');
  const [draft, setDraft] = useState<ModbusDraft>(DEFAULT_DRAFT);
  const [hex, setHex] = useState('');
  const [hexTouched, setHexTouched] = useState(false);
  const [timeoutMs, setTimeoutMs] = useState<number | null>(DEBUG_DEFAULT_TIMEOUT_MS);
  const [sending, setSending] = useState(false);

  const composed = useMemo(
    () => (mode === 'modbus' ? composeModbus(draft) : composeHex(hex)),
    [mode, draft, hex],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text follows the language
  const errorText = useMemo(() => composedErrorText(composed, currentLang()), [composed, i18n.language]);
  const errorAt = (field: ComposerField) => {
    if (composed.ok || composed.field !== field) return {};
    if (field === 'hex' && !hexTouched) return {};
    return {
      validateStatus: 'error' as const,
      help: <span data-field={field}>{errorText}</span>,
    };
  };

  const set = (patch: Partial<ModbusDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const send = async () => {
    setHexTouched(true);
    if (!composed.ok || !enabled || sending) return;
    setSending(true);
    try {
      await onSend(composed, port, timeoutMs ?? DEBUG_DEFAULT_TIMEOUT_MS);
    } finally {
      setSending(false);
    }
  };

  let preview: ReactNode;
  if (composed.ok) {
    const [body, crc] = splitCrc(composed.bytes);
    preview = (
      <>
        <code className="debug-preview__hex">
          {mode === 'modbus' ? (
            <>
              {body} <span className="debug-line__crc">{crc}</span>
            </>
          ) : (
            formatHex(composed.bytes)
          )}
        </code>
        <span className="debug-muted">
          {composed.request
            ? t('debugging.composer.parsed', {
                fn: FN_HEX(composed.request.fn),
                name: t(`debugging.composer.fnName.${composed.request.fn}`),
                unit: composed.request.address,
                register: composed.request.register,
              })
            : t('debugging.composer.notModbus')}
          {composed.write && ` · ${t('debugging.composer.writes')}`}
        </span>
      </>
    );
  } else {
    preview = <span className="debug-muted">{t('debugging.composer.previewNone')}</span>;
  }

  return (
    <Form
      layout="vertical"
      className="debug-composer"
      onFinish={() => void send()}
      data-testid="debug-composer"
    >
      <div className="debug-composer__row">
        <Form.Item label={t('debugging.composer.port')} className="debug-composer__port">
          <Select<DebugPort>
            value={port}
            onChange={setPort}
            options={DEBUG_PORTS.map((p) => ({ value: p, label: t(`debugging.port.${p}`) }))}
            data-testid="debug-port"
          />
        </Form.Item>
        <Form.Item label={t('debugging.composer.mode')}>
          <Segmented<FrameMode>
            value={mode}
            onChange={setMode}
            options={[
              { value: 'modbus', label: t('debugging.composer.modbus') },
              { value: 'hex', label: t('debugging.composer.hex') },
            ]}
            data-testid="debug-mode"
          />
        </Form.Item>
      </div>

      {mode === 'modbus' ? (
        <div className="debug-composer__row">
          <Form.Item
            label={t('debugging.composer.address')}
            className="debug-composer__num"
            {...errorAt('address')}
          >
            <InputNumber<number>
              value={draft.address}
              onChange={(v) => set({ address: v })}
              data-testid="debug-address"
            />
          </Form.Item>
          <Form.Item label={t('debugging.composer.fn')} className="debug-composer__fn">
            <Select<ModbusFunction>
              value={draft.fn}
              onChange={(fn) => set({ fn })}
              options={MODBUS_FUNCTIONS.map((fn) => ({
                value: fn,
                label: `${FN_HEX(fn)} ${t(`debugging.composer.fnName.${fn}`)}`,
              }))}
              popupMatchSelectWidth={false}
              data-testid="debug-fn"
            />
          </Form.Item>
          <Form.Item
            label={t(draft.fn === 6 ? 'debugging.composer.registerOne' : 'debugging.composer.register')}
            className="debug-composer__num"
            {...errorAt('register')}
          >
            <InputNumber<number>
              value={draft.register}
              onChange={(v) => set({ register: v })}
              data-testid="debug-register"
            />
          </Form.Item>
          {(draft.fn === 3 || draft.fn === 4) && (
            <Form.Item
              label={t('debugging.composer.count')}
              className="debug-composer__num"
              {...errorAt('count')}
            >
              <InputNumber<number>
                value={draft.count}
                onChange={(v) => set({ count: v })}
                data-testid="debug-count"
              />
            </Form.Item>
          )}
          {draft.fn === 6 && (
            <Form.Item
              label={t('debugging.composer.value')}
              className="debug-composer__num"
              {...errorAt('value')}
            >
              <InputNumber<number>
                value={draft.value}
                onChange={(v) => set({ value: v })}
                data-testid="debug-value"
              />
            </Form.Item>
          )}
          {draft.fn === 16 && (
            <Form.Item
              label={t('debugging.composer.values')}
              className="debug-composer__values"
              {...errorAt('values')}
            >
              <Input
                value={draft.valuesText}
                onChange={(e) => set({ valuesText: e.target.value })}
                placeholder={t('debugging.composer.valuesPlaceholder')}
                data-testid="debug-values"
              />
            </Form.Item>
          )}
        </div>
      ) : (
        <Form.Item
          label={t('debugging.composer.hexFrame')}
          extra={t('debugging.composer.hexHelp')}
          {...errorAt('hex')}
        >
          <Input.TextArea
            value={hex}
            onChange={(e) => {
              setHex(e.target.value);
              setHexTouched(true);
            }}
            placeholder="01 04 00 00 00 01 31 CA"
            autoSize={{ minRows: 2, maxRows: 6 }}
            spellCheck={false}
            className="debug-mono"
            data-testid="debug-hex"
          />
        </Form.Item>
      )}

      <div className="debug-preview" data-testid="debug-preview">
        <span className="debug-preview__label">{t('debugging.composer.preview')}</span>
        {preview}
      </div>

      <div className="debug-composer__actions">
        <label className="debug-composer__timeout" htmlFor="debug-timeout">
          <span>{t('debugging.composer.timeout')}</span>
          <InputNumber<number>
            value={timeoutMs}
            min={DEBUG_MIN_TIMEOUT_MS}
            max={DEBUG_MAX_TIMEOUT_MS}
            step={500}
            precision={0}
            onChange={setTimeoutMs}
            suffix="ms"
            id="debug-timeout"
            data-testid="debug-timeout"
          />
        </label>
        {mode === 'hex' && (
          <Button
            disabled={!composed.ok || hasValidCrc(composed.bytes)}
            onClick={() => composed.ok && setHex(formatHex(appendCrc(composed.bytes)))}
            data-testid="debug-add-crc"
          >
            {t('debugging.composer.addCrc')}
          </Button>
        )}
        <Button
          type="primary"
          htmlType="submit"
          icon={<SendOutlined />}
          loading={sending}
          disabled={!enabled}
          data-testid="debug-send"
        >
          {t('debugging.composer.send')}
        </Button>
      </div>
    </Form>
  );
}
