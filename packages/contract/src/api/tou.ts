/**
 * ToU schemes: time tariffs (`/timetariff`) and charge strategy (`/chargestrategy`)
 * over one document per scheme (tou/scheme.ts), assigned to sites and pushed to their EMS.
 *
 * A scheme belongs to a company (the caller's, or one in its scope); the document is saved whole
 * (`save`, `update`), validated by tou/rules.ts on the server exactly as in the form; `update`
 * carries the `version` it was read at (3093 when someone saved in between). Saving a scheme
 * that sites use, assigning sites, and a gateway's reconnect send it to each site's EMS
 * (`set_tou_plan`); `pushStatus` shows per site: pending, sent, applied (with time) or failed
 * (with reason). Rows outside the caller's scope answer 3090 / 3036.
 */
import { z } from 'zod';
import { twoPartTariffSchema } from '../money/valuation';
import { DATE_PATTERN, touSchemeDocumentSchema } from '../tou/scheme';
import { userInfoEcho } from './envelope';
import {
  idSchema as id,
  keywordSchema,
  pageRequest,
  pageResponse,
  TEXT_LIMITS,
  trimmedText,
  versionSchema,
} from './primitives';

const schemeName = trimmedText(TEXT_LIMITS.touSchemeName);

export const touSchemeListRequest = pageRequest.extend({
  keyword: keywordSchema,
  companyId: id.optional(),
});

export const touSchemeRowSchema = z.object({
  id,
  companyId: id,
  companyName: z.string(),
  name: z.string(),
  version: z.number().int(),
  dailyPlanCount: z.number().int(),
  weeklyPlanCount: z.number().int(),
  yearlyPlanCount: z.number().int(),
  exceptionPlanCount: z.number().int(),
  /** Sites the scheme is assigned to. */
  siteCount: z.number().int(),
  /** ISO 8601. */
  updatedAt: z.string(),
});
export type TouSchemeRow = z.infer<typeof touSchemeRowSchema>;
export const touSchemeListResponse = pageResponse(touSchemeRowSchema);

export const touAssignedSiteSchema = z.object({
  siteId: id,
  siteName: z.string(),
  siteCode: z.string(),
  timezone: z.string(),
  capacityKwh: z.number(),
  ratedPowerKw: z.number(),
});
export type TouAssignedSite = z.infer<typeof touAssignedSiteSchema>;

export const touSchemeDetailSchema = z.object({
  id,
  companyId: id,
  companyName: z.string(),
  name: z.string(),
  version: z.number().int(),
  document: touSchemeDocumentSchema,
  /** Two-part (basic) charge of the scheme (money/valuation.ts); null: single-part. */
  twoPart: twoPartTariffSchema.nullable().optional(),
  sites: z.array(touAssignedSiteSchema),
  updatedAt: z.string(),
});
export type TouSchemeDetail = z.infer<typeof touSchemeDetailSchema>;

export const touSchemeSaveRequest = z.object({
  userInfo: userInfoEcho,
  /** Owning company; defaults to the caller's. */
  companyId: id.optional(),
  name: schemeName,
  document: touSchemeDocumentSchema,
  /** Two-part (basic) charge, kept out of the document the EMS receives; absent/null: none. */
  twoPart: twoPartTariffSchema.nullable().optional(),
});
export type TouSchemeSaveRequest = z.infer<typeof touSchemeSaveRequest>;

export const touSchemeUpdateRequest = z.object({
  userInfo: userInfoEcho,
  id,
  /** The version the document was read at. */
  version: versionSchema,
  name: schemeName,
  document: touSchemeDocumentSchema,
  /** Two-part (basic) charge; absent: unchanged, null: none. */
  twoPart: twoPartTariffSchema.nullable().optional(),
  /**
   * Site-local date (`YYYY-MM-DD`) from which the sites running the scheme are billed at the new
   * prices (tariff history, issue 17 item 2); absent: each site's today. Days before keep theirs.
   */
  effectiveFrom: z.string().regex(DATE_PATTERN).optional(),
});
export type TouSchemeUpdateRequest = z.infer<typeof touSchemeUpdateRequest>;
export const touSchemeUpdateResponse = z.object({ version: z.number().int() });

/** Sets the sites that use the scheme: exactly `siteIds` (moved from other schemes if need be). */
export const touSchemeAssignRequest = z.object({
  userInfo: userInfoEcho,
  id,
  siteIds: z.array(id).max(500),
  /** Site-local date from which newly assigned sites are billed at this scheme; absent: their today. */
  effectiveFrom: z.string().regex(DATE_PATTERN).optional(),
});

export const TOU_PUSH_STATES = ['pending', 'sent', 'applied', 'failed'] as const;
export type TouPushState = (typeof TOU_PUSH_STATES)[number];

/**
 * Delivery of a scheme to one site's EMS. What the EMS is known to run (`appliedVersion`,
 * `appliedAt`) is kept apart from the delivery of the version it should run (`state`) and from
 * what the last send did (`sentAt`, `sending`, `reason`, `retryAt`): a re-send of the applied
 * version that gets no answer leaves the row `applied` with `reason` 'timeout' (issue 14).
 */
export const touPushRowSchema = z.object({
  siteId: id,
  siteName: z.string(),
  /** The site's IANA time zone: the console shows the row's times in it. */
  timezone: z.string(),
  /** The site's gateway (its EMS); null when the site has none (3033 on push). */
  gatewaySn: z.string().nullable(),
  gatewayOnline: z.boolean(),
  /** The scheme version the site should run. */
  schemeVersion: z.number().int(),
  /** The version of the last send: `schemeVersion` once sent (sent, applied, failed); null while pending. */
  pushedVersion: z.number().int().nullable(),
  /**
   * pending: waiting to be sent (gateway offline); sent: waiting for the EMS's reply; applied:
   * the EMS runs `schemeVersion`; failed: the last send of it was refused or not answered.
   */
  state: z.enum(TOU_PUSH_STATES),
  /** The version of this scheme the EMS last confirmed running; null: none confirmed. */
  appliedVersion: z.number().int().nullable(),
  /** When the EMS last confirmed `appliedVersion` (ISO 8601); null: none. */
  appliedAt: z.string().nullable(),
  /** A send is out now, waiting for the EMS (state sent, or a re-send of the applied version). */
  sending: z.boolean(),
  /**
   * Why the last send failed: "refused" or "timeout" (no answer; the console translates these),
   * else the EMS's own text. On an `applied` row: "timeout", the last re-send got no answer.
   */
  reason: z.string().nullable(),
  /** When an unanswered send goes out again by itself (ISO 8601); null: no retry planned. */
  retryAt: z.string().nullable(),
  /** ISO 8601 times, null until they happen. */
  requestedAt: z.string().nullable(),
  sentAt: z.string().nullable(),
});
export type TouPushRow = z.infer<typeof touPushRowSchema>;
export const touPushStatusResponse = z.object({ list: z.array(touPushRowSchema) });

/** Push the site's scheme now (3060 no scheme, 3033 no gateway, 3034 offline, 3035 failed). */
export const touPushRequest = z.object({ userInfo: userInfoEcho, siteId: id });
