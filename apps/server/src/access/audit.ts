/**
 * Operation log: a route that declares `config.audit = {action, targetType}` has
 * every answer recorded — who (employee, account, company), when, what (`action`), the target,
 * before → after with secrets masked, the answer code and the client address. Sign-in attempts
 * (`user.login`) are recorded the same way, with the account as typed.
 *
 * Handlers describe the change with `recordChange(request, {targetId, before, after})`; when a
 * call fails before that (or a handler does not call it), the log keeps the request body
 * (masked) as `after` and the body's `id` as the target; a handler that names no `after` keeps the
 * body too. The row is written before the answer
 * leaves; a failure to write it is logged and does not change the answer.
 *
 * Actions and target types are those of the contract's closed vocabulary (audit-vocabulary.ts,
 * with their zh/en names): a route that declares another one stops the server when registered.
 */
import {
  type AuditAction,
  type AuditTargetType,
  isAuditAction,
  isAuditTargetType,
  MASKED_VALUE,
  MAX_BODY_DEPTH,
} from '@ess/contract';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../core/db/database';
import { employee, operationLog, userAccount } from '../core/db/schema';
import { storableText } from '../core/http/body-guard';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Record every answer of this route in the operation log (the endpoint table's `audit`). */
    audit?: { action: AuditAction; targetType: AuditTargetType };
  }
  interface FastifyRequest {
    /** What the handler changed, for the operation log. */
    auditChange: AuditChange | null;
  }
}

export interface AuditChange {
  targetId?: string | number | null;
  /**
   * The company the entry belongs to, when not the caller's: a sign-in attempt (no caller yet),
   * an accepted invitation (the inviting company's membership); null for none (a declined
   * invitation: only the platform operator, who sees every entry, reads it).
   */
  companyId?: number | null;
  before?: unknown;
  after?: unknown;
}

/** Names of fields whose values never reach the log (not flags such as `mustChangePassword`). */
const SECRET_KEY = /password|secret|token|ticket/i;
const FLAG_KEY = /^(must|is|has)[A-Z]/;

function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) && !FLAG_KEY.test(key);
}

/** Stands for what lies below {@link MAX_BODY_DEPTH} levels in a logged value. */
export const TRUNCATED_VALUE = '[…]';

/**
 * A deep copy of `value` with secret fields replaced by `MASKED_VALUE` and `userInfo` dropped,
 * fit for a `jsonb` column: text the database cannot store is replaced (U+FFFD), and objects or
 * arrays below `MAX_BODY_DEPTH` levels become {@link TRUNCATED_VALUE} — a refused body may be
 * nested any depth (the body guard refuses it, and the log still records the refusal).
 */
export function maskSecrets(value: unknown, level = 1): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return value;
  if (level > MAX_BODY_DEPTH) return TRUNCATED_VALUE;
  if (Array.isArray(value)) return value.map((inner) => maskSecrets(inner, level + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'userInfo') continue;
    out[storableText(key)] =
      isSecretKey(key) && inner !== null && inner !== undefined
        ? MASKED_VALUE
        : maskSecrets(inner, level + 1);
  }
  return out;
}

/** Describes the change a handler made (call it once the change is known). */
export function recordChange(request: FastifyRequest, change: AuditChange): void {
  request.auditChange = { ...request.auditChange, ...change };
}

function codeOf(payload: unknown): number {
  if (typeof payload !== 'string') return -101;
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code;
    return typeof code === 'number' ? code : -101;
  } catch {
    return -101;
  }
}

async function operatorOf(
  db: Db,
  employeeId: number,
): Promise<{ account: string; name: string } | undefined> {
  const [row] = await db
    .select({ account: userAccount.account, name: employee.name })
    .from(employee)
    .innerJoin(userAccount, eq(userAccount.id, employee.userId))
    .where(eq(employee.id, employeeId));
  return row;
}

/** Throws unless `audit` names an action and a target type of the vocabulary. */
export function assertAuditVocabulary(path: string, audit: { action: string; targetType: string }): void {
  if (!isAuditAction(audit.action) || !isAuditTargetType(audit.targetType)) {
    throw new Error(
      `route ${path} records ${audit.action} on ${audit.targetType}: not in the audit vocabulary (packages/contract audit-vocabulary.ts)`,
    );
  }
}

export function registerAudit(app: FastifyInstance, db: Db): void {
  app.decorateRequest('auditChange', null);
  app.addHook('onRoute', (route) => {
    const audit = (route.config as { audit?: { action: string; targetType: string } } | undefined)?.audit;
    if (audit) assertAuditVocabulary(route.url, audit);
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    const audit = request.routeOptions.config.audit;
    if (!audit) return payload;
    try {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const change = request.auditChange;
      const auth = request.auth ?? null;
      const operator = auth ? await operatorOf(db, auth.employeeId) : undefined;
      const typedAccount = typeof body.account === 'string' ? storableText(body.account.trim()) : null;
      const targetId = change?.targetId ?? (typeof body.id === 'number' ? body.id : null);
      await db.insert(operationLog).values({
        companyId: change?.companyId !== undefined ? change.companyId : (auth?.companyId ?? null),
        employeeId: auth?.employeeId ?? null,
        account: operator?.account ?? typedAccount,
        operatorName: operator?.name ?? null,
        action: audit.action,
        targetType: audit.targetType,
        targetId: targetId === null ? null : String(targetId),
        before: change?.before === undefined ? null : maskSecrets(change.before),
        after: change?.after !== undefined ? maskSecrets(change.after) : maskSecrets(body),
        code: codeOf(payload),
        ip: request.ip,
      });
    } catch (err) {
      request.log.error({ err }, 'operation log write failed');
    }
    return payload;
  });
}
