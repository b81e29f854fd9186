/**
 * First-start seed: the platform company, an administrator role that holds every
 * menu, and the demo administrator `admin` with `ADMIN_PASSWORD` (default `admin123`, refused
 * in production by the config). Runs in one transaction and only when no account exists, so
 * a second start on the same data keeps everything as it was.
 */
import { count } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { company, employee, employeeRole, role, userAccount } from '../core/db/schema';
import { browserPasswordDigest, hashPassword } from './password';

export const ADMIN_ACCOUNT = 'admin';
export const PLATFORM_COMPANY_NAME = '平台运营中心';

/** Seeds an empty database; answers whether it did. */
export async function seedIfEmpty(
  db: Db,
  options: { adminPassword: string; scryptLogN: number },
): Promise<boolean> {
  const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(userAccount);
  if (n > 0) return false;
  const passwordHash = await hashPassword(browserPasswordDigest(options.adminPassword), options.scryptLogN);
  await db.transaction(async (tx) => {
    const [platform] = await tx
      .insert(company)
      .values({ type: 'platform', name: PLATFORM_COMPANY_NAME, status: 'enabled' })
      .returning();
    const [adminRole] = await tx
      .insert(role)
      .values({
        companyId: platform!.id,
        name: '系统管理员',
        code: 'admin',
        // No stored remark: the console describes a built-in administrator role in the reader's language.
        remark: null,
        isAdmin: true,
        dataScope: 'all',
      })
      .returning();
    const [account] = await tx
      .insert(userAccount)
      .values({ account: ADMIN_ACCOUNT, passwordHash })
      .returning();
    const [admin] = await tx
      .insert(employee)
      .values({ companyId: platform!.id, userId: account!.id, name: '管理员', isAdmin: true })
      .returning();
    await tx.insert(employeeRole).values({ employeeId: admin!.id, roleId: adminRole!.id });
  });
  return true;
}
