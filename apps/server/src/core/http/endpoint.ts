/**
 * Routes from the endpoint table (packages/contract endpoints.ts): a
 * route module registers each of its calls with {@link route} (or {@link fileRoute} for the one
 * call that answers a file) and writes only the handler. Path, body and answer schemas, the
 * access rule (`config.public | signedIn | permission` and `beforePasswordChange`, read by
 * access/auth-hook.ts), the operation-log entry (`config.audit`, read by access/audit.ts) and the
 * OpenAPI summary all come from the table entry; the auth hook refuses a route that is not an
 * entry, and a server whose routes miss an entry.
 *
 * Every body first passes body-guard.ts (text the database cannot store, nesting deeper than
 * `MAX_BODY_DEPTH`: -100 naming the field), then the request schema.
 *
 * Only what does not belong in the contract is passed here as {@link RouteExtra}: rate limits
 * and the OpenAPI `security` override of a public call.
 *
 * @example
 * `uploadRoute` registers the one call whose body is a file streamed up (`firmware.upload`).
 *
 * route(app, endpoints.tou.delete, async (request) => {
 *   const before = await service.remove(await scopeOf(request), request.body.id);
 *   recordChange(request, { targetId: request.body.id, before, after: null });
 *   return ok(request, null);
 * });
 */
import {
  type ApiEnvelope,
  type Endpoint,
  type EndpointAccess,
  type EndpointBody,
  type EndpointResponse,
  ErrorCode,
  envelopeFor,
} from '@ess/contract';
import type { FastifyContextConfig, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from './api-error';
import { describeBodyProblem, findBodyProblem, guardBody } from './body-guard';

/** The instance a route module (`FastifyPluginAsyncZod`) is given. */
export type ApiApp = Parameters<FastifyPluginAsyncZod>[0];

/** The request a handler of `E` gets: its body as the endpoint's request schema parsed it. */
export type EndpointCall<E extends Endpoint> = FastifyRequest<{ Body: EndpointBody<E> }>;

/** A handler of `E`: answers the envelope around the endpoint's response (`ok(request, data)`). */
export type EndpointHandler<E extends Endpoint> = (
  request: EndpointCall<E>,
  reply: FastifyReply,
) => Promise<ApiEnvelope<EndpointResponse<E>>>;

/** A handler of a call that answers a file (`endpoint.file`): sends it through `reply`. */
export type FileHandler<E extends Endpoint> = (
  request: EndpointCall<E>,
  reply: FastifyReply,
) => Promise<FastifyReply>;

/**
 * The request a handler of an upload call gets (`endpoint.upload`): its query string as the
 * endpoint's request schema parsed it; the body is `request.raw`, not read yet.
 */
export type UploadCall<E extends Endpoint> = FastifyRequest<{ Querystring: EndpointBody<E> }>;

/** A handler of an upload call: reads `request.raw` and answers the envelope. */
export type UploadHandler<E extends Endpoint> = (
  request: UploadCall<E>,
  reply: FastifyReply,
) => Promise<ApiEnvelope<EndpointResponse<E>>>;

/** Settings of the table's keys; the table owns them, {@link RouteExtra} cannot set them. */
type TableConfigKey = 'public' | 'signedIn' | 'permission' | 'audit' | 'beforePasswordChange';

/** Server-only settings of a route that do not belong in the contract. */
export interface RouteExtra {
  /** More route config, e.g. `rateLimit` (@fastify/rate-limit). */
  config?: Omit<FastifyContextConfig, TableConfigKey> & { [K in TableConfigKey]?: never };
  /** OpenAPI security requirements of this call (`[]`: no token, for a public call). */
  security?: Array<Record<string, string[]>>;
}

/** The route config of an access rule: exactly one of `public`, `signedIn`, `permission`. */
export function accessConfig(access: EndpointAccess): Pick<FastifyContextConfig, TableConfigKey> {
  if ('public' in access) return { public: true };
  if ('signedIn' in access) return { signedIn: true };
  return { permission: access.permission };
}

/** OpenAPI schema of a file answer: its bytes. */
const fileBytes = z.string().meta({ format: 'binary' });

function routeOptions(endpoint: Endpoint, extra: RouteExtra | undefined) {
  const envelope = envelopeFor(endpoint);
  return {
    method: 'POST' as const,
    url: endpoint.path,
    // After the auth hook (route-level hooks run after the scope's): NUL, unpaired surrogates
    // and bodies nested too deep answer -100 before the schema or a handler sees them.
    preValidation: guardBody,
    config: {
      ...extra?.config,
      ...accessConfig(endpoint.access),
      ...(endpoint.beforePasswordChange ? { beforePasswordChange: true } : {}),
      ...(endpoint.audit ? { audit: { ...endpoint.audit } } : {}),
    },
    schema: {
      tags: [...endpoint.tags],
      summary: endpoint.summary,
      ...(endpoint.description ? { description: endpoint.description } : {}),
      ...(extra?.security ? { security: extra.security } : {}),
      body: endpoint.request,
      response: {
        200: endpoint.file
          ? {
              description: 'The file on success; a refusal is the envelope with `data: null`.',
              content: {
                [endpoint.file.mime]: { schema: fileBytes },
                'application/json': { schema: envelope },
              },
            }
          : envelope,
      },
    },
  };
}

/**
 * Registers `endpoint` as a `POST` route answered by `handler`, whose body is typed
 * `EndpointBody<E>` and whose answer must be the envelope of `EndpointResponse<E>`.
 */
export function route<E extends Endpoint>(
  app: ApiApp,
  endpoint: E,
  handler: EndpointHandler<E>,
  extra?: RouteExtra,
): void {
  if (endpoint.file) throw new Error(`${endpoint.path} answers a file: register it with fileRoute`);
  app.route({ ...routeOptions(endpoint, extra), handler: handler as unknown as RouteHandlerMethod });
}

/**
 * Registers `endpoint`, a call that answers a file (`endpoint.file`, e.g. `export.xlsx`): the
 * handler sends the file through `reply`; a refusal (`ApiError`, bad body) is still the
 * envelope with `data: null`.
 */
export function fileRoute<E extends Endpoint>(
  app: ApiApp,
  endpoint: E,
  handler: FileHandler<E>,
  extra?: RouteExtra,
): void {
  if (!endpoint.file) throw new Error(`${endpoint.path} answers an envelope: register it with route`);
  app.route({ ...routeOptions(endpoint, extra), handler: handler as unknown as RouteHandlerMethod });
}

/**
 * Registers `endpoint`, the call whose body is a file streamed up (`endpoint.upload`, e.g.
 * `firmware.upload`), as a `POST` whose query string is validated with the endpoint's request
 * schema (-100 naming the field) and whose body is left unread for the handler
 * (`request.raw`, an async iterable of Buffers): a content-type parser for `upload.mime` that
 * consumes nothing, so no size limit of Fastify's and no buffering apply — the handler enforces
 * `upload.maxBytes` while it reads. Another content type answers -100. When the handler refuses
 * before it has read the whole body, the answer closes the connection (the rest of the body is
 * not read).
 */
export function uploadRoute<E extends Endpoint>(
  app: ApiApp,
  endpoint: E,
  handler: UploadHandler<E>,
  extra?: RouteExtra,
): void {
  const upload = endpoint.upload;
  if (!upload) throw new Error(`${endpoint.path} is not an upload: register it with route`);
  if (!app.hasContentTypeParser(upload.mime)) {
    app.addContentTypeParser(upload.mime, (_request, _payload, done) => done(null, undefined));
  }
  const { preValidation: _guard, schema: jsonSchema, ...options } = routeOptions(endpoint, extra);
  const { body: _body, ...schema } = jsonSchema;
  app.route({
    ...options,
    // The body guard's text check, on the query string (there is no JSON body).
    preValidation: async (request: FastifyRequest) => {
      const problem = findBodyProblem(request.query);
      if (problem) throw new ApiError(ErrorCode.PARAM_ERROR, {}, describeBodyProblem(problem, request.lang));
    },
    schema: { ...schema, querystring: endpoint.request, consumes: [upload.mime] },
    handler: (async (request: UploadCall<E>, reply: FastifyReply) => {
      try {
        return await handler(request, reply);
      } catch (err) {
        if (!request.raw.readableEnded) reply.header('connection', 'close');
        throw err;
      }
    }) as unknown as RouteHandlerMethod,
  });
}
