/**
 * Sign-in, sessions and tokens (spec §4, §7).
 *
 * Handshake (docs/api.md "Session handshake"):
 *  1. `login` checks account + password digest and answers `userId`, `companyList` and a
 *     single-use `loginTicket` (valid `LOGIN_TICKET_TTL_S`, bound to the terminal).
 *  2. `getUserInfo` with `{userId, companyId, terminalId, loginTicket}` consumes the ticket and
 *     opens a session for that company: access token + refresh token. Without a ticket it needs
 *     a valid X-Token of that same user and company and answers fresh user info and menu.
 *  So nobody obtains a token for a user id without that user's password.
 *
 * Tokens are random (256 bits), stored as SHA-256 digests, revocable. Access tokens live
 * `ACCESS_TOKEN_TTL_S`; refresh tokens rotate on every use and reuse of a rotated one revokes
 * the session; every session has an absolute end (`REFRESH_TOKEN_TTL_S` after sign-in).
 */
import { ErrorCode, type Invitation } from '@ess/contract';
import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Config } from '../core/config';
import type { Db } from '../core/db/database';
import {
  authSession,
  company,
  employee,
  loginTicket,
  usedRefreshToken,
  userAccount,
} from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import { verifyAgainstDummy, verifyPassword } from './password';
import { accountKey, addressKey, assertNotThrottled, clearFailures, recordFailure } from './throttle';
import { newToken, TOKEN_PATTERN, tokenDigest } from './tokens';

/** Who is calling: resolved from X-Token for every authenticated call. */
export interface AuthContext {
  sessionId: number;
  userId: number;
  employeeId: number;
  companyId: number;
  terminalId: string;
  /** When the presented access token expires (UTC ms). */
  accessExpiresAt: number;
  /**
   * The account still has a password an administrator set (new account, reset): until it is
   * changed only the calls marked `beforePasswordChange` in the endpoint table are answered
   * (access/auth-hook.ts; 5058 otherwise).
   */
  mustChangePassword: boolean;
}

export interface ClientMeta {
  ip: string;
  userAgent: string | undefined;
}

export interface IssuedTokens {
  token: string;
  refreshToken: string;
  tokenExpiresAt: number;
}

/** A rotated refresh token presented again this soon is a concurrent refresh, not theft. */
export const REFRESH_REUSE_GRACE_MS = 10_000;

export type RevokeReason =
  | 'logout'
  | 'new-login'
  | 'refresh-reuse'
  | 'expired'
  | 'password-changed'
  | 'password-reset'
  | 'disabled';

export class SessionService {
  /** Hot path of every call: prepared once, executed with the token digest. */
  private readonly sessionByAccessDigest;
  private readonly revokedListeners = new Set<() => void>();

  /**
   * Calls `listener` after sessions were revoked through this process (the live push closes the
   * sockets of ended sessions at once instead of at its next periodic check). Returns the
   * unsubscribe function.
   */
  onRevoked(listener: () => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  private notifyRevoked(): void {
    for (const listener of this.revokedListeners) listener();
  }

  constructor(
    private readonly db: Db,
    private readonly auth: Config['auth'],
  ) {
    this.sessionByAccessDigest = db
      .select({
        session: authSession,
        employeeStatus: employee.status,
        companyStatus: company.status,
        mustChangePassword: userAccount.mustChangePassword,
      })
      .from(authSession)
      .innerJoin(employee, eq(employee.id, authSession.employeeId))
      .innerJoin(company, eq(company.id, authSession.companyId))
      .innerJoin(userAccount, eq(userAccount.id, authSession.userId))
      .where(eq(authSession.accessTokenHash, sql.placeholder('digest')))
      .prepare('session_by_access_digest');
  }

  /**
   * Checks the password and answers the companies the account may enter plus a login ticket.
   * Errors: 5082 throttled, 5080 unknown account or wrong password (same answer), 5052 every
   * membership disabled, 6001 every company disabled.
   */
  async login(
    input: { account: string; password: string; terminalId: string },
    client: ClientMeta,
  ): Promise<{
    userId: number;
    companyList: { id: number; name: string }[];
    loginTicket: string;
    loginTicketTtlS: number;
  }> {
    const keys = [accountKey(input.account), addressKey(client.ip)];
    await assertNotThrottled(this.db, keys);

    const [user] = await this.db.select().from(userAccount).where(eq(userAccount.account, input.account));
    const passwordOk = user
      ? await verifyPassword(input.password, user.passwordHash)
      : await verifyAgainstDummy(input.password, this.auth.scryptLogN);
    if (!user || !passwordOk) {
      await recordFailure(this.db, keys[0]!, this.auth.maxFailuresPerAccount, this.auth.throttleWindowS);
      await recordFailure(this.db, keys[1]!, this.auth.maxFailuresPerAddress, this.auth.throttleWindowS);
      throw new ApiError(ErrorCode.BAD_CREDENTIALS);
    }

    const memberships = await this.memberships(user.id);
    const usable = memberships.filter((m) => m.employeeStatus === 'enabled' && m.companyStatus === 'enabled');
    if (usable.length === 0) {
      if (memberships.some((m) => m.employeeStatus === 'enabled'))
        throw new ApiError(ErrorCode.COMPANY_DISABLED);
      if (memberships.length > 0) throw new ApiError(ErrorCode.EMPLOYEE_DISABLED);
      throw new ApiError(ErrorCode.BAD_CREDENTIALS);
    }
    await clearFailures(this.db, keys[0]!);

    const ticket = newToken('lt');
    await this.db.insert(loginTicket).values({
      ticketHash: tokenDigest(ticket),
      userId: user.id,
      terminalId: input.terminalId,
      expiresAt: new Date(Date.now() + this.auth.loginTicketTtlS * 1000),
    });
    return {
      userId: user.id,
      companyList: usable.map((m) => ({ id: m.companyId, name: m.companyName })),
      loginTicket: ticket,
      loginTicketTtlS: this.auth.loginTicketTtlS,
    };
  }

  /**
   * Consumes a login ticket and opens a session for the employee of `userId` in `companyId`.
   * A new sign-in on the same terminal ends the terminal's previous session.
   * Errors: 5081 ticket unknown, used, expired, or not presented by the terminal it was issued
   * to (`terminalId` is required with a ticket); 5051 the account is
   * not an employee of that company; 5052 employee disabled; 6001 company disabled.
   */
  async openSession(
    input: { userId: number; companyId: number; terminalId?: string | undefined; loginTicket: string },
    client: ClientMeta,
  ): Promise<{ context: AuthContext; tokens: IssuedTokens }> {
    const [ticket] = await this.db
      .delete(loginTicket)
      .where(
        and(eq(loginTicket.ticketHash, tokenDigest(input.loginTicket)), eq(loginTicket.userId, input.userId)),
      )
      .returning();
    if (!ticket || ticket.expiresAt.getTime() <= Date.now() || ticket.terminalId !== input.terminalId) {
      throw new ApiError(ErrorCode.TOKEN_OBTAIN_FAILED);
    }
    const member = await this.requireUsableMember(input.userId, input.companyId);

    return this.db.transaction(async (tx) => {
      await tx
        .update(authSession)
        .set({ revokedAt: new Date(), revokeReason: 'new-login' })
        .where(
          and(
            eq(authSession.userId, input.userId),
            eq(authSession.terminalId, ticket.terminalId),
            isNull(authSession.revokedAt),
          ),
        );
      const tokens = this.issueTokens();
      const [session] = await tx
        .insert(authSession)
        .values({
          userId: input.userId,
          employeeId: member.employeeId,
          companyId: input.companyId,
          terminalId: ticket.terminalId,
          accessTokenHash: tokenDigest(tokens.token),
          accessExpiresAt: new Date(tokens.tokenExpiresAt),
          refreshTokenHash: tokenDigest(tokens.refreshToken),
          refreshExpiresAt: new Date(Date.now() + this.auth.refreshTokenTtlS * 1000),
          clientIp: client.ip,
          userAgent: client.userAgent?.slice(0, 512),
        })
        .returning({ id: authSession.id });
      // The first session in the company takes the membership up (employee list: no longer
      // "awaiting first sign-in").
      await tx
        .update(employee)
        .set({ joinedAt: new Date() })
        .where(and(eq(employee.id, member.employeeId), isNull(employee.joinedAt)));
      return {
        tokens,
        context: {
          sessionId: session!.id,
          userId: input.userId,
          employeeId: member.employeeId,
          companyId: input.companyId,
          terminalId: ticket.terminalId,
          accessExpiresAt: tokens.tokenExpiresAt,
          mustChangePassword: member.mustChangePassword,
        },
      };
    });
  }

  /**
   * Resolves an X-Token to its caller.
   * Errors: 50008 not a token of ours; 9999 unknown; 50012 revoked, or the employee or company
   * is disabled; 50014 the access token expired (refresh it); -102 the session's absolute end passed.
   */
  async authenticate(token: string | undefined): Promise<AuthContext> {
    if (!token) throw new ApiError(ErrorCode.TOKEN_INVALID);
    if (!TOKEN_PATTERN.test(token) || !token.startsWith('at_')) throw new ApiError(ErrorCode.ILLEGAL_TOKEN);
    const [row] = await this.sessionByAccessDigest.execute({ digest: tokenDigest(token) });
    if (!row) throw new ApiError(ErrorCode.TOKEN_INVALID);
    const { session } = row;
    if (session.revokedAt) throw new ApiError(ErrorCode.SESSION_REVOKED);
    if (row.employeeStatus !== 'enabled' || row.companyStatus !== 'enabled') {
      await this.revokeSession(session.id, 'disabled');
      throw new ApiError(ErrorCode.SESSION_REVOKED);
    }
    const now = Date.now();
    if (session.refreshExpiresAt.getTime() <= now) {
      await this.revokeSession(session.id, 'expired');
      throw new ApiError(ErrorCode.LOGIN_EXPIRED);
    }
    if (session.accessExpiresAt.getTime() <= now) throw new ApiError(ErrorCode.ACCESS_TOKEN_EXPIRED);
    return {
      sessionId: session.id,
      userId: session.userId,
      employeeId: session.employeeId,
      companyId: session.companyId,
      terminalId: session.terminalId,
      accessExpiresAt: session.accessExpiresAt.getTime(),
      mustChangePassword: row.mustChangePassword,
    };
  }

  /**
   * Rotates the refresh token of the caller's session and issues a new access token.
   * Errors: 9999 unknown token or user/terminal mismatch, or a token rotated less than
   * REFRESH_REUSE_GRACE_MS ago (a concurrent refresh from another tab); 50012 session revoked,
   * employee or company disabled, or an old refresh token presented again after the grace
   * window, which also revokes the session; -102 the session's absolute end passed.
   */
  async refresh(input: { userId: number; terminalId: string; refreshToken: string }): Promise<IssuedTokens> {
    const digest = tokenDigest(input.refreshToken);
    const tokens = this.issueTokens();
    const outcome = await this.db.transaction(async (tx) => {
      const [session] = await tx.select().from(authSession).where(eq(authSession.refreshTokenHash, digest));
      if (!session) {
        const [used] = await tx.select().from(usedRefreshToken).where(eq(usedRefreshToken.tokenHash, digest));
        if (!used) return ErrorCode.TOKEN_INVALID;
        // Two tabs of one browser share a terminal and may refresh at the same moment: the loser
        // presents the token the winner just rotated. Within the grace window that is not theft;
        // the loser reads the winner's new tokens from shared storage.
        if (Date.now() - used.usedAt.getTime() < REFRESH_REUSE_GRACE_MS) return ErrorCode.TOKEN_INVALID;
        await tx
          .update(authSession)
          .set({ revokedAt: new Date(), revokeReason: 'refresh-reuse' })
          .where(and(eq(authSession.id, used.sessionId), isNull(authSession.revokedAt)));
        return ErrorCode.SESSION_REVOKED;
      }
      if (session.userId !== input.userId || session.terminalId !== input.terminalId)
        return ErrorCode.TOKEN_INVALID;
      if (session.revokedAt) return ErrorCode.SESSION_REVOKED;
      const [member] = await tx
        .select({ employeeStatus: employee.status, companyStatus: company.status })
        .from(employee)
        .innerJoin(company, eq(company.id, employee.companyId))
        .where(eq(employee.id, session.employeeId));
      if (member?.employeeStatus !== 'enabled' || member.companyStatus !== 'enabled') {
        await tx
          .update(authSession)
          .set({ revokedAt: new Date(), revokeReason: 'disabled' })
          .where(eq(authSession.id, session.id));
        return ErrorCode.SESSION_REVOKED;
      }
      if (session.refreshExpiresAt.getTime() <= Date.now()) {
        await tx
          .update(authSession)
          .set({ revokedAt: new Date(), revokeReason: 'expired' })
          .where(eq(authSession.id, session.id));
        return ErrorCode.LOGIN_EXPIRED;
      }
      // Compare-and-swap on the old digest: of two concurrent refreshes only one wins.
      const swapped = await tx
        .update(authSession)
        .set({
          accessTokenHash: tokenDigest(tokens.token),
          accessExpiresAt: new Date(tokens.tokenExpiresAt),
          refreshTokenHash: tokenDigest(tokens.refreshToken),
          lastRefreshedAt: new Date(),
        })
        .where(and(eq(authSession.id, session.id), eq(authSession.refreshTokenHash, digest)))
        .returning({ id: authSession.id });
      if (swapped.length === 0) return ErrorCode.TOKEN_INVALID; // a concurrent refresh won
      await tx.insert(usedRefreshToken).values({ tokenHash: digest, sessionId: session.id });
      return null;
    });
    if (outcome !== null) throw new ApiError(outcome);
    return tokens;
  }

  /** Ends the caller's session (spec §4 logout: "that terminal's session"). */
  async logout(context: AuthContext): Promise<void> {
    await this.revokeSession(context.sessionId, 'logout');
  }

  /** Ends every live session of an account, optionally sparing one (after a password change). */
  async revokeUserSessions(userId: number, reason: RevokeReason, exceptSessionId?: number): Promise<void> {
    await this.db
      .update(authSession)
      .set({ revokedAt: new Date(), revokeReason: reason })
      .where(
        and(
          eq(authSession.userId, userId),
          isNull(authSession.revokedAt),
          exceptSessionId === undefined ? undefined : ne(authSession.id, exceptSessionId),
        ),
      );
    this.notifyRevoked();
  }

  /** Ends every open session of these employees (disabled, deleted, company disabled). */
  async revokeEmployeeSessions(employeeIds: readonly number[], reason: RevokeReason): Promise<void> {
    if (employeeIds.length === 0) return;
    await this.db
      .update(authSession)
      .set({ revokedAt: new Date(), revokeReason: reason })
      .where(and(inArray(authSession.employeeId, [...employeeIds]), isNull(authSession.revokedAt)));
    this.notifyRevoked();
  }

  async revokeSession(sessionId: number, reason: RevokeReason): Promise<void> {
    await this.db
      .update(authSession)
      .set({ revokedAt: new Date(), revokeReason: reason })
      .where(and(eq(authSession.id, sessionId), isNull(authSession.revokedAt)));
  }

  /**
   * The first company (lowest id) an account belongs to, for logging its sign-in attempts; a
   * company that only invited the account is not one (it must not learn of the account).
   */
  async firstCompanyOfAccount(account: string): Promise<number | null> {
    const [row] = await this.db
      .select({ companyId: employee.companyId })
      .from(employee)
      .innerJoin(userAccount, eq(userAccount.id, employee.userId))
      .where(and(eq(userAccount.account, account.trim()), isNull(employee.invitation)))
      .orderBy(employee.companyId)
      .limit(1);
    return row?.companyId ?? null;
  }

  /**
   * The companies `userId` belongs to, with both statuses and the account's
   * `mustChangePassword` (for the company pick at sign-in). Invitations not accepted are not
   * memberships.
   */
  async memberships(userId: number) {
    return this.db
      .select({
        employeeId: employee.id,
        employeeStatus: employee.status,
        companyId: company.id,
        companyName: company.name,
        companyStatus: company.status,
        mustChangePassword: userAccount.mustChangePassword,
      })
      .from(employee)
      .innerJoin(company, eq(company.id, employee.companyId))
      .innerJoin(userAccount, eq(userAccount.id, employee.userId))
      .where(and(eq(employee.userId, userId), isNull(employee.invitation)))
      .orderBy(company.id);
  }

  /** The companies usable now: membership and company enabled (the company pick). */
  async companyList(userId: number): Promise<{ id: number; name: string }[]> {
    return (await this.memberships(userId))
      .filter((m) => m.employeeStatus === 'enabled' && m.companyStatus === 'enabled')
      .map((m) => ({ id: m.companyId, name: m.companyName }));
  }

  /** Pending invitations of `userId` from enabled companies, oldest first (user info). */
  async invitations(userId: number): Promise<Invitation[]> {
    return this.db
      .select({ companyId: company.id, companyName: company.name })
      .from(employee)
      .innerJoin(company, eq(company.id, employee.companyId))
      .where(
        and(
          eq(employee.userId, userId),
          eq(employee.invitation, 'pending'),
          eq(company.status, 'enabled'),
          eq(employee.status, 'enabled'),
        ),
      )
      .orderBy(asc(employee.id));
  }

  /**
   * Answers the pending invitation of `userId` from `companyId`: accepting makes it a
   * membership (in the company pick from now on, joined now); declining closes it for good —
   * the employee row stays, "awaiting first sign-in", so the company learns nothing.
   * Answers the invitation's employee id. Errors: 5060 no such pending invitation (also when
   * the company or the employee row is disabled).
   */
  async answerInvitation(userId: number, companyId: number, accept: boolean): Promise<number> {
    const [open] = await this.db
      .select({ id: employee.id })
      .from(employee)
      .innerJoin(company, eq(company.id, employee.companyId))
      .where(
        and(
          eq(employee.userId, userId),
          eq(employee.companyId, companyId),
          eq(employee.invitation, 'pending'),
          eq(company.status, 'enabled'),
          eq(employee.status, 'enabled'),
        ),
      );
    const [answered] = open
      ? await this.db
          .update(employee)
          .set(
            accept
              ? { invitation: null, joinedAt: new Date(), updatedAt: new Date() }
              : { invitation: 'declined', updatedAt: new Date() },
          )
          .where(and(eq(employee.id, open.id), eq(employee.invitation, 'pending')))
          .returning({ id: employee.id })
      : [];
    if (!answered) throw new ApiError(ErrorCode.INVITATION_NOT_FOUND);
    return answered.id;
  }

  private async requireUsableMember(userId: number, companyId: number) {
    const member = (await this.memberships(userId)).find((m) => m.companyId === companyId);
    if (!member) throw new ApiError(ErrorCode.EMPLOYEE_NOT_FOUND);
    if (member.employeeStatus !== 'enabled') throw new ApiError(ErrorCode.EMPLOYEE_DISABLED);
    if (member.companyStatus !== 'enabled') throw new ApiError(ErrorCode.COMPANY_DISABLED);
    return member;
  }

  private issueTokens(): IssuedTokens {
    return {
      token: newToken('at'),
      refreshToken: newToken('rt'),
      tokenExpiresAt: Date.now() + this.auth.accessTokenTtlS * 1000,
    };
  }
}
