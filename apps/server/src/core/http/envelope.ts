/**
 * Success answers and the error handler that makes every failure an envelope (spec §7, §8):
 * HTTP 200 `{code, msg, data}`; bad input → -100 naming the field; anything unexpected → -101
 * without internals (logged with the request id).
 */
import { ErrorCode, errorMessage, type Lang, langFromAcceptLanguage, SUCCESS } from '@ess/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from './api-error';

const zhIssues = z.locales.zhCN().localeError;

/** The value at a JSON-pointer-like `instancePath` ('/a/0/b') of `root`, if any. */
function valueAt(root: unknown, instancePath: string): unknown {
  let value = root;
  for (const key of instancePath.split('/').filter((k) => k !== '')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * `field: reason` of one schema issue, in Chinese through zod's zh-CN locale, else zod's text.
 * zod's issues do not carry the offending value, and the zh-CN text of a wrong type names the
 * type received; `body` (the request body as parsed, before validation) supplies it.
 */
function describeIssue(
  lang: Lang,
  v: { instancePath: string; keyword: string; message?: string; params: Record<string, unknown> },
  body: unknown,
): string {
  const field = v.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
  let reason = v.message ?? '';
  if (lang === 'zh') {
    const input = valueAt(body, v.instancePath);
    const text = zhIssues?.({ ...v.params, code: v.keyword, path: [], input } as never);
    reason = typeof text === 'string' ? text : (text?.message ?? reason);
  }
  return `${field}: ${reason}`;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Language of `msg` texts, from Accept-Language (Chinese unless the first tag is English). */
    lang: Lang;
  }
}

const successText: Record<Lang, string> = { zh: '操作成功', en: 'Operation successful' };

/** `{code: 0, msg, data}` in the caller's language. */
export function ok<T>(request: FastifyRequest, data: T) {
  return { code: SUCCESS, msg: successText[request.lang], data };
}

/** Builds the error envelope of `code`. */
export function failure(
  lang: Lang,
  code: number,
  params: Record<string, string | number> = {},
  detail?: string,
) {
  const text = errorMessage(code, lang, params);
  return { code, msg: detail ? `${text}${lang === 'zh' ? '：' : ': '}${detail}` : text, data: null };
}

/** The envelope code the error handler answers for `raised` (the request log records it). */
function codeOf(raised: unknown): number {
  if (raised instanceof ApiError) return raised.code;
  const error = raised as FastifyError;
  if (hasZodFastifySchemaValidationErrors(error)) return ErrorCode.PARAM_ERROR;
  if (error.statusCode === 429) return ErrorCode.TOO_MANY_REQUESTS;
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return ErrorCode.PARAM_ERROR;
  return ErrorCode.SYSTEM_ERROR;
}

/** Registers language detection, the error handler and the not-found answer for calls. */
export function registerEnvelope(app: FastifyInstance): void {
  app.decorateRequest('lang', 'zh');
  app.addHook('onRequest', async (request) => {
    request.lang = langFromAcceptLanguage(request.headers['accept-language']);
  });

  app.setErrorHandler((raised: unknown, request: FastifyRequest, reply: FastifyReply) => {
    request.apiCode = codeOf(raised);
    if (raised instanceof ApiError) {
      return reply.code(200).send(failure(request.lang, raised.code, raised.params, raised.detail));
    }
    const error = raised as FastifyError;
    if (hasZodFastifySchemaValidationErrors(error)) {
      const fields = error.validation.map((v) => describeIssue(request.lang, v, request.body)).join('; ');
      return reply.code(200).send(failure(request.lang, ErrorCode.PARAM_ERROR, {}, fields));
    }
    if (error.statusCode === 429) {
      return reply.code(200).send(failure(request.lang, ErrorCode.TOO_MANY_REQUESTS));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      // Malformed JSON, wrong content type, body too large: the client's fault, said plainly.
      return reply.code(200).send(failure(request.lang, ErrorCode.PARAM_ERROR, {}, error.message));
    }
    request.log.error({ err: error }, 'unexpected failure');
    return reply.code(200).send(failure(request.lang, ErrorCode.SYSTEM_ERROR));
  });
}
