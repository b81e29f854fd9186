/**
 * The user info answer (spec §3 "User info response", §7): who the caller is in the current
 * company, with roles, menu tree and permission strings, the companies it may switch to and the
 * companies that invited the account (docs/api.md "Adding an existing account").
 */
import type { Lang, UserInfo } from '@ess/contract';
import { and, eq } from 'drizzle-orm';
import { menuAccess, permissionsOf, toMenuTree } from '../../access/menu-access';
import type { AuthContext, SessionService } from '../../access/session-service';
import type { Db } from '../../core/db/database';
import { company, employee, employeeRole, role, userAccount } from '../../core/db/schema';

/** Builds the user info of `context` with the given tokens; menu titles in `lang`. */
export async function buildUserInfo(
  db: Db,
  sessions: SessionService,
  context: AuthContext,
  tokens: { token: string; refreshToken: string | null; tokenExpiresAt: number },
  lang: Lang,
): Promise<UserInfo> {
  const [row] = await db
    .select({
      employee,
      account: userAccount.account,
      mustChangePassword: userAccount.mustChangePassword,
      companyName: company.name,
    })
    .from(employee)
    .innerJoin(userAccount, eq(userAccount.id, employee.userId))
    .innerJoin(company, eq(company.id, employee.companyId))
    .where(eq(employee.id, context.employeeId));
  const roles = await db
    .select({ id: role.id, name: role.name })
    .from(employeeRole)
    .innerJoin(role, eq(role.id, employeeRole.roleId))
    .where(and(eq(employeeRole.employeeId, context.employeeId), eq(role.status, 'enabled')))
    .orderBy(role.id);
  const access = await menuAccess(db, context.employeeId);
  const [companyList, invitations] = await Promise.all([
    sessions.companyList(context.userId),
    sessions.invitations(context.userId),
  ]);
  const emp = row!.employee;
  return {
    ...tokens,
    userId: context.userId,
    employeeId: emp.id,
    companyId: context.companyId,
    companyName: row!.companyName,
    companyList,
    account: row!.account,
    name: emp.name,
    avatar: null,
    email: emp.email,
    isAdmin: emp.isAdmin || access.admin,
    mustChangePassword: row!.mustChangePassword,
    invitations,
    roles,
    menuList: toMenuTree(access.rows, lang),
    permissions: permissionsOf(access),
  };
}
