/**
 * The request log: one line per answered request, at a level that says whether anyone needs to
 * read it (issue 14: logging every request at info buried the log in 5,175 lines in 12 minutes).
 *
 * Fastify's own per-request lines are replaced through its `logController` option
 * ({@link RequestLogController}: no line when a request arrives; when the answer has gone out):
 * - `warn` "request failed" — HTTP status ≥ 500, or the envelope code -101 (system error; the
 *   error itself is logged at `error` by the envelope's handler);
 * - `warn` "security event" — the answer refused a sign-in, a token or a right (codes in
 *   {@link SECURITY_CODES}: bad credentials, throttled sign-in, too many requests, illegal,
 *   invalid or revoked token, wrong token key, no permission);
 * - `info` "sign-in" / "sign-out" — a successful `user/login` (credentials accepted) or
 *   `user/loginOut`;
 * - `warn` "slow request" — answered after `slowRequestMs` or more (`LOG_SLOW_REQUEST_MS`,
 *   default 1,000 ms);
 * - `debug` "request completed" — everything else (seen with `LOG_LEVEL=debug`).
 * Each line carries method, url, HTTP status, the envelope code when it was not 0, and the
 * response time in ms (`responseTimeMs`), with Fastify's request id.
 */
import { ErrorCode, endpoints } from '@ess/contract';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/** Envelope codes that are security events (logged at warn). */
export const SECURITY_CODES: ReadonlySet<number> = new Set([
  ErrorCode.BAD_CREDENTIALS,
  ErrorCode.LOGIN_THROTTLED,
  ErrorCode.TOO_MANY_REQUESTS,
  ErrorCode.ILLEGAL_TOKEN,
  ErrorCode.TOKEN_INVALID,
  ErrorCode.TOKEN_KEY_INCORRECT,
  ErrorCode.SESSION_REVOKED,
  ErrorCode.NO_PERMISSION,
]);

/** Calls whose success is a security event worth a line at info. */
const SIGN_IN_OUT: ReadonlyMap<string, string> = new Map([
  [endpoints.user.login.path, 'sign-in'],
  [endpoints.user.loginOut.path, 'sign-out'],
]);

declare module 'fastify' {
  interface FastifyRequest {
    /** The envelope code the error handler answered (0 when the call succeeded). */
    apiCode: number;
  }
}

/** Registers what the request log needs of every request (the envelope code slot). */
export function registerRequestLog(app: FastifyInstance): void {
  app.decorateRequest('apiCode', 0);
}

/**
 * Fastify's log controller for the request log (see the module docstring): pass
 * `new RequestLogController(slowRequestMs)` as the `logController` option.
 */
export class RequestLogController extends LogController {
  constructor(private readonly slowRequestMs: number) {
    super();
  }

  /** No line when a request arrives: one line when it has been answered. */
  override incomingRequest(): void {}

  /** The one line of an answered request, at the level its outcome deserves. */
  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const responseTimeMs = Math.round(reply.elapsedTime * 10) / 10;
    const url = request.url.split('?')[0] ?? request.url;
    const apiCode = request.apiCode ?? 0;
    const line = {
      method: request.method,
      url,
      statusCode: reply.statusCode,
      ...(apiCode !== 0 ? { code: apiCode } : {}),
      responseTimeMs,
      ...(error ? { err: error } : {}),
    };
    if (error || reply.statusCode >= 500 || apiCode === ErrorCode.SYSTEM_ERROR) {
      request.log.warn(line, 'request failed');
    } else if (SECURITY_CODES.has(apiCode)) {
      request.log.warn(line, 'security event');
    } else if (apiCode === 0 && SIGN_IN_OUT.has(url)) {
      request.log.info(line, SIGN_IN_OUT.get(url));
    } else if (responseTimeMs >= this.slowRequestMs) {
      request.log.warn(line, 'slow request');
    } else {
      request.log.debug(line, 'request completed');
    }
  }
}
