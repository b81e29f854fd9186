/**
 * Data scope of roles (tenancy/company-scope.ts):
 * `widestScope` on its own, then `dataScopeOf`, `employeeInScope` and `departmentInScope`
 * against a database for each kind, and the same limits seen through `employee/pageList` and
 * `department/departmentList`.
 *
 * The tree used: platform > agent A > owner O > owner O2, and platform > owner X. Departments
 * of A: D1 > D2 > D3, and D4; X has DX. Callers sit in A (in D2 unless said otherwise).
 */
import type { DataScopeKind } from '@ess/contract';
import { endpoints } from '@ess/contract';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DataScope,
  dataScopeOf,
  departmentInScope,
  employeeInScope,
  widestScope,
} from '../src/access/company-scope';
import { department, employee } from '../src/core/db/schema';
import { call, signIn } from './support/client';
import { addStaff } from './support/fixtures';
import { addCompanyUnder, addDepartment, addScopedRole } from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';

const role = (dataScope: string, isAdmin = false) => ({ isAdmin, dataScope });

describe('widestScope', () => {
  it('is self without roles', () => {
    expect(widestScope([])).toBe('self');
  });

  it.each(['all', 'company', 'department_and_below', 'department', 'self'] as const)(
    'one %s role gives %s',
    (kind) => {
      expect(widestScope([role(kind)])).toBe(kind);
    },
  );

  it('the widest of several roles wins, whatever their order', () => {
    expect(widestScope([role('self'), role('department'), role('department_and_below')])).toBe(
      'department_and_below',
    );
    expect(widestScope([role('company'), role('self')])).toBe('company');
    expect(widestScope([role('department'), role('all'), role('company')])).toBe('all');
  });

  it('an administrator role counts as all, whatever its stored scope', () => {
    expect(widestScope([role('self', true)])).toBe('all');
    expect(widestScope([role('department'), role('company', true)])).toBe('all');
  });

  it('an unknown stored scope counts for nothing', () => {
    expect(widestScope([role('everything')])).toBe('self');
    expect(widestScope([role('everything'), role('department')])).toBe('department');
  });
});

describe.each(engines)('data scope on %s', (engine) => {
  let ctx: TestContext;
  let platform: number;
  let A: number;
  let O: number;
  let O2: number;
  let X: number;
  let D1: number;
  let D2: number;
  let D3: number;
  let D4: number;
  let DX: number;
  /** Every employee this test made, with its company and department. */
  const members: { id: number; companyId: number; departmentId: number | null }[] = [];

  const db = () => ctx.database.db;

  /** An employee of `companyId` in `departmentId` holding `roleIds`. */
  const member = async (companyId: number, departmentId: number | null, roleIds: number[] = []) => {
    const staff = await addStaff(db(), { companyId, roleIds });
    if (departmentId !== null) {
      await db().update(employee).set({ departmentId }).where(eq(employee.id, staff.employeeId));
    }
    members.push({ id: staff.employeeId, companyId, departmentId });
    return staff;
  };

  /** The scope of a new employee of A in `departmentId` with roles of the given kinds. */
  const scopeWith = async (
    roles: { dataScope: DataScopeKind; isAdmin?: boolean; status?: 'enabled' | 'disabled' }[],
    departmentId: number | null = D2,
    companyId = A,
  ) => {
    const roleIds = [];
    for (const r of roles) roleIds.push(await addScopedRole(db(), { companyId, ...r }));
    const staff = await member(companyId, departmentId, roleIds);
    return { staff, scope: await dataScopeOf(db(), { companyId, employeeId: staff.employeeId }) };
  };

  const testCompanies = () => [A, O, O2, X];
  /** Ids of this test's employees the scope lets through, sorted. */
  const visibleEmployees = async (scope: DataScope) =>
    (
      await db()
        .select({ id: employee.id })
        .from(employee)
        .where(and(employeeInScope(scope), inArray(employee.companyId, testCompanies())))
    )
      .map((r) => r.id)
      .sort((a, b) => a - b);
  const visibleDepartments = async (scope: DataScope) =>
    (
      await db()
        .select({ id: department.id })
        .from(department)
        .where(and(departmentInScope(scope, department), inArray(department.companyId, testCompanies())))
    )
      .map((r) => r.id)
      .sort((a, b) => a - b);
  const employeesWhere = (keep: (m: (typeof members)[number]) => boolean) =>
    members
      .filter(keep)
      .map((m) => m.id)
      .sort((a, b) => a - b);
  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    platform = (await signIn(ctx.app)).companyId;
    A = await addCompanyUnder(db(), { type: 'agent', parentId: platform });
    O = await addCompanyUnder(db(), { type: 'owner', parentId: A });
    O2 = await addCompanyUnder(db(), { type: 'owner', parentId: O });
    X = await addCompanyUnder(db(), { type: 'owner', parentId: platform });
    D1 = await addDepartment(db(), { companyId: A });
    D2 = await addDepartment(db(), { companyId: A, parentId: D1 });
    D3 = await addDepartment(db(), { companyId: A, parentId: D2 });
    D4 = await addDepartment(db(), { companyId: A });
    DX = await addDepartment(db(), { companyId: X });
    for (const d of [D1, D2, D3, D4, null]) await member(A, d);
    await member(O, null);
    await member(O2, null);
    await member(X, DX);
  });
  afterAll(async () => ctx?.close());

  it('all, on the platform: every company', async () => {
    const { scope } = await scopeWith([{ dataScope: 'all' }], null, platform);
    expect(scope).toMatchObject({ kind: 'all', companies: { all: true }, departmentIds: null });
    expect(await visibleEmployees(scope)).toEqual(
      employeesWhere((m) => testCompanies().includes(m.companyId)),
    );
    expect(await visibleDepartments(scope)).toEqual(sorted([D1, D2, D3, D4, DX]));
    // Including companies outside any tree and the seeded administrator.
    expect(employeeInScope(scope)).toBeUndefined();
  });

  it('all, elsewhere: the own company and its sub-companies, at any depth', async () => {
    const { scope } = await scopeWith([{ dataScope: 'all' }]);
    expect(scope.kind).toBe('all');
    expect(scope.departmentIds).toBeNull();
    expect(scope.companies.all).toBe(false);
    expect(sorted(scope.companies.all ? [] : scope.companies.companyIds)).toEqual(sorted([A, O, O2]));
    expect(await visibleEmployees(scope)).toEqual(employeesWhere((m) => [A, O, O2].includes(m.companyId)));
    expect(await visibleDepartments(scope)).toEqual(sorted([D1, D2, D3, D4]));
  });

  it('an administrator role counts as all (its stored scope notwithstanding)', async () => {
    const { scope } = await scopeWith([{ dataScope: 'self', isAdmin: true }]);
    expect(scope.kind).toBe('all');
    expect(await visibleEmployees(scope)).toEqual(employeesWhere((m) => [A, O, O2].includes(m.companyId)));
  });

  it('company: the own company and its sub-companies', async () => {
    const { scope } = await scopeWith([{ dataScope: 'company' }]);
    expect(scope.kind).toBe('company');
    expect(sorted(scope.companies.all ? [] : scope.companies.companyIds)).toEqual(sorted([A, O, O2]));
    expect(await visibleEmployees(scope)).toEqual(employeesWhere((m) => [A, O, O2].includes(m.companyId)));
    expect(await visibleDepartments(scope)).toEqual(sorted([D1, D2, D3, D4]));
    // On the platform, `company` is its tree, not every company.
    const onPlatform = await scopeWith([{ dataScope: 'company' }], null, platform);
    expect(onPlatform.scope.companies).toMatchObject({ all: false });
    expect(onPlatform.scope.companies.all ? [] : onPlatform.scope.companies.companyIds).toEqual(
      expect.arrayContaining([platform, A, O, O2, X]),
    );
  });

  it('department_and_below: the own company, own department and the ones below it', async () => {
    const { staff, scope } = await scopeWith([{ dataScope: 'department_and_below' }]);
    expect(scope).toMatchObject({
      kind: 'department_and_below',
      companies: { all: false, companyIds: [A] },
      ownDepartmentId: D2,
      employeeId: staff.employeeId,
    });
    expect(sorted(scope.departmentIds ?? [])).toEqual(sorted([D2, D3]));
    expect(await visibleEmployees(scope)).toEqual(
      employeesWhere((m) => m.companyId === A && (m.departmentId === D2 || m.departmentId === D3)),
    );
    expect(await visibleDepartments(scope)).toEqual(sorted([D2, D3]));
  });

  it('department: the own department only', async () => {
    const { scope } = await scopeWith([{ dataScope: 'department' }]);
    expect(scope).toMatchObject({ kind: 'department', companies: { all: false, companyIds: [A] } });
    expect(scope.departmentIds).toEqual([D2]);
    expect(await visibleEmployees(scope)).toEqual(employeesWhere((m) => m.departmentId === D2));
    expect(await visibleDepartments(scope)).toEqual([D2]);
  });

  it('self: oneself, and one’s own department', async () => {
    const { staff, scope } = await scopeWith([{ dataScope: 'self' }]);
    expect(scope).toMatchObject({
      kind: 'self',
      companies: { all: false, companyIds: [A] },
      departmentIds: [],
    });
    expect(await visibleEmployees(scope)).toEqual([staff.employeeId]);
    expect(await visibleDepartments(scope)).toEqual([D2]);
  });

  it.each(['department_and_below', 'department', 'self'] as const)(
    '%s without a department: only oneself, no department',
    async (dataScope) => {
      const { staff, scope } = await scopeWith([{ dataScope }], null);
      expect(scope).toMatchObject({ kind: dataScope, ownDepartmentId: null, departmentIds: [] });
      expect(await visibleEmployees(scope)).toEqual([staff.employeeId]);
      expect(await visibleDepartments(scope)).toEqual([]);
    },
  );

  it('the widest of several roles wins', async () => {
    const { scope } = await scopeWith([
      { dataScope: 'self' },
      { dataScope: 'company' },
      { dataScope: 'department' },
    ]);
    expect(scope.kind).toBe('company');
    expect(scope.departmentIds).toBeNull();
    const narrower = await scopeWith([{ dataScope: 'self' }, { dataScope: 'department_and_below' }]);
    expect(narrower.scope.kind).toBe('department_and_below');
  });

  it('a disabled role does not count', async () => {
    const { staff, scope } = await scopeWith([
      { dataScope: 'self' },
      { dataScope: 'all', status: 'disabled' },
      { dataScope: 'self', isAdmin: true, status: 'disabled' },
    ]);
    expect(scope.kind).toBe('self');
    expect(await visibleEmployees(scope)).toEqual([staff.employeeId]);
    // No enabled role at all: self.
    const none = await scopeWith([{ dataScope: 'company', status: 'disabled' }]);
    expect(none.scope.kind).toBe('self');
  });

  describe('through the API', () => {
    /** Employee list (120) and department list (110) with the given data scope, in D2. */
    const signInWith = async (dataScope: DataScopeKind, departmentId: number | null = D2) => {
      const roleId = await addScopedRole(db(), { companyId: A, dataScope, menuIds: [110, 120] });
      const staff = await member(A, departmentId, [roleId]);
      const session = await signIn(ctx.app, staff.account, staff.password);
      return { staff, token: session.token };
    };
    const api = (token: string, path: string, body: object) => call(ctx.app, path, body, { token });

    it('self: employee/pageList answers only oneself, department/departmentList only one’s department', async () => {
      const { staff, token } = await signInWith('self');
      const employees = await api(token, endpoints.employee.pageList.path, { pageSize: 500 });
      expect(employees.code).toBe(0);
      expect(employees.data.total).toBe(1);
      expect(employees.data.list.map((e: { id: number }) => e.id)).toEqual([staff.employeeId]);
      const underD1 = await api(token, endpoints.employee.pageList.path, { departmentId: D1 });
      expect(underD1.data.list.map((e: { id: number }) => e.id)).toEqual([staff.employeeId]);
      const departments = await api(token, endpoints.department.list.path, {});
      expect(departments.code).toBe(0);
      expect(departments.data.list.map((d: { id: number }) => d.id)).toEqual([D2]);
      // A colleague of the same department does not exist for it.
      const colleague = members.find((m) => m.departmentId === D2 && m.id !== staff.employeeId)!;
      expect((await api(token, endpoints.employee.detail.path, { id: colleague.id })).code).toBe(5051);
    });

    it('department: employee/pageList answers the own department’s employees', async () => {
      const { token } = await signInWith('department');
      const employees = await api(token, endpoints.employee.pageList.path, { pageSize: 500 });
      expect(sorted(employees.data.list.map((e: { id: number }) => e.id))).toEqual(
        employeesWhere((m) => m.departmentId === D2),
      );
      const departments = await api(token, endpoints.department.list.path, {});
      expect(departments.data.list.map((d: { id: number }) => d.id)).toEqual([D2]);
    });

    it('company: employee/pageList answers the company tree, not a company beside it', async () => {
      const { token } = await signInWith('company');
      const employees = await api(token, endpoints.employee.pageList.path, { pageSize: 500 });
      expect(sorted(employees.data.list.map((e: { id: number }) => e.id))).toEqual(
        employeesWhere((m) => [A, O, O2].includes(m.companyId)),
      );
      expect((await api(token, endpoints.department.list.path, { companyId: X })).code).toBe(6000);
    });
  });
});
