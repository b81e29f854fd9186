/**
 * Building blocks of the call schemas (design §4), defined once and reused by every api/*.ts:
 * row ids, text fields with their length limits, pages of lists and the empty answer.
 *
 * The length limits are exported ({@link TEXT_LIMITS}) so that the console's forms write
 * `maxLength={TEXT_LIMITS.siteName}` and can never disagree with what the server accepts; a
 * schema's own limit is also readable with {@link maxLengthOf}.
 */
import { z } from 'zod';
import { ACCOUNT_MAX_LENGTH } from '../validation';
import { userInfoEcho } from './envelope';

/** Largest value of a PostgreSQL `integer` (int4) column: every row id is one (db/schema.ts). */
export const INT4_MAX = 2_147_483_647;

/**
 * A row id: a positive integer that fits the database's `integer` id columns (1 … {@link INT4_MAX}).
 * A larger number is refused with -100 naming the field instead of reaching the database.
 */
export const idSchema = z.number().int().positive().max(INT4_MAX);

/**
 * A row's version for optimistic locking (`role.version`, `tou_scheme.version`): an `integer`
 * column like the ids, so bounded the same way (1 … {@link INT4_MAX}).
 */
export const versionSchema = z.number().int().min(1).max(INT4_MAX);

/** Latest instant a request may name: 9999-12-31T23:59:59.999Z in UTC milliseconds. */
export const EPOCH_MS_MAX = 253_402_300_799_999;

/**
 * An instant in UTC milliseconds since 1970 (0 … {@link EPOCH_MS_MAX}): every such value is a
 * valid JavaScript `Date` and PostgreSQL `timestamptz`; a larger one is refused with -100.
 */
export const epochMsSchema = z.number().int().min(0).max(EPOCH_MS_MAX);

/**
 * Deepest nesting of objects and arrays in a request body (the body itself is level 1). The
 * deepest call (a ToU scheme: body → document → plans → plan → periods → period) needs 6; a body
 * nested deeper is refused with -100 before its schema is applied (server core/http/body-guard.ts).
 */
export const MAX_BODY_DEPTH = 32;

/** A body holding one row id: `{userInfo?, id}` (detail, delete, …). */
export const idRequest = z.object({ userInfo: userInfoEcho, id: idSchema });

/** @deprecated the same schema as {@link idRequest}; use that. */
export const idOnlyRequest = idRequest;

/** Answer of a call that created a row: `{id}`. */
export const createdIdResponse = z.object({ id: idSchema });

/** Answer `data` of a call that answers nothing but success (`{code: 0, msg, data: null}`). */
export const nullResponse = z.null();

/**
 * Longest text of each form field (characters after trimming), as the server checks it. Forms
 * set `maxLength` from here; the request schemas are built from the same numbers.
 *
 * Codes and SNs are also bounded by their pattern (`SITE_CODE_PATTERN`, `SN_PATTERN`,
 * `ROLE_CODE_PATTERN`, `PERMISSION_PATTERN`); the limit here is that pattern's longest match.
 */
export const TEXT_LIMITS = {
  /** Search boxes of every list (`keyword`). */
  keyword: 64,
  /** Sign-in name. */
  account: ACCOUNT_MAX_LENGTH,
  /** Mainland mobile number field (company, department, employee). */
  phone: 20,
  /** E-mail address (RFC 5321 path limit). */
  email: 254,

  siteCode: 32,
  siteName: 64,
  siteAddress: 200,
  deviceSn: 40,
  deviceModel: 64,
  mqttClientId: 64,

  companyName: 64,
  companyContact: 32,
  departmentName: 64,
  departmentLeader: 32,
  employeeName: 32,
  roleName: 32,
  roleCode: 32,
  roleRemark: 200,

  /** Menu title, Chinese and English. */
  menuTitle: 64,
  menuPath: 200,
  menuName: 64,
  menuComponent: 200,
  menuVueName: 64,
  menuIcon: 64,
  menuRedirect: 200,
  menuActiveMenu: 200,
  /** `module:resource:action`, three parts of at most 32 (`PERMISSION_PATTERN`). */
  menuPerms: 98,

  touSchemeName: 64,
  /** Name of a daily, weekly, yearly or exception plan inside a ToU scheme. */
  touPlanName: 32,
  /** A period boundary `HH:MM`. */
  touTime: 5,
} as const;
export type TextLimitKey = keyof typeof TEXT_LIMITS;

/** Required text: trimmed, 1 … `max` characters (an all-blank value is refused). */
export function trimmedText(max: number) {
  return z.string().trim().min(1).max(max);
}

/**
 * Optional text: trimmed, at most `max` characters; absent, null or blank all become `null`.
 * The result is a pipe, so read its limit with {@link maxLengthOf}.
 */
export function optionalText(max: number) {
  return z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : null));
}

/** An optional search box: trimmed, at most {@link TEXT_LIMITS}.keyword characters. */
export const keywordSchema = z.string().trim().max(TEXT_LIMITS.keyword).optional();

/**
 * The longest string `schema` accepts, looking through optional, nullable, default and pipe
 * wrappers (zod 4's `maxLength` of the string inside); null when it sets none or is no string.
 */
export function maxLengthOf(schema: z.ZodType): number | null {
  if (schema instanceof z.ZodString) return schema.maxLength;
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodNullable ||
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodPrefault
  ) {
    return maxLengthOf(schema.def.innerType as z.ZodType);
  }
  if (schema instanceof z.ZodPipe) return maxLengthOf(schema.def.in as z.ZodType);
  return null;
}

/** Largest `pageSize` of every list (ours): a picker asking for "all" asks for this many. */
export const MAX_PAGE_SIZE = 500;
/** `pageSize` when the request names none. */
export const DEFAULT_PAGE_SIZE = 20;

/**
 * The paging fields of every list request (design §4): `pageNum` 1 … {@link INT4_MAX} (default 1), `pageSize`
 * 1 … {@link MAX_PAGE_SIZE} (default {@link DEFAULT_PAGE_SIZE}). Spread into a request's object,
 * or extend {@link pageRequest}.
 */
export const pageRequestShape = {
  userInfo: userInfoEcho,
  pageNum: z.number().int().min(1).max(INT4_MAX).default(1),
  pageSize: z.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
};

/** A list request with no filter: `{pageNum, pageSize}`; extend it with the filters. */
export const pageRequest = z.object(pageRequestShape);

/** One page of a list: the rows asked for and the total number of matching rows. */
export interface Page<T> {
  list: T[];
  total: number;
}

/** The answer of a list call: `{list: row[], total}` (design §4). */
export function pageResponse<T extends z.ZodType>(row: T) {
  return z.object({ list: z.array(row), total: z.number().int() });
}
