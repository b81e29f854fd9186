/**
 * Field rules shared by the console's forms and the server (spec §5, §9), with their zh/en
 * messages. The console shows these messages under the field; the server answers -100 with the
 * same text when a body breaks a rule.
 */
import type { Lang } from './lang';

/** Minimum password length before hashing (spec §5, §9). */
export const PASSWORD_MIN_LENGTH = 6;

/** Longest account name we accept (ours: keeps the login throttle keys bounded). */
export const ACCOUNT_MAX_LENGTH = 64;

/** The browser sends SHA-256 of the password as 64 lower-case hex digits (spec §5: "hashed"). */
export const PASSWORD_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** E-mail: something@domain.tld without spaces (WHATWG's "valid e-mail address", simplified). */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Mainland China mobile number: 11 digits starting 13–19 (spec §5 "correct phone number"). */
export const PHONE_PATTERN = /^1[3-9]\d{9}$/;

/** Dotted-quad IPv4 address, each part 0–255 (spec §5 "correct Ip address"). */
export const IPV4_PATTERN = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Values of the alarm e-mail subscription flag (spec §3, §9). */
export const SUB_ALARM_VALUES = ['Y', 'N'] as const;
export type SubAlarm = (typeof SUB_ALARM_VALUES)[number];

/** `template` with its `{name}` placeholders replaced from `values` (unknown names stay as they are). */
export function fillTemplate(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    key in values ? String(values[key]) : whole,
  );
}

/** Validation messages, keyed by rule (spec §5 texts). */
export const validationMessages = {
  accountRequired: { zh: '请输入正确的用户名', en: 'Please enter the correct user name' },
  passwordTooShort: { zh: '密码不能少于6位', en: 'The password can not be less than 6 digits' },
  oldPasswordRequired: { zh: '请输入原密码', en: 'Please enter the original password' },
  newPasswordRequired: { zh: '请输入新密码', en: 'Please enter the new password' },
  confirmPasswordRequired: { zh: '请再次输入密码', en: 'Please enter the password again' },
  passwordsInconsistent: { zh: '两次输入的密码不一致', en: 'The two passwords are inconsistent' },
  emailRequired: { zh: '请输入邮箱', en: 'Please enter the e-mail' },
  emailInvalid: { zh: '请输入正确的邮箱', en: 'Please enter a valid e-mail' },
  subAlarmRequired: { zh: '请选择', en: 'Please choose' },
  phoneInvalid: { zh: '请输入正确的手机号码', en: 'Please enter the correct phone number' },
  ipInvalid: { zh: '请输入正确的IP地址', en: 'Please enter the correct Ip address' },
  numberPositive: { zh: '数字必须大于0', en: 'Number must be greater than 0' },
  /** ours: a text with U+0000 or half of a surrogate pair (neither can be stored). */
  textCharacterInvalid: {
    zh: '含有不允许的字符（NUL 或不成对的代理项）',
    en: 'contains a character that is not allowed (NUL or an unpaired surrogate)',
  },
  /** ours: a body nested deeper than `MAX_BODY_DEPTH` ({max}). */
  bodyTooDeep: { zh: '嵌套超过{max}层', en: 'is nested deeper than {max} levels' },
  /*
   * Device parameters (params/validate.ts `paramIssueText` fills `{label}` and `{other}` with
   * the parameters' labels, `{min}`/`{max}` with their decimals). Spec §5 wording where it has
   * one: "cannot be empty" (air conditioner), "between 25.0 and 40.0"; the rest ours.
   */
  paramRequired: { zh: '{label}不能为空', en: '{label} cannot be empty' },
  paramOutOfRange: { zh: '{label}应在{min}到{max}之间', en: '{label} must be between {min} and {max}' },
  paramTooLarge: { zh: '{label}不能大于{max}', en: '{label} must not be greater than {max}' },
  paramNotNumber: { zh: '{label}必须是数字', en: '{label} must be a number' },
  paramNotInteger: { zh: '{label}必须是整数', en: '{label} must be a whole number' },
  paramTooManyDecimals: {
    zh: '{label}最多保留{decimals}位小数',
    en: '{label} allows at most {decimals} decimal place(s)',
  },
  paramNotOption: { zh: '{label}不是可选的值', en: '{label} is not one of the allowed values' },
  paramUnknown: { zh: '未知参数：{key}', en: 'Unknown parameter: {key}' },
  paramMustBeBelow: { zh: '{label}必须低于{other}', en: '{label} must be below the {other}' },
  paramMustBeAbove: { zh: '{label}必须高于{other}', en: '{label} must be above the {other}' },
  paramNotBelow: { zh: '{label}不能低于{other}', en: '{label} must not be below the {other}' },
  paramNotAbove: { zh: '{label}不能高于{other}', en: '{label} must not be above the {other}' },
  maskInvalid: { zh: '请输入正确的子网掩码', en: 'Please enter the correct subnet mask' },
  hostInvalid: { zh: '请输入正确的服务器地址', en: 'Please enter the correct server address' },
  timezoneInvalid: { zh: '请选择正确的时区', en: 'Please choose a valid time zone' },
  gatewayOutsideSubnet: {
    zh: '默认网关必须与IP地址在同一网段',
    en: 'The default gateway must be in the same subnet as the IP address',
  },
  serialSettingsInvalid: {
    zh: '串口只能设为9600波特率、2位停止位无校验，或9600波特率、1位停止位偶校验',
    en: 'The serial port must be 9600 baud with 2 stop bits and no parity, or 9600 baud with 1 stop bit and even parity',
  },
} as const satisfies Record<string, Record<Lang, string>>;

export type ValidationMessageKey = keyof typeof validationMessages;

/** Account as sent: surrounding white space removed (spec §5). */
export function normaliseAccount(account: string): string {
  return account.trim();
}

/** Login form check (spec §5); the key of the first broken rule per field, or none. */
export function checkLoginForm(form: { account: string; password: string }): {
  account?: ValidationMessageKey;
  password?: ValidationMessageKey;
} {
  const errors: { account?: ValidationMessageKey; password?: ValidationMessageKey } = {};
  if (normaliseAccount(form.account).length === 0) errors.account = 'accountRequired';
  if (form.password.length < PASSWORD_MIN_LENGTH) errors.password = 'passwordTooShort';
  return errors;
}

/** True for an e-mail address the console and server accept. */
export function isValidEmail(email: string): boolean {
  return email.length <= 254 && EMAIL_PATTERN.test(email);
}

/** True for a mainland mobile number (spec §5). */
export function isValidPhone(phone: string): boolean {
  return PHONE_PATTERN.test(phone);
}

/** True for a dotted-quad IPv4 address (spec §5). */
export function isValidIpv4(ip: string): boolean {
  return IPV4_PATTERN.test(ip);
}
