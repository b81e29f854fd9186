/**
 * The one check of device parameters (schema.ts), run by the parameter form, by the server before
 * it stores or sends a change, and by the simulated EMS before it applies one.
 *
 * - {@link validateParams}: the issues of a set of values, at most one per parameter (what a
 *   form shows under each field; the server answers -100 with the first, naming the field).
 *   `partial: true` checks only the parameters present — a change set, or a device's report —
 *   and a rule between parameters only when all of its parameters are present.
 * - {@link applyParamChanges}: what a device does with a `set_params`: each change applied or
 *   refused with its reason, never leaving a rule between parameters broken.
 * - {@link paramIssueText}: an issue's message in zh or en (validation.ts texts; spec §5 wording
 *   where the spec has one).
 *
 * Per parameter, in this order: empty (required → "{label} cannot be empty", spec §5), type,
 * range (`{min}`/`{max}` with the parameter's decimals: "between 25.0 and 40.0"), decimals,
 * options, then the format of addresses (spec §5 "please enter the correct Ip address" /
 * "… phone number"). Then the rules of {@link PARAM_RULES} between parameters whose values passed.
 */

import type { DeviceType } from '../device/protocol';
import { timezoneSchema } from '../device/protocol';
import type { Lang } from '../lang';
import { isValidIpv4, isValidPhone, type ValidationMessageKey, validationMessages } from '../validation';
import {
  formatParamNumber,
  PARAM_RULES,
  type ParamDef,
  type ParamRule,
  type ParamValue,
  paramDef,
  paramDefs,
  SERIAL_SETTINGS,
} from './schema';

/** One broken rule: the parameter it is shown under, the message and the message's values. */
export interface ParamIssue {
  key: string;
  messageKey: ValidationMessageKey;
  /** `{min}`, `{max}`, `{decimals}`, `{key}`; `{other}` is the *key* of the other parameter. */
  params?: Record<string, string | number>;
  /** The other parameters of a rule between parameters. */
  related?: string[];
}

export interface ValidateParamsOptions {
  /** Check only the parameters present (a change set, a report); default false (a whole form). */
  partial?: boolean;
}

/** Values as a form or a body holds them: null, undefined or '' is empty. */
export type ParamValues = Readonly<Record<string, ParamValue | null | undefined>>;

/** 13-digit IoT SIM numbers of the Chinese carriers (1064…, 14xx…). */
const IOT_SIM_PATTERN = /^1(?:064|4\d\d)\d{9}$/;

/** A SIM's number: a mainland mobile number (spec §5) or a 13-digit IoT number (ours). */
export function isValidSimNumber(v: string): boolean {
  return isValidPhone(v) || IOT_SIM_PATTERN.test(v);
}

/** The 32-bit value of a dotted quad (call only on a valid one). */
export function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
}

/** True for an IPv4 subnet mask: contiguous ones from the left, /1 to /32. */
export function isValidNetmask(mask: string): boolean {
  if (!isValidIpv4(mask)) return false;
  const m = ipv4ToInt(mask);
  const host = ~m >>> 0;
  return m !== 0 && (host & (host + 1)) === 0;
}

const HOST_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** True for an IPv4 address or an RFC 1123 host name (at most 253 characters, last label not numeric). */
export function isValidHost(host: string): boolean {
  if (isValidIpv4(host)) return true;
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split('.');
  return labels.every((l) => HOST_LABEL.test(l)) && !/^\d+$/.test(labels[labels.length - 1]!);
}

function isEmpty(v: ParamValue | null | undefined): v is null | undefined | '' {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

function hasDecimals(v: number, decimals: number): boolean {
  const scaled = v * 10 ** decimals;
  return Math.abs(scaled - Math.round(scaled)) <= 1e-6 * Math.max(1, Math.abs(scaled));
}

/** The issue of one value of `def` (not empty), or undefined. */
function valueIssue(def: ParamDef, v: ParamValue): ParamIssue | undefined {
  const issue = (messageKey: ValidationMessageKey, params?: ParamIssue['params']): ParamIssue => ({
    key: def.key,
    messageKey,
    ...(params ? { params } : {}),
  });
  switch (def.type) {
    case 'number':
    case 'int': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return issue('paramNotNumber');
      if (def.type === 'int' && !Number.isInteger(v)) return issue('paramNotInteger');
      if (def.positive && v <= 0) return issue('numberPositive');
      if (def.min !== undefined && def.max !== undefined && (v < def.min || v > def.max)) {
        return issue('paramOutOfRange', {
          min: formatParamNumber(def, def.min),
          max: formatParamNumber(def, def.max),
        });
      }
      if (def.max !== undefined && v > def.max) {
        return issue('paramTooLarge', { max: formatParamNumber(def, def.max) });
      }
      if (def.decimals !== undefined && def.type === 'number' && !hasDecimals(v, def.decimals)) {
        return issue('paramTooManyDecimals', { decimals: def.decimals });
      }
      return undefined;
    }
    case 'enum':
      return def.options?.some((o) => o.value === v) ? undefined : issue('paramNotOption');
    case 'ipv4':
      return typeof v === 'string' && isValidIpv4(v) ? undefined : issue('ipInvalid');
    case 'netmask':
      return typeof v === 'string' && isValidNetmask(v) ? undefined : issue('maskInvalid');
    case 'phone':
      return typeof v === 'string' && isValidSimNumber(v) ? undefined : issue('phoneInvalid');
    case 'host':
      return typeof v === 'string' && isValidHost(v) ? undefined : issue('hostInvalid');
    case 'timezone':
      return timezoneSchema.safeParse(v).success ? undefined : issue('timezoneInvalid');
  }
}

/**
 * True while `def` applies: always, or while the parameter its `when` names has that value
 * (a static IP's fields, the manual setpoint). The form hides and does not send the others; a
 * value sent anyway is still checked.
 */
export function paramApplies(def: ParamDef, values: ParamValues): boolean {
  return def.when === undefined || values[def.when.key] === def.when.value;
}

/** The keys a rule reads. */
export function ruleKeys(rule: ParamRule): string[] {
  switch (rule.kind) {
    case 'order':
      return [rule.lower, rule.upper];
    case 'serial':
      return [rule.baud, rule.stopBits, rule.parity];
    case 'subnet':
      return [rule.ip, rule.mask, rule.gateway];
  }
}

/** The issue of a rule whose values are all present and valid, or undefined. */
function ruleIssue(rule: ParamRule, values: ParamValues): ParamIssue | undefined {
  const related = ruleKeys(rule).filter((k) => k !== rule.field);
  switch (rule.kind) {
    case 'order': {
      const lo = values[rule.lower] as number;
      const hi = values[rule.upper] as number;
      if (rule.strict ? lo < hi : lo <= hi) return undefined;
      const onLower = rule.field === rule.lower;
      const messageKey: ValidationMessageKey = onLower
        ? rule.strict
          ? 'paramMustBeBelow'
          : 'paramNotAbove'
        : rule.strict
          ? 'paramMustBeAbove'
          : 'paramNotBelow';
      return { key: rule.field, messageKey, params: { other: onLower ? rule.upper : rule.lower }, related };
    }
    case 'serial': {
      const ok = SERIAL_SETTINGS.some(
        (s) =>
          s.baudRate === values[rule.baud] &&
          s.stopBits === values[rule.stopBits] &&
          s.parity === values[rule.parity],
      );
      return ok ? undefined : { key: rule.field, messageKey: 'serialSettingsInvalid', related };
    }
    case 'subnet': {
      const mask = ipv4ToInt(values[rule.mask] as string);
      const same =
        (ipv4ToInt(values[rule.ip] as string) & mask) >>> 0 ===
        (ipv4ToInt(values[rule.gateway] as string) & mask) >>> 0;
      return same ? undefined : { key: rule.field, messageKey: 'gatewayOutsideSubnet', related };
    }
  }
}

/** Every issue of `values` (several per parameter possible), in form order, rules last. */
function allIssues(type: DeviceType, values: ParamValues, partial: boolean): ParamIssue[] {
  const issues: ParamIssue[] = [];
  const defs = paramDefs(type);
  const known = new Set(defs.map((d) => d.key));
  const invalid = new Set<string>();
  for (const def of defs) {
    const v = values[def.key];
    if (isEmpty(v)) {
      invalid.add(def.key);
      // Partial: an absent parameter is not checked, one cleared on purpose (null, '') is.
      if (def.required && paramApplies(def, values) && (!partial || v !== undefined)) {
        issues.push({ key: def.key, messageKey: 'paramRequired' });
      }
      continue;
    }
    const issue = valueIssue(def, v);
    if (issue) {
      invalid.add(def.key);
      issues.push(issue);
    }
  }
  for (const key of Object.keys(values)) {
    if (!known.has(key)) issues.push({ key, messageKey: 'paramUnknown', params: { key } });
  }
  for (const rule of PARAM_RULES[type]) {
    if (ruleKeys(rule).some((k) => invalid.has(k) || !known.has(k))) continue;
    const issue = ruleIssue(rule, values);
    if (issue) issues.push(issue);
  }
  return issues;
}

/**
 * The issues of `values` for a device of `type`: at most one per parameter (the first broken
 * rule), in form order, then unknown keys. Empty when the values may be stored and sent.
 */
export function validateParams(
  type: DeviceType,
  values: ParamValues,
  options: ValidateParamsOptions = {},
): ParamIssue[] {
  const seen = new Set<string>();
  return allIssues(type, values, options.partial ?? false).filter((i) => {
    if (seen.has(i.key)) return false;
    seen.add(i.key);
    return true;
  });
}

/** How a device answered one change of a `set_params` (messages.ts `paramChangeResultSchema`). */
export interface ParamChangeOutcome {
  status: 'applied' | 'refused';
  /** The value in force after the command (refused: the one kept; null when it has none). */
  value: ParamValue | null;
  /** Why it was refused (the validator's issue). */
  issue?: ParamIssue;
}

/**
 * Applies `changes` to the `current` values of a device of `type` as a device does: each change
 * is applied or refused on its own (spec: "the device answers per parameter"), and the result
 * never breaks a rule that a change takes part in. A change is refused when its own value is
 * wrong, when its key is unknown, or when it breaks a rule between parameters together with the
 * other values: then the parameter the rule's message is about (its `field`) is refused if it
 * was changed, else the other changed parameters of the rule, with the rule's message. Refusing
 * one change can make a rule hold or fail again, so the check repeats until nothing more is
 * refused (each change is refused at most once). Rules broken only by values that were not changed (a
 * device's own state) refuse nothing.
 *
 * Returns the values in force afterwards and one outcome per change.
 */
export function applyParamChanges(
  type: DeviceType,
  current: Readonly<Record<string, ParamValue>>,
  changes: Readonly<Record<string, ParamValue>>,
): { values: Record<string, ParamValue>; results: Record<string, ParamChangeOutcome> } {
  const refused = new Map<string, ParamIssue>();
  for (;;) {
    const candidate: Record<string, ParamValue> = { ...current };
    for (const [k, v] of Object.entries(changes)) if (!refused.has(k)) candidate[k] = v;
    const open = (k: string) => Object.hasOwn(changes, k) && !refused.has(k);
    const issues = allIssues(type, candidate, true);
    // A change's own value (and an unknown key) is wrong whatever the others are: all at once.
    const own = issues.filter((i) => i.related === undefined && open(i.key));
    for (const issue of own) refused.set(issue.key, issue);
    let more = own.length > 0;
    if (!more) {
      // Then the first rule between parameters that a change breaks, one at a time: refusing
      // its change may mend the next rule. The change the message is about when it is one,
      // else the rule's other changed parameters.
      for (const issue of issues) {
        const involved = open(issue.key) ? [issue.key] : (issue.related ?? []).filter(open);
        for (const k of involved) refused.set(k, issue);
        if (involved.length > 0) {
          more = true;
          break;
        }
      }
    }
    if (!more) {
      const results: Record<string, ParamChangeOutcome> = {};
      for (const [k, v] of Object.entries(changes)) {
        const issue = refused.get(k);
        results[k] = issue
          ? { status: 'refused', value: Object.hasOwn(current, k) ? current[k]! : null, issue }
          : { status: 'applied', value: v };
      }
      return { values: candidate, results };
    }
  }
}

/** `label` as it reads inside an English sentence: "the cooling start temperature", "the SOC floor". */
function inSentence(label: string, lang: Lang): string {
  if (lang !== 'en' || label.length < 2) return label;
  return /[A-Z]/.test(label[1]!) ? label : label[0]!.toLowerCase() + label.slice(1);
}

/**
 * The message of `issue` in `lang`: `{label}` the parameter's label, `{other}` the other
 * parameter's, the rest from `issue.params` (spec §5 texts where the spec has them).
 */
export function paramIssueText(type: DeviceType, issue: ParamIssue, lang: Lang): string {
  const label = (key: string) => paramDef(type, key)?.label[lang] ?? key;
  const template: string = validationMessages[issue.messageKey][lang];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (name === 'label') return label(issue.key);
    const v = issue.params?.[name];
    if (v === undefined) return whole;
    return name === 'other' ? inSentence(label(String(v)), lang) : String(v);
  });
}
