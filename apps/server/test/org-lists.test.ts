/**
 * The counts in organisation lists belong to their own row: employees per company and per
 * department, sites and assigned gateways per agent, holders per role. Each row gets a
 * different number, so a count joined to the wrong row shows.
 */
import { endpoints } from '@ess/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { device, employee, site } from '../src/core/db/schema';
import { call, type SignedIn, signIn } from './support/client';
import { addRole, addStaff, unique } from './support/fixtures';
import { addCompanyUnder, addDepartment } from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('organisation list counts on %s', (engine) => {
  let ctx: TestContext;
  let admin: SignedIn;
  let platformId: number;
  beforeAll(async () => {
    ctx = await createTestApp(engine);
    admin = await signIn(ctx.app);
    platformId = admin.companyId;
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.database.db;
  const list = async (path: string, body: object) => {
    const answer = await call(ctx.app, path, { pageSize: 500, ...body }, { token: admin.token });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data.list as { id: number; [k: string]: unknown }[];
  };

  it('employees, sites and assigned gateways per agent', async () => {
    const agents = [
      await addCompanyUnder(db(), { type: 'agent', parentId: platformId }),
      await addCompanyUnder(db(), { type: 'agent', parentId: platformId }),
    ];
    // Agent 0: 2 employees, 1 site with 3 gateways assigned to agent 1; agent 1: 1 employee, no site.
    await addStaff(db(), { companyId: agents[0]! });
    await addStaff(db(), { companyId: agents[0]! });
    await addStaff(db(), { companyId: agents[1]! });
    const [s] = await db()
      .insert(site)
      .values({ companyId: agents[0]!, code: unique('c').slice(-30), name: unique('site') })
      .returning({ id: site.id });
    for (let i = 0; i < 3; i++) {
      await db()
        .insert(device)
        .values({
          companyId: agents[0]!,
          siteId: s!.id,
          sn: unique('SN').slice(-40),
          type: 'ems',
          agentId: agents[1]!,
        });
    }
    const rows = await list(endpoints.agent.pageList.path, {});
    const byId = (id: number) => rows.find((r) => r.id === id);
    expect(byId(agents[0]!)).toMatchObject({ employeeCount: 2, siteCount: 1, assignedDeviceCount: 0 });
    expect(byId(agents[1]!)).toMatchObject({ employeeCount: 1, siteCount: 0, assignedDeviceCount: 3 });
  });

  it('employees per department and holders per role', async () => {
    const companyId = await addCompanyUnder(db(), { type: 'owner', parentId: platformId });
    const depts = [await addDepartment(db(), { companyId }), await addDepartment(db(), { companyId })];
    const roles = [await addRole(db(), { companyId }), await addRole(db(), { companyId })];
    for (const [dept, roleIds] of [
      [depts[1]!, [roles[0]!]],
      [depts[1]!, [roles[0]!, roles[1]!]],
      [depts[1]!, [roles[0]!]],
    ] as const) {
      const staff = await addStaff(db(), { companyId, roleIds: [...roleIds] });
      await db().update(employee).set({ departmentId: dept }).where(eq(employee.id, staff.employeeId));
    }
    const deptRows = await list(endpoints.department.list.path, { companyId });
    expect(deptRows.find((r) => r.id === depts[0])?.employeeCount).toBe(0);
    expect(deptRows.find((r) => r.id === depts[1])?.employeeCount).toBe(3);
    const roleRows = await list(endpoints.role.pageList.path, { companyId });
    expect(roleRows.find((r) => r.id === roles[0])?.employeeCount).toBe(3);
    expect(roleRows.find((r) => r.id === roles[1])?.employeeCount).toBe(1);
  });
});
