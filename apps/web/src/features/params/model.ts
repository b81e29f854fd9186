/**
 * What the parameter form computes from a device's shadow (contract api/params.ts) and the
 * operator's edits, kept free of React so it is tested on its own (test/params-model.test.ts).
 *
 * - The form starts from each key's **base**: what we want of it (`desired`), else what the
 *   device reported, else nothing.
 * - A **draft** holds the operator's edits (key → value; null for a field emptied). A **change**
 *   is an edit that differs from the base of a parameter that applies (`paramApplies`: the static
 *   IP's fields only with a static IP). Only changes are sent.
 * - The **issues** are the contract's (`validateParams`, partial: each present value and every
 *   rule whose values are all present), shown at their field; an issue *blocks* sending when it
 *   is about a changed key or a rule a changed key takes part in. Their texts are the contract's
 *   too (`paramIssueText`: spec §5 wording).
 */
import {
  type DeviceType,
  formatParamNumber,
  type Lang,
  PARAM_SCHEMAS,
  type ParamChangeRow,
  type ParamDef,
  type ParamIssue,
  type ParamRow,
  type ParamState,
  type ParamsDeviceResponse,
  type ParamsTreeDevice,
  type ParamsTreeSite,
  type ParamValue,
  type ParamValues,
  paramApplies,
  paramDef,
  paramDefs,
  paramIssueText,
  validateParams,
  validationMessages,
} from '@ess/contract';

/** The operator's edits: key → the value typed (null: the field emptied). */
export type Draft = Readonly<Record<string, ParamValue | null>>;

/** One change to send: the parameter, what the form started from and the new value. */
export interface ParamChange {
  key: string;
  def: ParamDef;
  from: ParamValue | null;
  to: ParamValue;
}

/** The value the form starts from for `row`: ours, else the device's, else none. */
export function baseValue(row: Pick<ParamRow, 'desired' | 'reported'>): ParamValue | null {
  return row.desired ?? row.reported;
}

/** Key → base value of every row of the device. */
export function baseValues(detail: Pick<ParamsDeviceResponse, 'params'>): Record<string, ParamValue | null> {
  return Object.fromEntries(detail.params.map((r) => [r.key, baseValue(r)]));
}

function sameValue(a: ParamValue | null | undefined, b: ParamValue | null | undefined): boolean {
  if (a === undefined || a === null || a === '') return b === undefined || b === null || b === '';
  if (typeof a === 'string' && typeof b === 'string') return a.trim() === b.trim();
  return a === b;
}

/** What the form shows: the base overlaid with the draft. */
export function formValues(
  detail: Pick<ParamsDeviceResponse, 'params'>,
  draft: Draft,
): Record<string, ParamValue | null> {
  return { ...baseValues(detail), ...draft };
}

/** True when the draft's value of `key` differs from the form's start. */
export function isEdited(detail: Pick<ParamsDeviceResponse, 'params'>, draft: Draft, key: string): boolean {
  if (!Object.hasOwn(draft, key)) return false;
  const row = detail.params.find((r) => r.key === key);
  return !sameValue(draft[key], row ? baseValue(row) : null);
}

/**
 * The changes of the draft, in schema order: edited keys of parameters that apply with the
 * form's values, holding a value (an emptied field is an issue when the parameter is required,
 * and sends nothing otherwise: a parameter cannot be unset on a device). Texts are trimmed.
 */
export function changesOf(
  type: DeviceType,
  detail: Pick<ParamsDeviceResponse, 'params'>,
  draft: Draft,
): ParamChange[] {
  const values = formValues(detail, draft);
  const base = baseValues(detail);
  const out: ParamChange[] = [];
  for (const def of paramDefs(type)) {
    if (!isEdited(detail, draft, def.key) || !paramApplies(def, values)) continue;
    const to = draft[def.key];
    if (to === null || to === undefined || to === '') continue;
    out.push({ key: def.key, def, from: base[def.key] ?? null, to: typeof to === 'string' ? to.trim() : to });
  }
  return out;
}

/**
 * The values the contract's validator sees: every key with a value, an emptied field as ''
 * (checked as empty), and the fields a changed `when` brings in (a static IP's address) as ''
 * while they are empty, so that "cannot be empty" shows before anything is sent.
 */
export function validationValues(
  type: DeviceType,
  detail: Pick<ParamsDeviceResponse, 'params'>,
  draft: Draft,
): ParamValues {
  const base = baseValues(detail);
  const out: Record<string, ParamValue | undefined> = {};
  for (const def of paramDefs(type)) {
    const v = Object.hasOwn(draft, def.key) ? (draft[def.key] ?? '') : (base[def.key] ?? undefined);
    out[def.key] = v === undefined && def.when && isEdited(detail, draft, def.when.key) ? '' : v;
  }
  return out;
}

/** The issues of the form, at most one per key, of the parameters that apply (key → issue). */
export function formIssues(
  type: DeviceType,
  detail: Pick<ParamsDeviceResponse, 'params'>,
  draft: Draft,
): Map<string, ParamIssue> {
  const values = validationValues(type, detail, draft);
  const out = new Map<string, ParamIssue>();
  for (const issue of validateParams(type, values, { partial: true })) {
    const def = paramDef(type, issue.key);
    if (def && !paramApplies(def, values)) continue;
    out.set(issue.key, issue);
  }
  return out;
}

/** The issues that keep the changes from being sent: about an edited key, or a rule one takes part in. */
export function blockingIssues(
  issues: ReadonlyMap<string, ParamIssue>,
  detail: Pick<ParamsDeviceResponse, 'params'>,
  draft: Draft,
): ParamIssue[] {
  const edited = (k: string) => isEdited(detail, draft, k);
  return [...issues.values()].filter((i) => edited(i.key) || (i.related ?? []).some(edited));
}

/** `value` as the operator reads it: number with the parameter's decimals and unit, option label, text. */
export function formatParamValue(
  def: ParamDef | undefined,
  value: ParamValue | null | undefined,
  lang: Lang,
): string {
  if (value === null || value === undefined || value === '') return '—';
  if (!def) return String(value);
  if (def.type === 'enum') {
    const option = def.options?.find((o) => o.value === value);
    if (option) return option.label[lang];
  }
  if (typeof value === 'number' && (def.type === 'number' || def.type === 'int')) {
    const text = formatParamNumber(def, value);
    return def.unit ? `${text} ${def.unit}` : text;
  }
  return String(value);
}

/** The range of a number parameter ('25.0–40.0 °C', '> 0'), or null when it has none. */
export function rangeOf(def: ParamDef): { min: string; max: string; unit: string } | null {
  if (def.min === undefined || def.max === undefined) return null;
  return { min: formatParamNumber(def, def.min), max: formatParamNumber(def, def.max), unit: def.unit };
}

/** True for a message key of the contract's validator (a refusal the console can translate). */
function isValidationKey(key: string): key is ParamIssue['messageKey'] {
  return Object.hasOwn(validationMessages, key);
}

/**
 * Why a key was refused, in `lang`: the contract's message when the device named one of the
 * validator's rules (`messageKey` + `messageParams`), else the device's own reason (English).
 */
export function refusalText(
  type: DeviceType,
  row: Pick<ParamRow, 'key' | 'reason' | 'messageKey' | 'messageParams'>,
  lang: Lang,
): string | null {
  if (row.messageKey && isValidationKey(row.messageKey)) {
    return paramIssueText(
      type,
      {
        key: row.key,
        messageKey: row.messageKey,
        ...(row.messageParams ? { params: row.messageParams } : {}),
      },
      lang,
    );
  }
  return row.reason;
}

/** antd Tag colour of each per-key state. */
export const STATE_COLORS: Record<ParamState, string> = {
  in_sync: 'default',
  pending: 'gold',
  sent: 'processing',
  applied: 'success',
  refused: 'error',
  timeout: 'warning',
  drift: 'magenta',
};

/**
 * The states a retry (params/retry) sends again: a change the device did not answer. A refused
 * one is not sent again as it is (the device would refuse it again): the operator changes it.
 */
export const RETRYABLE: readonly ParamState[] = ['timeout'];

/** The states still waiting for the device (read again now and then as a safety net). */
export const WAITING: readonly ParamState[] = ['pending', 'sent'];

/** Colour of a history row's outcome. */
export const OUTCOME_COLORS: Record<NonNullable<ParamChangeRow['outcome']>, string> = {
  applied: 'success',
  refused: 'error',
  timeout: 'warning',
};

/** The schema's groups of `type` holding at least one parameter. */
export function groupsOf(type: DeviceType) {
  return PARAM_SCHEMAS[type].filter((g) => g.params.length > 0);
}

/** A device of the tree with the site it belongs to. */
export interface TreeDevice extends ParamsTreeDevice {
  site: ParamsTreeSite;
}

/** Every device of the tree with its site, in tree order. */
export function treeDevices(sites: readonly ParamsTreeSite[]): TreeDevice[] {
  return sites.flatMap((site) => site.devices.map((d) => ({ ...d, site })));
}

/** Devices a copy from `source` may go to: the same type and model, other than the source. */
export function copyTargets(
  sites: readonly ParamsTreeSite[],
  source: Pick<ParamsTreeDevice, 'deviceId' | 'type' | 'model'>,
): TreeDevice[] {
  return treeDevices(sites).filter(
    (d) => d.deviceId !== source.deviceId && d.type === source.type && d.model === source.model,
  );
}

/**
 * The devices of a site nested as they are wired: each gateway with the devices behind it;
 * a device whose gateway is not listed stays at the top.
 */
export function nestDevices(
  devices: readonly ParamsTreeDevice[],
): { device: ParamsTreeDevice; children: ParamsTreeDevice[] }[] {
  const ids = new Set(devices.map((d) => d.deviceId));
  const top = devices.filter((d) => d.gatewayId === null || !ids.has(d.gatewayId));
  return top.map((device) => ({
    device,
    children: devices.filter((d) => d.gatewayId === device.deviceId),
  }));
}

/** The text key of a change kept for the reconnect: 3033 never connected, 3034 offline. */
export function waitingKey(code: 3033 | 3034): 'params.waiting.notConnected' | 'params.waiting.offline' {
  return code === 3033 ? 'params.waiting.notConnected' : 'params.waiting.offline';
}
