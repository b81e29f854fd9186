/**
 * Device dead letters (docs/device-protocol.md "Dead letters"): device messages the database
 * refused for a reason in their data, kept with the error so administrators can see what a
 * gateway sent. Listed by `device/deadLetterPageList`, newest first, within the caller's
 * company scope (letters of a gateway no longer known only for a caller who sees every company).
 */
import { z } from 'zod';
import { idSchema, keywordSchema, pageRequest, pageResponse } from './primitives';

/** Which topic the message came on. */
export const DEAD_LETTER_KINDS = ['telemetry', 'event'] as const;
export type DeadLetterKind = (typeof DEAD_LETTER_KINDS)[number];

export const deadLetterListRequest = pageRequest.extend({
  kind: z.enum(DEAD_LETTER_KINDS).optional(),
  /** Matches the gateway's and the device's SN. */
  keyword: keywordSchema,
  siteId: idSchema.optional(),
});
export type DeadLetterListRequest = z.infer<typeof deadLetterListRequest>;

export const deadLetterRowSchema = z.object({
  id: z.number().int(),
  /** When the server received the message, UTC ms. */
  receivedAt: z.number().int(),
  companyId: z.number().int().nullable(),
  companyName: z.string().nullable(),
  siteId: z.number().int().nullable(),
  siteName: z.string().nullable(),
  /** The site's IANA time zone (times are shown in it), null when the site is gone. */
  timezone: z.string().nullable(),
  gatewaySn: z.string(),
  /** The device the message is about, when it names exactly one. */
  deviceSn: z.string().nullable(),
  kind: z.enum(DEAD_LETTER_KINDS),
  /** The message as validated (JSON text; NUL and lone surrogates appear escaped). */
  payload: z.string(),
  /** The database's message. */
  error: z.string(),
  /** Its SQLSTATE, e.g. `22P05` (bad Unicode escape) or `22003` (numeric overflow). */
  errorCode: z.string().nullable(),
});
export type DeadLetterRow = z.infer<typeof deadLetterRowSchema>;
export const deadLetterListResponse = pageResponse(deadLetterRowSchema);
