/**
 * The input of one parameter by its type (contract params/schema.ts): a number field with the
 * unit after it (no clamping and no rounding: a value out of range stays as typed and the
 * contract's message shows under it), a choice of the options, a searchable IANA zone, or a
 * text field for addresses and numbers (IP, mask, SIM, host). `status="error"` while the value
 * has an issue. Test hook: `param-input-<key>`.
 */
import { DEFAULT_SITE_TIMEZONE, MAX_PARAM_TEXT_LENGTH, type ParamDef, type ParamValue } from '@ess/contract';
import { Input, InputNumber, Select } from 'antd';
import { useMemo } from 'react';
import { currentLang } from '@/shared/i18n';

/** Every IANA zone the browser knows, with `current` among them. */
function timeZones(current: ParamValue | null): string[] {
  let zones: string[];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [DEFAULT_SITE_TIMEZONE, 'UTC'];
  }
  const all = new Set([DEFAULT_SITE_TIMEZONE, 'UTC', ...zones]);
  if (typeof current === 'string' && current) all.add(current);
  return [...all].sort((a, b) => a.localeCompare(b));
}

interface Props {
  def: ParamDef;
  value: ParamValue | null;
  onChange: (value: ParamValue | null) => void;
  disabled?: boolean;
  invalid?: boolean;
  /** Accessible name (the parameter's label). */
  label: string;
}

export function ParamInput({ def, value, onChange, disabled, invalid, label }: Props) {
  const lang = currentLang();
  const status = invalid ? 'error' : undefined;
  const testId = `param-input-${def.key}`;
  const zones = useMemo(() => (def.type === 'timezone' ? timeZones(value) : []), [def.type, value]);

  switch (def.type) {
    case 'number':
    case 'int':
      return (
        <InputNumber<number>
          value={typeof value === 'number' ? value : null}
          onChange={(v) => onChange(v ?? null)}
          step={def.step}
          suffix={def.unit || undefined}
          disabled={disabled}
          status={status}
          aria-label={label}
          aria-invalid={invalid}
          className="params-input"
          data-testid={testId}
        />
      );
    case 'enum':
      return (
        <Select<ParamValue>
          value={value ?? undefined}
          onChange={(v) => onChange(v)}
          options={(def.options ?? []).map((o) => ({ value: o.value, label: o.label[lang] }))}
          disabled={disabled}
          status={status}
          aria-label={label}
          className="params-input"
          popupMatchSelectWidth={false}
          data-testid={testId}
        />
      );
    case 'timezone':
      return (
        <Select<string>
          showSearch
          value={typeof value === 'string' && value ? value : undefined}
          onChange={(v) => onChange(v)}
          options={zones.map((z) => ({ value: z, label: z }))}
          disabled={disabled}
          status={status}
          aria-label={label}
          className="params-input"
          data-testid={testId}
        />
      );
    default:
      return (
        <Input
          value={value === null ? '' : String(value)}
          onChange={(e) => onChange(e.target.value)}
          maxLength={def.maxLength ?? MAX_PARAM_TEXT_LENGTH}
          disabled={disabled}
          status={status}
          aria-label={label}
          aria-invalid={invalid}
          className="params-input"
          inputMode={def.type === 'phone' ? 'tel' : undefined}
          data-testid={testId}
        />
      );
  }
}
