/**
 * Organisation and access-control rules (spec §6–§8): every refused call answers its
 * code with the catalogue text in Chinese (default) and English and changes no row; concurrent
 * edits of one role do not lose rights (optimistic version check); deleting with references
 * answers a clear code.
 *
 * Callers: the seeded platform administrator (`admin`, sees every company), a second platform
 * administrator, administrators of agent companies (see their own tree only) and employees
 * without an administrator role (only the rights they were granted).
 */
import { ErrorCode as E, endpoints } from '@ess/contract';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { company, device, employee, menu, role, roleMenu, userAccount } from '../src/core/db/schema';
import { call, digest, type SignedIn, signIn } from './support/client';
import { addEmployee, addStaff, terminal, unique } from './support/fixtures';
import {
  addCompanyUnder,
  addDepartment,
  addScopedRole,
  adminRoleOf,
  catalogueMsg,
  expectRefusal,
  snapshot,
  uniquePhone,
} from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';

type Kind = 'agent' | 'investor' | 'construction' | 'owner';

describe.each(engines)('organisation rules on %s', (engine) => {
  let ctx: TestContext;
  /** The seeded platform administrator. */
  let admin: SignedIn;
  let platformId: number;
  beforeAll(async () => {
    ctx = await createTestApp(engine);
    admin = await signIn(ctx.app);
    platformId = admin.companyId;
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.database.db;

  /** A call that must succeed; answers its data. */
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  const okCall = async (token: string, path: string, body: object): Promise<any> => {
    const answer = await call(ctx.app, path, body, { token });
    expect(answer.code, `${path}: ${answer.msg}`).toBe(0);
    return answer.data;
  };

  /**
   * Calls `path` in Chinese and in English: both answer `code` with the catalogue text (plus
   * `detail`, e.g. an SN) and no data, and no organisation row changes.
   */
  const refuse = async (
    token: string | undefined,
    path: string,
    body: object,
    code: number,
    detail?: string,
  ): Promise<void> => {
    const before = await snapshot(db());
    const options = token ? { token } : {};
    expectRefusal(await call(ctx.app, path, body, options), code, 'zh', detail);
    expectRefusal(await call(ctx.app, path, body, { ...options, lang: 'en' }), code, 'en', detail);
    expect(await snapshot(db())).toEqual(before);
  };

  const loginBody = (account: string, password: string) => ({
    account,
    password: digest(password),
    terminalId: terminal(),
  });
  /** Any signed-in call, to see whether a token still works. */
  const probe = (token: string) => call(ctx.app, endpoints.user.getPermission.path, {}, { token });

  /** A company of `kind` created through the API by the platform administrator. */
  const newCompany = async (kind: Kind, extra: object = {}, token = admin.token): Promise<number> =>
    (await okCall(token, endpoints[kind].save.path, { name: unique(kind), phone: uniquePhone(), ...extra }))
      .id;

  /** Signs in a new employee of `companyId` holding the company's administrator role. */
  const companyAdmin = async (companyId: number): Promise<SignedIn> => {
    const staff = await addStaff(db(), { companyId, roleIds: [await adminRoleOf(db(), companyId)] });
    return signIn(ctx.app, staff.account, staff.password);
  };

  /** Signs in a new employee of `companyId` holding one role granted `menuIds` (no administrator). */
  const grantedStaff = async (companyId: number, menuIds: number[]) => {
    const roleId = await addScopedRole(db(), { companyId, dataScope: 'company', menuIds });
    const staff = await addStaff(db(), { companyId, roleIds: [roleId] });
    return { ...staff, roleId, session: await signIn(ctx.app, staff.account, staff.password) };
  };

  const employeeIdOf = async (s: SignedIn) =>
    (
      await db()
        .select({ id: employee.id })
        .from(employee)
        .where(and(eq(employee.userId, s.userId), eq(employee.companyId, s.companyId)))
    )[0]!.id;

  /* ───────────── Companies ───────────── */

  describe('companies', () => {
    it('a new company sits under the caller’s and gets an administrator role holding every menu it may hold', async () => {
      const id = await newCompany('owner');
      const [row] = await db().select().from(company).where(eq(company.id, id));
      expect(row).toMatchObject({ type: 'owner', parentId: platformId, status: 'enabled' });
      const roles = await db().select().from(role).where(eq(role.companyId, id));
      expect(roles).toHaveLength(1);
      expect(roles[0]).toMatchObject({ code: 'admin', isAdmin: true, status: 'enabled' });
      const detail = await okCall(admin.token, endpoints.role.detail.path, { id: roles[0]!.id });
      expect(detail.menuIds).toEqual(expect.arrayContaining([110, 120, 130, 140, 201, 301]));
      expect(detail.menuIds).not.toContain(101); // menu management is platform-only
      // Its administrator signs in and manages the company.
      const own = await companyAdmin(id);
      expect(own.info.isAdmin).toBe(true);
      expect(own.info.permissions).toEqual(
        expect.arrayContaining(['system:employee:save', 'org:owner:save']),
      );
    });

    it('6002: a name or phone another company has, on save and on update', async () => {
      const phone = uniquePhone();
      const name = unique('owner');
      const first = await newCompany('owner', { name, phone });
      const second = await newCompany('owner');
      const save = (kind: Kind, body: object) => refuse(admin.token, endpoints[kind].save.path, body, 6002);
      await save('owner', { name, phone: uniquePhone() });
      await save('owner', { name: unique('owner'), phone });
      await save('agent', { name, phone: uniquePhone() }); // names are unique across kinds
      await refuse(admin.token, endpoints.owner.update.path, { id: second, name }, 6002);
      await refuse(admin.token, endpoints.owner.update.path, { id: second, name: unique('o'), phone }, 6002);
      // Its own name and phone are no clash.
      await okCall(admin.token, endpoints.owner.update.path, { id: first, name, phone, contact: '张三' });
    });

    it('6000: a company outside the caller’s tree, or of another kind, does not exist', async () => {
      const agent = await newCompany('agent');
      const agentAdmin = await companyAdmin(agent);
      const outside = await newCompany('owner');
      const otherAgent = await newCompany('agent');
      await refuse(agentAdmin.token, endpoints.owner.update.path, { id: outside, name: unique('x') }, 6000);
      await refuse(agentAdmin.token, endpoints.owner.status.path, { id: outside, status: 'disabled' }, 6000);
      await refuse(
        agentAdmin.token,
        endpoints.owner.save.path,
        { name: unique('x'), parentId: outside },
        6000,
      );
      await refuse(agentAdmin.token, endpoints.agent.devices.path, { agentId: otherAgent }, 6000);
      await refuse(admin.token, endpoints.investor.update.path, { id: outside, name: unique('x') }, 6000);
      await refuse(admin.token, endpoints.owner.status.path, { id: 999_999, status: 'disabled' }, 6000);

      // Within its tree the agent's administrator works: a company below it, then its update.
      const below = await newCompany('owner', {}, agentAdmin.token);
      expect((await db().select().from(company).where(eq(company.id, below)))[0]?.parentId).toBe(agent);
      await okCall(agentAdmin.token, endpoints.owner.update.path, { id: below, name: unique('owner') });
      const list = await okCall(agentAdmin.token, endpoints.owner.pageList.path, { pageSize: 500 });
      expect(list.list.map((c: { id: number }) => c.id)).toEqual([below]);
    });

    it('6005: the caller’s own company cannot be disabled', async () => {
      const agent = await newCompany('agent');
      const agentAdmin = await companyAdmin(agent);
      await refuse(agentAdmin.token, endpoints.agent.status.path, { id: agent, status: 'disabled' }, 6005);
      expect((await probe(agentAdmin.token)).code).toBe(0);
    });

    it('disabling a company signs its employees out (50012) and they cannot sign in (6001)', async () => {
      const id = await newCompany('owner');
      const staff = await addStaff(db(), { companyId: id, roleIds: [await adminRoleOf(db(), id)] });
      const session = await signIn(ctx.app, staff.account, staff.password);
      expect((await probe(session.token)).code).toBe(0);

      await okCall(admin.token, endpoints.owner.status.path, { id, status: 'disabled' });
      expectRefusal(await probe(session.token), E.SESSION_REVOKED, 'zh');
      expectRefusal(
        await call(ctx.app, endpoints.user.getPermission.path, {}, { token: session.token, lang: 'en' }),
        E.SESSION_REVOKED,
        'en',
      );
      await refuse(undefined, endpoints.user.login.path, loginBody(staff.account, staff.password), 6001);
      const list = await okCall(admin.token, endpoints.owner.pageList.path, { status: 'disabled' });
      expect(list.list.map((c: { id: number }) => c.id)).toContain(id);

      // Enabled again: a new sign-in works; the ended session stays ended.
      await okCall(admin.token, endpoints.owner.status.path, { id, status: 'enabled' });
      await signIn(ctx.app, staff.account, staff.password);
      expect((await probe(session.token)).code).toBe(E.SESSION_REVOKED);
    });
  });

  /* ───────────── Agent devices ───────────── */

  describe('agent devices', () => {
    let agentA: number;
    let agentB: number;
    let siteId: number;
    const gateways: { id: number; sn: string }[] = [];
    let subDevice: number;

    beforeAll(async () => {
      agentA = await newCompany('agent');
      agentB = await newCompany('agent');
      const owner = await newCompany('owner');
      siteId = (
        await okCall(admin.token, endpoints.site.save.path, {
          code: unique('S'),
          name: unique('站点'),
          companyId: owner,
        })
      ).id;
      for (let i = 0; i < 5; i++) {
        const sn = unique('GW');
        gateways.push({
          id: (await okCall(admin.token, endpoints.device.save.path, { siteId, sn, type: 'ems' })).id,
          sn,
        });
      }
      subDevice = (
        await okCall(admin.token, endpoints.device.save.path, {
          siteId,
          sn: unique('PCS'),
          type: 'pcs',
          gatewayId: gateways[0]!.id,
        })
      ).id;
    });

    const agentOf = async (ids: number[]) => {
      const rows = await db()
        .select({ id: device.id, agentId: device.agentId })
        .from(device)
        .where(inArray(device.id, ids));
      return Object.fromEntries(rows.map((r) => [r.id, r.agentId]));
    };
    const assign = (agentId: number, deviceIds: number[]) =>
      okCall(admin.token, endpoints.agent.assignDevices.path, { agentId, deviceIds });

    it('assigns a gateway with the devices behind it, lists it, and releases it', async () => {
      const g = gateways[0]!;
      await assign(agentA, [g.id]);
      expect(await agentOf([g.id, subDevice])).toEqual({ [g.id]: agentA, [subDevice]: agentA });
      const listed = await okCall(admin.token, endpoints.agent.devices.path, { agentId: agentA });
      expect(listed.assigned.map((d: { id: number }) => d.id)).toEqual([g.id]);
      expect(listed.assigned[0]).toMatchObject({ sn: g.sn, agentId: agentA, projectBound: false });
      expect(listed.available.map((d: { id: number }) => d.id)).not.toContain(g.id);
      expect(listed.available.map((d: { id: number }) => d.id)).not.toContain(subDevice);
      const agents = await okCall(admin.token, endpoints.agent.pageList.path, { pageSize: 500 });
      expect(agents.list.find((c: { id: number }) => c.id === agentA)?.assignedDeviceCount).toBe(1);

      await okCall(admin.token, endpoints.agent.unassignDevices.path, { agentId: agentA, deviceIds: [g.id] });
      expect(await agentOf([g.id, subDevice])).toEqual({ [g.id]: null, [subDevice]: null });
    });

    it('6003: a gateway another agent has; nothing of the batch is assigned', async () => {
      const [g1, g2] = [gateways[1]!, gateways[2]!];
      await assign(agentA, [g1.id]);
      await refuse(
        admin.token,
        endpoints.agent.assignDevices.path,
        { agentId: agentB, deviceIds: [g1.id] },
        6003,
        g1.sn,
      );
      await refuse(
        admin.token,
        endpoints.agent.assignDevices.path,
        { agentId: agentB, deviceIds: [g2.id, g1.id] },
        6003,
        g1.sn,
      );
      expect(await agentOf([g1.id, g2.id])).toEqual({ [g1.id]: agentA, [g2.id]: null });
      // The agent that has it may assign it again.
      await assign(agentA, [g1.id]);
    });

    it('6004: a gateway bound to a project cannot get or lose its agent', async () => {
      const [free, held] = [gateways[3]!, gateways[4]!];
      await assign(agentA, [held.id]);
      await db()
        .update(device)
        .set({ projectId: 1 })
        .where(inArray(device.id, [free.id, held.id]));
      await refuse(
        admin.token,
        endpoints.agent.assignDevices.path,
        { agentId: agentA, deviceIds: [free.id] },
        6004,
        free.sn,
      );
      await refuse(
        admin.token,
        endpoints.agent.unassignDevices.path,
        { agentId: agentA, deviceIds: [held.id] },
        6004,
        held.sn,
      );
      const listed = await okCall(admin.token, endpoints.agent.devices.path, { agentId: agentA });
      expect(listed.assigned.find((d: { id: number }) => d.id === held.id)?.projectBound).toBe(true);
    });

    it('3030: an unknown device, a device behind a gateway, or a gateway not this agent’s', async () => {
      await refuse(
        admin.token,
        endpoints.agent.assignDevices.path,
        { agentId: agentA, deviceIds: [999_999] },
        3030,
      );
      await refuse(
        admin.token,
        endpoints.agent.assignDevices.path,
        { agentId: agentA, deviceIds: [subDevice] },
        3030,
      );
      const g = gateways[2]!; // unassigned
      await refuse(
        admin.token,
        endpoints.agent.unassignDevices.path,
        { agentId: agentB, deviceIds: [g.id] },
        3030,
        g.sn,
      );
      // A device outside an agent administrator's scope does not exist for it.
      const agentAdmin = await companyAdmin(agentA);
      await refuse(
        agentAdmin.token,
        endpoints.agent.assignDevices.path,
        { agentId: agentA, deviceIds: [g.id] },
        3030,
      );
    });
  });

  /* ───────────── Departments ───────────── */

  describe('departments', () => {
    let companyId: number;
    beforeAll(async () => {
      companyId = await addCompanyUnder(db(), { type: 'owner', parentId: platformId });
    });
    const save = async (body: object): Promise<number> =>
      (await okCall(admin.token, endpoints.department.save.path, { companyId, ...body })).id;
    const update = (body: { id: number; name: string; parentId?: number | null }) =>
      call(ctx.app, endpoints.department.update.path, body, { token: admin.token });

    it('creates, lists, updates and deletes', async () => {
      const top = await save({ name: unique('研发部'), sort: 2 });
      const child = await save({ name: unique('一组'), parentId: top, leader: '李四', phone: uniquePhone() });
      const list = await okCall(admin.token, endpoints.department.list.path, { companyId });
      expect(list.list.map((d: { id: number }) => d.id)).toEqual(expect.arrayContaining([top, child]));
      expect(list.list.find((d: { id: number }) => d.id === child)).toMatchObject({
        parentId: top,
        leader: '李四',
      });
      expect((await update({ id: child, name: unique('二组'), parentId: top })).code).toBe(0);
      await okCall(admin.token, endpoints.department.delete.path, { id: child });
      await okCall(admin.token, endpoints.department.delete.path, { id: top });
    });

    it('5004: a sibling already has the name, on save and update; another level may', async () => {
      const name = unique('市场部');
      const top = await save({ name });
      await refuse(admin.token, endpoints.department.save.path, { companyId, name }, 5004);
      const aName = unique('a');
      const a = await save({ name: aName, parentId: top });
      const b = await save({ name: unique('b'), parentId: top });
      await refuse(
        admin.token,
        endpoints.department.save.path,
        { companyId, name: aName, parentId: top },
        5004,
      );
      await refuse(
        admin.token,
        endpoints.department.update.path,
        { id: b, name: aName, parentId: top },
        5004,
      );
      await save({ name, parentId: a }); // the same name one level down
    });

    it('5003: a department cannot move under itself or one below it', async () => {
      const top = await save({ name: unique('t') });
      const mid = await save({ name: unique('m'), parentId: top });
      const low = await save({ name: unique('l'), parentId: mid });
      for (const parentId of [top, mid, low]) {
        await refuse(
          admin.token,
          endpoints.department.update.path,
          { id: top, name: unique('t'), parentId },
          5003,
        );
      }
      await refuse(
        admin.token,
        endpoints.department.update.path,
        { id: mid, name: unique('m'), parentId: low },
        5003,
      );
    });

    it('5001 with sub-departments, 5002 with employees', async () => {
      const top = await save({ name: unique('t') });
      const leaf = await save({ name: unique('l'), parentId: top });
      await refuse(admin.token, endpoints.department.delete.path, { id: top }, 5001);
      const staff = await addStaff(db(), { companyId });
      await db().update(employee).set({ departmentId: leaf }).where(eq(employee.id, staff.employeeId));
      await refuse(admin.token, endpoints.department.delete.path, { id: leaf }, 5002);
    });

    it('5000: a missing department, a parent of another company, or one outside the scope', async () => {
      const own = await save({ name: unique('d') });
      const otherCompany = await addCompanyUnder(db(), { type: 'owner', parentId: platformId });
      const foreign = await addDepartment(db(), { companyId: otherCompany });
      await refuse(admin.token, endpoints.department.update.path, { id: 999_999, name: 'x' }, 5000);
      await refuse(admin.token, endpoints.department.delete.path, { id: 999_999 }, 5000);
      await refuse(
        admin.token,
        endpoints.department.save.path,
        { companyId, name: unique('d'), parentId: foreign },
        5000,
      );
      await refuse(
        admin.token,
        endpoints.department.save.path,
        { companyId, name: unique('d'), parentId: 999_999 },
        5000,
      );
      await refuse(
        admin.token,
        endpoints.department.update.path,
        { id: own, name: unique('d'), parentId: foreign },
        5000,
      );

      const agentAdmin = await companyAdmin(await newCompany('agent'));
      await refuse(agentAdmin.token, endpoints.department.update.path, { id: own, name: unique('d') }, 5000);
      await refuse(agentAdmin.token, endpoints.department.delete.path, { id: own }, 5000);
      await refuse(agentAdmin.token, endpoints.department.list.path, { companyId }, 6000);
      await refuse(agentAdmin.token, endpoints.department.save.path, { companyId, name: unique('d') }, 6000);
    });
  });

  /* ───────────── Employees ───────────── */

  describe('employees', () => {
    let companyId: number;
    let companyAdminRole: number;
    let plainRole: number;
    beforeAll(async () => {
      companyId = await newCompany('owner');
      companyAdminRole = await adminRoleOf(db(), companyId);
      plainRole = await addScopedRole(db(), { companyId, dataScope: 'company', menuIds: [201] });
    });
    const saveBody = (extra: object = {}) => ({
      account: unique('emp'),
      password: digest('init-pass-1'),
      name: unique('员工'),
      companyId,
      ...extra,
    });
    const accountRow = async (userId: number) =>
      (await db().select().from(userAccount).where(eq(userAccount.id, userId)))[0]!;

    it('a new account must change its password; the employee has the roles and department given', async () => {
      const departmentId = await addDepartment(db(), { companyId });
      const body = saveBody({ roleIds: [plainRole], departmentId, phone: uniquePhone() });
      const created = await okCall(admin.token, endpoints.employee.save.path, body);
      expect(Object.keys(created)).toEqual(['id']);
      const detail = await okCall(admin.token, endpoints.employee.detail.path, { id: created.id });
      expect(detail).toMatchObject({
        account: body.account,
        companyId,
        departmentId,
        awaitingSignIn: true,
        mustChangePassword: true,
        isAdmin: false,
        roles: [{ id: plainRole }],
      });
      expect(detail).not.toHaveProperty('userId');
      const [account] = await db().select().from(userAccount).where(eq(userAccount.account, body.account));
      expect(account!.mustChangePassword).toBe(true);
      const session = await signIn(ctx.app, body.account, 'init-pass-1');
      expect(session.info.mustChangePassword).toBe(true);
      // The first session takes the membership up: no longer awaiting, still to change the password.
      expect(await okCall(admin.token, endpoints.employee.detail.path, { id: created.id })).toMatchObject({
        awaitingSignIn: false,
        mustChangePassword: true,
      });
    });

    it('an existing account the caller sees (platform: every company) is added at once and keeps its password', async () => {
      const other = await addStaff(db());
      const before = await accountRow(other.userId);
      const created = await okCall(
        admin.token,
        endpoints.employee.save.path,
        saveBody({ account: other.account, password: digest('not-used-1') }),
      );
      expect(Object.keys(created)).toEqual(['id']);
      expect(await accountRow(other.userId)).toEqual(before);
      expect(await okCall(admin.token, endpoints.employee.detail.path, { id: created.id })).toMatchObject({
        awaitingSignIn: false,
        mustChangePassword: false,
      });
      const login = await call(ctx.app, endpoints.user.login.path, loginBody(other.account, other.password));
      expect(login.code).toBe(0);
      expect(login.data.companyList.map((c: { id: number }) => c.id).sort()).toEqual(
        [other.companyId, companyId].sort(),
      );
      expect(
        (await call(ctx.app, endpoints.user.login.path, loginBody(other.account, 'not-used-1'))).code,
      ).toBe(5080);
      // 5050: the account is already an employee of this company.
      await refuse(admin.token, endpoints.employee.save.path, saveBody({ account: other.account }), 5050);
    });

    it('5051: a missing employee, or one outside the caller’s scope', async () => {
      const body = { id: 999_999 };
      await refuse(admin.token, endpoints.employee.detail.path, body, 5051);
      await refuse(admin.token, endpoints.employee.update.path, { ...body, name: 'x' }, 5051);
      await refuse(admin.token, endpoints.employee.status.path, { ...body, status: 'disabled' }, 5051);
      await refuse(admin.token, endpoints.employee.delete.path, body, 5051);
      await refuse(
        admin.token,
        endpoints.employee.resetPassword.path,
        { ...body, password: digest('x-pass-1') },
        5051,
      );
      const outsider = await addStaff(db(), { companyId });
      const agentAdmin = await companyAdmin(await newCompany('agent'));
      await refuse(agentAdmin.token, endpoints.employee.detail.path, { id: outsider.employeeId }, 5051);
      await refuse(
        agentAdmin.token,
        endpoints.employee.status.path,
        { id: outsider.employeeId, status: 'disabled' },
        5051,
      );
      await refuse(agentAdmin.token, endpoints.employee.save.path, saveBody(), 6000);
    });

    it('5053: an administrator employee cannot be deleted; 5057: nobody disables or deletes themself', async () => {
      const { id } = await okCall(admin.token, endpoints.employee.save.path, saveBody({ isAdmin: true }));
      await refuse(admin.token, endpoints.employee.delete.path, { id }, 5053);
      const self = await employeeIdOf(admin);
      await refuse(admin.token, endpoints.employee.status.path, { id: self, status: 'disabled' }, 5057);
      await refuse(admin.token, endpoints.employee.delete.path, { id: self }, 5057);
      // A plain employee can be deleted, with its account when it has no other company.
      // Signed in, it is signed out for good.
      const body = saveBody();
      const plain = await okCall(admin.token, endpoints.employee.save.path, body);
      const { userId } = await okCall(admin.token, endpoints.employee.detail.path, { id: plain.id });
      const session = await signIn(ctx.app, body.account, 'init-pass-1');
      await okCall(admin.token, endpoints.employee.delete.path, { id: plain.id });
      expect(await db().select().from(userAccount).where(eq(userAccount.id, userId))).toEqual([]);
      expect((await probe(session.token)).code).toBe(E.TOKEN_INVALID);
    });

    it('5031: a role of another company or a missing role', async () => {
      const foreignRole = await addScopedRole(db(), { companyId: platformId, dataScope: 'company' });
      await refuse(admin.token, endpoints.employee.save.path, saveBody({ roleIds: [foreignRole] }), 5031);
      await refuse(
        admin.token,
        endpoints.employee.save.path,
        saveBody({ roleIds: [plainRole, 999_999] }),
        5031,
      );
      const staff = await addStaff(db(), { companyId, roleIds: [plainRole] });
      await refuse(
        admin.token,
        endpoints.employee.update.path,
        { id: staff.employeeId, name: 'x', roleIds: [foreignRole] },
        5031,
      );
    });

    it('5034: an employee who is no administrator cannot grant an administrator role or flag', async () => {
      const manager = await grantedStaff(companyId, [120, 121, 123]);
      const token = manager.session.token;
      await refuse(token, endpoints.employee.save.path, saveBody({ roleIds: [companyAdminRole] }), 5034);
      await refuse(token, endpoints.employee.save.path, saveBody({ isAdmin: true }), 5034);
      const staff = await addStaff(db(), { companyId, roleIds: [plainRole] });
      await refuse(
        token,
        endpoints.employee.update.path,
        { id: staff.employeeId, name: 'x', roleIds: [companyAdminRole] },
        5034,
      );
      await refuse(
        token,
        endpoints.employee.update.path,
        { id: staff.employeeId, name: 'x', isAdmin: true },
        5034,
      );
      // Without the reset button's permission string the call is refused too.
      await refuse(
        token,
        endpoints.employee.resetPassword.path,
        { id: staff.employeeId, password: digest('pw-new-1') },
        5034,
      );
      // What it may do: a role no wider than itself (menus it holds, the same data scope).
      const narrow = await addScopedRole(db(), { companyId, dataScope: 'company', menuIds: [120] });
      await okCall(token, endpoints.employee.save.path, saveBody({ roleIds: [narrow] }));
    });

    it('5034: an employee who is no administrator cannot disable or reset the password of someone wider', async () => {
      const manager = await grantedStaff(companyId, [120, 123, 124]);
      const token = manager.session.token;
      const companyAdmin = await addStaff(db(), { companyId, roleIds: [companyAdminRole] });
      const wider = await addStaff(db(), { companyId, roleIds: [plainRole] });
      for (const target of [companyAdmin, wider]) {
        await refuse(
          token,
          endpoints.employee.resetPassword.path,
          { id: target.employeeId, password: digest('taken-1') },
          5034,
        );
        await refuse(
          token,
          endpoints.employee.status.path,
          { id: target.employeeId, status: 'disabled' },
          5034,
        );
      }
      const narrowRole = await addScopedRole(db(), { companyId, dataScope: 'company', menuIds: [120] });
      const narrow = await addStaff(db(), { companyId, roleIds: [narrowRole] });
      await okCall(token, endpoints.employee.resetPassword.path, {
        id: narrow.employeeId,
        password: digest('fresh-1'),
      });
      await okCall(token, endpoints.employee.status.path, { id: narrow.employeeId, status: 'disabled' });
    });

    it('5034: an employee who is no administrator cannot hand out a role with rights it does not hold', async () => {
      const manager = await grantedStaff(companyId, [120, 121]);
      const wider = await addScopedRole(db(), {
        companyId,
        dataScope: 'all',
        menuIds: [120, 121, 122, 123, 124, 130, 131],
      });
      const token = manager.session.token;
      await refuse(
        token,
        endpoints.employee.update.path,
        { id: manager.employeeId, name: 'x', roleIds: [manager.roleId, wider] },
        5034,
      );
      await refuse(token, endpoints.employee.save.path, saveBody({ roleIds: [wider] }), 5034);
    });

    it('5034: an employee who is no administrator cannot take an administrator role away', async () => {
      const manager = await grantedStaff(companyId, [120, 121]);
      const boss = await addStaff(db(), { companyId, roleIds: [companyAdminRole] });
      await refuse(
        manager.session.token,
        endpoints.employee.update.path,
        { id: boss.employeeId, name: 'x', roleIds: [] },
        5034,
      );
    });

    it('disabling ends the employee’s sessions at once (50012); a disabled employee cannot sign in (5052)', async () => {
      const staff = await addStaff(db(), { companyId, roleIds: [plainRole] });
      const session = await signIn(ctx.app, staff.account, staff.password);
      await okCall(admin.token, endpoints.employee.status.path, { id: staff.employeeId, status: 'disabled' });
      expectRefusal(await probe(session.token), E.SESSION_REVOKED, 'zh');
      await refuse(undefined, endpoints.user.login.path, loginBody(staff.account, staff.password), 5052);
      await okCall(admin.token, endpoints.employee.status.path, { id: staff.employeeId, status: 'enabled' });
      await signIn(ctx.app, staff.account, staff.password);
    });

    it('resetPassword forces a change at next sign-in and ends the account’s sessions', async () => {
      const staff = await addStaff(db(), { companyId, roleIds: [plainRole] });
      const session = await signIn(ctx.app, staff.account, staff.password);
      expect(session.info.mustChangePassword).toBe(false);
      await okCall(admin.token, endpoints.employee.resetPassword.path, {
        id: staff.employeeId,
        password: digest('reset-pw-1'),
      });
      expect((await probe(session.token)).code).toBe(E.SESSION_REVOKED);
      expect((await accountRow(staff.userId)).mustChangePassword).toBe(true);
      expect(
        (await call(ctx.app, endpoints.user.login.path, loginBody(staff.account, staff.password))).code,
      ).toBe(5080);
      const again = await signIn(ctx.app, staff.account, 'reset-pw-1');
      expect(again.info.mustChangePassword).toBe(true);
      expect(
        (await okCall(admin.token, endpoints.employee.detail.path, { id: staff.employeeId }))
          .mustChangePassword,
      ).toBe(true);
    });

    it('resetPassword 5034 when the account also belongs to a company outside the caller’s scope', async () => {
      const agent = await newCompany('agent');
      const agentAdmin = await companyAdmin(agent);
      const outside = await newCompany('owner');
      const shared = await addStaff(db(), { companyId: agent });
      await addEmployee(db(), { companyId: outside, userId: shared.userId });
      const body = { id: shared.employeeId, password: digest('reset-pw-2') };
      await refuse(agentAdmin.token, endpoints.employee.resetPassword.path, body, 5034);
      // An account only in its tree may be reset; the platform sees both companies.
      const own = await addStaff(db(), { companyId: agent });
      await okCall(agentAdmin.token, endpoints.employee.resetPassword.path, {
        id: own.employeeId,
        password: digest('pw-3x'),
      });
      await okCall(admin.token, endpoints.employee.resetPassword.path, body);
    });
  });

  /* ───────────── Roles ───────────── */

  describe('roles', () => {
    let companyId: number;
    beforeAll(async () => {
      companyId = await newCompany('owner');
    });
    const roleBody = (extra: object = {}) => {
      const code = unique('r').replace(/[^A-Za-z0-9_-]/g, '');
      return { companyId, name: `角色${code}`, code, ...extra };
    };
    const grantsOf = async (roleId: number) =>
      (await db().select({ id: roleMenu.menuId }).from(roleMenu).where(eq(roleMenu.roleId, roleId)))
        .map((r) => r.id)
        .sort((a, b) => a - b);

    it('saves with rights and data scope; copy keeps menuIds, data scope and remark', async () => {
      const created = await okCall(
        admin.token,
        endpoints.role.save.path,
        roleBody({ dataScope: 'department', menuIds: [201, 110, 111], remark: '值班' }),
      );
      expect(created).toMatchObject({ version: 1, dataScope: 'department', menuIds: [110, 111, 201] });
      const copyBody = roleBody();
      const copy = await okCall(admin.token, endpoints.role.copy.path, {
        id: created.id,
        name: copyBody.name,
        code: copyBody.code,
      });
      expect(copy.id).not.toBe(created.id);
      expect(copy).toMatchObject({
        companyId,
        name: copyBody.name,
        code: copyBody.code,
        dataScope: 'department',
        remark: '值班',
        menuIds: [110, 111, 201],
        version: 1,
      });
      expect(await grantsOf(copy.id)).toEqual([110, 111, 201]);
    });

    it('5036: a name or code the company already has, on save, update and copy', async () => {
      const first = roleBody();
      const a = await okCall(admin.token, endpoints.role.save.path, first);
      const b = await okCall(admin.token, endpoints.role.save.path, roleBody());
      await refuse(admin.token, endpoints.role.save.path, { ...roleBody(), name: first.name }, 5036);
      await refuse(admin.token, endpoints.role.save.path, { ...roleBody(), code: first.code }, 5036);
      await refuse(
        admin.token,
        endpoints.role.update.path,
        { id: b.id, version: b.version, name: first.name, code: b.code },
        5036,
      );
      await refuse(
        admin.token,
        endpoints.role.copy.path,
        { id: b.id, name: unique('n'), code: first.code },
        5036,
      );
      // Another company may use them.
      const other = await newCompany('owner');
      await okCall(admin.token, endpoints.role.save.path, { ...first, companyId: other });
      expect(a.companyId).toBe(companyId);
    });

    it('5037: a menu that does not exist, or one the company may not hold', async () => {
      await refuse(admin.token, endpoints.role.save.path, roleBody({ menuIds: [110, 999_999] }), 5037);
      await refuse(admin.token, endpoints.role.save.path, roleBody({ menuIds: [101] }), 5037); // platform-only
      const r = await okCall(admin.token, endpoints.role.save.path, roleBody({ menuIds: [110] }));
      await refuse(
        admin.token,
        endpoints.role.update.path,
        { id: r.id, version: 1, name: r.name, code: r.code, menuIds: [999_999] },
        5037,
      );
    });

    it('5031: a missing role, or one outside the caller’s scope', async () => {
      await refuse(admin.token, endpoints.role.detail.path, { id: 999_999 }, 5031);
      await refuse(
        admin.token,
        endpoints.role.update.path,
        { id: 999_999, version: 1, name: 'x', code: 'xx' },
        5031,
      );
      await refuse(admin.token, endpoints.role.delete.path, { id: 999_999 }, 5031);
      await refuse(admin.token, endpoints.role.copy.path, { id: 999_999, name: 'x', code: 'xx' }, 5031);
      const r = await okCall(admin.token, endpoints.role.save.path, roleBody());
      const agentAdmin = await companyAdmin(await newCompany('agent'));
      await refuse(agentAdmin.token, endpoints.role.detail.path, { id: r.id }, 5031);
      await refuse(agentAdmin.token, endpoints.role.delete.path, { id: r.id }, 5031);
      await refuse(agentAdmin.token, endpoints.role.save.path, roleBody(), 6000);
    });

    it('5032: a role held by an employee cannot be deleted; 5033: nor an administrator role', async () => {
      const r = await okCall(admin.token, endpoints.role.save.path, roleBody());
      await addStaff(db(), { companyId, roleIds: [r.id] });
      await refuse(admin.token, endpoints.role.delete.path, { id: r.id }, 5032);
      const adminRole = await okCall(admin.token, endpoints.role.detail.path, {
        id: await adminRoleOf(db(), companyId),
      });
      await refuse(admin.token, endpoints.role.delete.path, { id: adminRole.id }, 5033);
      const same = {
        id: adminRole.id,
        version: adminRole.version,
        name: adminRole.name,
        code: adminRole.code,
      };
      await refuse(
        admin.token,
        endpoints.role.update.path,
        { ...same, status: 'disabled', dataScope: adminRole.dataScope },
        5033,
      );
      await refuse(admin.token, endpoints.role.update.path, { ...same, dataScope: 'self' }, 5033);
      // An unheld plain role can be deleted, its grants with it.
      const free = await okCall(admin.token, endpoints.role.save.path, roleBody({ menuIds: [110] }));
      await okCall(admin.token, endpoints.role.delete.path, { id: free.id });
      expect(await grantsOf(free.id)).toEqual([]);
    });

    it('5034: an employee who is no administrator cannot grant a menu it does not hold', async () => {
      const manager = await grantedStaff(companyId, [130, 131, 133, 110]);
      const token = manager.session.token;
      await refuse(token, endpoints.role.save.path, roleBody({ menuIds: [110, 140] }), 5034);
      const wide = await okCall(admin.token, endpoints.role.save.path, roleBody({ menuIds: [140] }));
      await refuse(
        token,
        endpoints.role.copy.path,
        { id: wide.id, name: unique('n'), code: roleBody().code },
        5034,
      );
      const mine = await okCall(token, endpoints.role.save.path, roleBody({ menuIds: [110] }));
      await refuse(
        token,
        endpoints.role.update.path,
        { id: mine.id, version: mine.version, name: mine.name, code: mine.code, menuIds: [110, 120] },
        5034,
      );
    });

    it('5035: of two administrators who read version 1, the second to save is refused and the first’s rights stay', async () => {
      const other = await companyAdmin(platformId);
      expect(other.info.isAdmin).toBe(true);
      const created = await okCall(admin.token, endpoints.role.save.path, roleBody({ menuIds: [201] }));
      const readA = await okCall(admin.token, endpoints.role.detail.path, { id: created.id });
      const readB = await okCall(other.token, endpoints.role.detail.path, { id: created.id });
      expect([readA.version, readB.version]).toEqual([1, 1]);
      const edit = (read: typeof readA, menuIds: number[]) => ({
        id: read.id,
        version: read.version,
        name: read.name,
        code: read.code,
        dataScope: read.dataScope,
        menuIds,
      });
      const first = await okCall(admin.token, endpoints.role.update.path, edit(readA, [201, 110, 111]));
      expect(first).toMatchObject({ version: 2, menuIds: [110, 111, 201] });
      await refuse(other.token, endpoints.role.update.path, edit(readB, [120]), 5035);
      expect(await grantsOf(created.id)).toEqual([110, 111, 201]);
      expect(await okCall(other.token, endpoints.role.detail.path, { id: created.id })).toMatchObject({
        version: 2,
        menuIds: [110, 111, 201],
      });
      // Reading again gives the new version, and the second save then works.
      await okCall(other.token, endpoints.role.update.path, { ...edit(readB, [120]), version: 2 });
      expect(await grantsOf(created.id)).toEqual([120]);
    });

    it('5035: two saves at the same time with one version: exactly one wins, its rights complete', async () => {
      const other = await companyAdmin(platformId);
      const created = await okCall(admin.token, endpoints.role.save.path, roleBody({ menuIds: [201] }));
      const body = (menuIds: number[]) => ({
        id: created.id,
        version: 1,
        name: created.name,
        code: created.code,
        menuIds,
      });
      const [a, b] = await Promise.all([
        call(ctx.app, endpoints.role.update.path, body([110, 111]), { token: admin.token }),
        call(ctx.app, endpoints.role.update.path, body([120, 121]), { token: other.token }),
      ]);
      expect([a.code, b.code].sort()).toEqual([0, 5035]);
      const winner = a.code === 0 ? [110, 111] : [120, 121];
      expect(await grantsOf(created.id)).toEqual(winner);
      const [row] = await db().select().from(role).where(eq(role.id, created.id));
      expect(row?.version).toBe(2);
    });
  });

  /* ───────────── Menus ───────────── */

  describe('menus', () => {
    const dirBody = (extra: object = {}) => ({
      type: 'directory',
      path: `/${unique('d')}`,
      name: unique('D'),
      component: 'Layout',
      titleZh: '测试目录',
      titleEn: 'Test directory',
      sort: 70,
      ...extra,
    });
    const pageBody = (parentId: number, extra: object = {}) => ({
      type: 'page',
      parentId,
      path: unique('p'),
      name: unique('P'),
      component: 'test/page/index',
      titleZh: '测试页面',
      titleEn: 'Test page',
      perms: 'test:page:list',
      ...extra,
    });
    const buttonBody = (parentId: number) => ({
      type: 'button',
      parentId,
      titleZh: '测试按钮',
      titleEn: 'Test button',
      perms: 'test:page:add',
    });
    const rowOf = async (id: number) => (await db().select().from(menu).where(eq(menu.id, id)))[0];

    it('saves, updates and deletes custom entries (ids from 10000)', async () => {
      const dir = (await okCall(admin.token, endpoints.menu.save.path, dirBody())).id;
      const page = (await okCall(admin.token, endpoints.menu.save.path, pageBody(dir))).id;
      const button = (await okCall(admin.token, endpoints.menu.save.path, buttonBody(page))).id;
      expect(Math.min(dir, page, button)).toBeGreaterThanOrEqual(10_000);
      expect(await rowOf(button)).toMatchObject({
        parentId: page,
        type: 'button',
        path: '',
        perms: 'test:page:add',
      });
      await okCall(admin.token, endpoints.menu.update.path, {
        id: page,
        ...pageBody(dir, { titleEn: 'Renamed', hidden: true }),
      });
      expect(await rowOf(page)).toMatchObject({ titleEn: 'Renamed', hidden: true });
      const list = await okCall(admin.token, endpoints.menu.list.path, {});
      expect(list.list.find((m: { id: number }) => m.id === page)?.titleEn).toBe('Renamed');
      for (const id of [button, page, dir]) await okCall(admin.token, endpoints.menu.delete.path, { id });
      expect(await rowOf(dir)).toBeUndefined();
    });

    it('5037 missing, 5038 with children, 5039 built-in', async () => {
      await refuse(admin.token, endpoints.menu.delete.path, { id: 999_999 }, 5037);
      await refuse(admin.token, endpoints.menu.update.path, { id: 999_999, ...dirBody() }, 5037);
      const dir = (await okCall(admin.token, endpoints.menu.save.path, dirBody())).id;
      await okCall(admin.token, endpoints.menu.save.path, pageBody(dir));
      await refuse(admin.token, endpoints.menu.delete.path, { id: dir }, 5038);
      await refuse(admin.token, endpoints.menu.delete.path, { id: 140 }, 5039); // no children
      await refuse(admin.token, endpoints.menu.delete.path, { id: 101 }, 5039); // with children
    });

    it('5040: the parent is missing, a button, the entry itself or one below it', async () => {
      const dir = (await okCall(admin.token, endpoints.menu.save.path, dirBody())).id;
      const page = (await okCall(admin.token, endpoints.menu.save.path, pageBody(dir))).id;
      const button = (await okCall(admin.token, endpoints.menu.save.path, buttonBody(page))).id;
      await refuse(admin.token, endpoints.menu.save.path, pageBody(button), 5040);
      await refuse(admin.token, endpoints.menu.save.path, pageBody(999_999), 5040);
      await refuse(admin.token, endpoints.menu.update.path, { id: dir, ...dirBody({ parentId: dir }) }, 5040);
      await refuse(
        admin.token,
        endpoints.menu.update.path,
        { id: dir, ...dirBody({ parentId: page }) },
        5040,
      );
      await refuse(admin.token, endpoints.menu.update.path, { id: page, ...pageBody(button) }, 5040);
    });

    it('5040: an entry with children cannot become a button (its children would hang under one)', async () => {
      const dir = (await okCall(admin.token, endpoints.menu.save.path, dirBody())).id;
      const page = pageBody(dir);
      const pageId = (await okCall(admin.token, endpoints.menu.save.path, page)).id;
      await okCall(admin.token, endpoints.menu.save.path, buttonBody(pageId));
      await refuse(
        admin.token,
        endpoints.menu.update.path,
        { id: pageId, ...page, type: 'button', perms: 'test:page:edit' },
        5040,
      );
    });

    it('-100 naming `component` for a page without one', async () => {
      const before = await snapshot(db());
      for (const lang of ['zh', 'en'] as const) {
        const answer = await call(ctx.app, endpoints.menu.save.path, pageBody(100, { component: null }), {
          token: admin.token,
          lang,
        });
        expect(answer.code).toBe(-100);
        expect(answer.msg.startsWith(catalogueMsg(-100, lang))).toBe(true);
        expect(answer.msg).toContain('component');
        expect(answer.data).toBeNull();
      }
      expect(await snapshot(db())).toEqual(before);
    });

    it('5034: menu writes are the platform’s; another company’s administrator is refused', async () => {
      const agentAdmin = await companyAdmin(await newCompany('agent'));
      await refuse(agentAdmin.token, endpoints.menu.save.path, dirBody(), 5034);
      await refuse(agentAdmin.token, endpoints.menu.delete.path, { id: 140 }, 5034);
    });
  });
});
