/**
 * The one check every `/api-bms` body passes before its schema (registered for every call by
 * endpoint.ts as a route-level `preValidation` hook, so it runs after the auth hook): input the
 * database cannot store, or that would exhaust the stack of whatever walks it, is refused
 * with -100 naming the field instead of failing later as -101.
 *
 * - Text (any string value or object key, at any depth): U+0000 (PostgreSQL `text` and `jsonb`
 *   cannot hold it) and an unpaired UTF-16 surrogate (not valid Unicode; it would be stored as
 *   U+FFFD) are refused — `validationMessages.textCharacterInvalid`.
 * - Nesting: objects and arrays deeper than the contract's `MAX_BODY_DEPTH` (the body itself is
 *   level 1) are refused — `validationMessages.bodyTooDeep`. The walk is iterative and stops at
 *   the limit, so a body of any depth is refused in time proportional to its size.
 */
import { ErrorCode, type Lang, MAX_BODY_DEPTH, validationMessages } from '@ess/contract';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './api-error';

/** A NUL, or half of a surrogate pair without its other half. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const UNSAFE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const UNSAFE_TEXT_ALL = new RegExp(UNSAFE_TEXT.source, 'g');

/** Any NUL or surrogate at all: a cheap first test, true for almost no text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const MAYBE_UNSAFE = /[\u0000\uD800-\uDFFF]/;

/** True when `text` holds a character the database cannot store (see the module comment). */
export function isUnsafeText(text: string): boolean {
  return MAYBE_UNSAFE.test(text) && UNSAFE_TEXT.test(text);
}

/** `text` with every NUL and unpaired surrogate replaced by U+FFFD (for the operation log). */
export function storableText(text: string): string {
  return isUnsafeText(text) ? text.replace(UNSAFE_TEXT_ALL, '\uFFFD') : text;
}

/** What is wrong with a body, and where: `path` is the keys from the body down, e.g. `['series', 0, 'name']`. */
export type BodyProblem = { kind: 'text' | 'depth'; path: (string | number)[] };

/** An object or array met on the walk: its parent and key rebuild the path of a problem. */
interface Container {
  value: object;
  parent: Container | null;
  key: string | number | null;
  /** The body itself is level 1. */
  level: number;
}

/** The keys from the body down to `container`, then `last`. */
function pathOf(container: Container | null, last?: string | number): (string | number)[] {
  const path: (string | number)[] = last === undefined ? [] : [last];
  for (let c = container; c && c.key !== null; c = c.parent) path.unshift(c.key);
  return path;
}

/**
 * The first problem of `body`, or null. Strings are checked as values and as object keys;
 * objects and arrays below level `maxDepth` are a `depth` problem at their path. Only containers
 * are kept on the walk's stack (a 1 MB array of numbers is one pass over its elements).
 */
export function findBodyProblem(body: unknown, maxDepth: number = MAX_BODY_DEPTH): BodyProblem | null {
  if (typeof body === 'string') return isUnsafeText(body) ? { kind: 'text', path: [] } : null;
  if (body === null || typeof body !== 'object') return null;
  if (maxDepth < 1) return { kind: 'depth', path: [] };
  const stack: Container[] = [{ value: body, parent: null, key: null, level: 1 }];
  /** Checks one value of `container` (a string now, a container later); a problem or null. */
  const visit = (container: Container, key: string | number, inner: unknown): BodyProblem | null => {
    if (typeof inner === 'string') {
      return isUnsafeText(inner) ? { kind: 'text', path: pathOf(container, key) } : null;
    }
    if (inner === null || typeof inner !== 'object') return null;
    if (container.level + 1 > maxDepth) return { kind: 'depth', path: pathOf(container, key) };
    stack.push({ value: inner, parent: container, key, level: container.level + 1 });
    return null;
  };
  while (stack.length > 0) {
    const container = stack.pop()!;
    const value = container.value as Record<string, unknown>;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        const problem = visit(container, i, value[i]);
        if (problem) return problem;
      }
      continue;
    }
    // A parsed body is plain JSON: own enumerable keys only.
    for (const key in value) {
      if (isUnsafeText(key)) return { kind: 'text', path: pathOf(container, key) };
      const problem = visit(container, key, value[key]);
      if (problem) return problem;
    }
  }
  return null;
}

/** Longest field name quoted in a refusal (a key may be any length). */
const MAX_FIELD_CHARS = 80;

/** `field: reason` of a problem in `lang`, the field written as the schema errors write it (`a.0.b`). */
export function describeBodyProblem(problem: BodyProblem, lang: Lang): string {
  // The key at fault may hold the very character refused: shown as U+FFFD.
  const joined = problem.path.join('.').replace(UNSAFE_TEXT_ALL, '\uFFFD');
  const field = Array.from(joined).slice(0, MAX_FIELD_CHARS).join('') || 'body';
  const reason =
    problem.kind === 'text'
      ? validationMessages.textCharacterInvalid[lang]
      : validationMessages.bodyTooDeep[lang].replace('{max}', String(MAX_BODY_DEPTH));
  return `${field}: ${reason}`;
}

/**
 * `preValidation` hook of every call: throws -100 naming the field when the parsed body has a
 * problem ({@link findBodyProblem}); the operation log still records the refusal (access/audit.ts).
 */
export async function guardBody(request: FastifyRequest): Promise<void> {
  const problem = findBodyProblem(request.body);
  if (problem) {
    throw new ApiError(ErrorCode.PARAM_ERROR, {}, describeBodyProblem(problem, request.lang));
  }
}
