/**
 * What one entry of the endpoint table is (../endpoints.ts): {@link Endpoint}, declared with
 * {@link defineEndpoint}, and the types a client and a handler read from it.
 */
import type { z } from 'zod';
import { type API_PREFIX, envelopeOf } from '../api/envelope';
import type { AuditAction, AuditTargetType } from '../audit-vocabulary';
import type { PermissionString } from '../permissions';

/** The path of a call: always under `/api-bms/` (spec §7). */
export type EndpointPath = `${typeof API_PREFIX}/${string}`;

/**
 * Who may call (exactly one; the server refuses to register a route without one):
 * - `{public: true}`: no X-Token (sign-in, token refresh, user info with a login ticket, the
 *   public cockpit);
 * - `{signedIn: true}`: any valid X-Token (own settings, own menu, the dashboard, logout);
 * - `{permission}`: a valid X-Token whose roles grant the string (or `*:*:*`); else 5034.
 */
export type EndpointAccess = { permission: PermissionString } | { signedIn: true } | { public: true };

/** What the operation log records for every answer of the call (http/audit.ts on the server). */
export interface EndpointAudit {
  action: AuditAction;
  targetType: AuditTargetType;
}

/** One call of the API. */
export interface Endpoint<
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
  P extends EndpointPath = EndpointPath,
> {
  /** `/api-bms/<resource>/<call>`, answered to `POST` only. */
  readonly path: P;
  /** The JSON body. Parse with it; `z.input` is what a client sends, `z.output` what a handler gets. */
  readonly request: Req;
  /** The envelope's `data` on success (see {@link envelopeFor}). */
  readonly response: Res;
  readonly access: EndpointAccess;
  /**
   * Set on the few signed-in calls an account may make while it must still change a password
   * an administrator set (`mustChangePassword`): the password change itself, its own menu and
   * permissions, logout. The server refuses every other signed-in call with 5058 until then;
   * public calls are never refused for it.
   */
  readonly beforePasswordChange?: true;
  /** Present when every answer of the call is written to the operation log. */
  readonly audit?: EndpointAudit;
  /** One line for the API reference (with the call's error codes where short). */
  readonly summary: string;
  /** Longer notes for the API reference (error codes, side effects). */
  readonly description?: string;
  /** API-reference groups. */
  readonly tags: readonly string[];
  /**
   * Set when a successful answer is a file, not an envelope (`export.xlsx`): its MIME type.
   * A refusal is still `{code, msg, data: null}`.
   */
  readonly file?: { readonly mime: string };
  /**
   * Set when the call's body is a file streamed up, not JSON (`firmware.upload`): the body is
   * the raw bytes of `mime` (at most `maxBytes`, refused while streaming past it), and `request`
   * describes the **query string** instead of a body (every value text; parse with it as usual).
   * The answer is the usual envelope. The server registers it with `uploadRoute`
   * (core/http/endpoint.ts), which never buffers the body; a client sends it with `fetch`/XHR
   * (`Content-Type: mime`, the X-Token header), not with the JSON client.
   */
  readonly upload?: { readonly mime: string; readonly maxBytes: number };
}

/**
 * Declares one endpoint, keeping the exact types of its path and schemas so that
 * {@link EndpointRequest} and {@link EndpointResponse} infer. Returns its argument unchanged.
 *
 * @example
 * const save = defineEndpoint({
 *   path: '/api-bms/tou/save',
 *   request: touSchemeSaveRequest,
 *   response: createdIdResponse,
 *   access: { permission: Perm.touSave },
 *   audit: { action: 'tou.save', targetType: 'tou_scheme' },
 *   summary: 'Create a ToU scheme',
 *   tags: ['tou'],
 * });
 */
/* @__NO_SIDE_EFFECTS__ */
export function defineEndpoint<const P extends EndpointPath, Req extends z.ZodType, Res extends z.ZodType>(
  endpoint: Endpoint<Req, Res, P>,
): Endpoint<Req, Res, P> {
  return endpoint;
}

/** The body a client sends to `E` (defaults may be left out). */
export type EndpointRequest<E extends Endpoint> = z.input<E['request']>;
/** The body a handler of `E` receives once the request schema has parsed it (defaults filled in). */
export type EndpointBody<E extends Endpoint> = z.output<E['request']>;
/** The `data` of a successful answer of `E`. */
export type EndpointResponse<E extends Endpoint> = z.output<E['response']>;

/** The schema of the whole answer of `endpoint`: `{code, msg, data: response | null}`. */
export function envelopeFor<Res extends z.ZodType>(endpoint: Endpoint<z.ZodType, Res>) {
  return envelopeOf(endpoint.response.nullable());
}
