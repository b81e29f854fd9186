/**
 * ToU schemes through the API: create, list, read, update over the version read
 * (3093 stale), names unique per company (3091), delete refused while sites run the scheme
 * (3092), assignment of exactly the listed sites (moved from other schemes), and tenancy: another
 * company's schemes and sites answer 3090 / 3036 as if they did not exist, a site outside the
 * scheme's company tree is refused even for the platform; a user who sees only their own company
 * sees (and unassigns) only its sites of a scheme that also runs sites of companies below it. A
 * deletion racing an assignment answers 3092. An ordinary company's administrator holds the ToU
 * menus and permissions.
 */
import {
  ErrorCode,
  endpoints,
  errorMessage,
  touPushStatusResponse,
  touSchemeDetailSchema,
  touSchemeListResponse,
} from '@ess/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMenus, holdableMenus } from '../src/access/menu-access';
import type { Db } from '../src/core/db/database';
import { company, operationLog, site } from '../src/core/db/schema';
import { call, signIn } from './support/client';
import { addRole, addStaff, conforms, unique } from './support/fixtures';
import { addCompanyUnder, addScopedRole } from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';

describe.each(engines)('ToU schemes on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let platform: string;
  let ownerA: string;
  let ownerB: string;
  let A: number;
  let B: number;
  let siteA: number;
  let siteA2: number;
  let siteB: number;

  /** A company below the platform with an administrator employee; answers its id and token. */
  async function companyWithAdmin(): Promise<{ id: number; token: string }> {
    const [platformRow] = await db
      .select({ id: company.id })
      .from(company)
      .where(eq(company.type, 'platform'));
    const [row] = await db
      .insert(company)
      .values({ type: 'owner', name: unique('公司'), parentId: platformRow!.id })
      .returning({ id: company.id });
    const staff = await addStaff(db, {
      companyId: row!.id,
      roleIds: [await addRole(db, { companyId: row!.id, isAdmin: true })],
    });
    return { id: row!.id, token: (await signIn(ctx.app, staff.account, staff.password)).token };
  }
  const api = (token: string) => (path: string, body: object, lang?: 'zh' | 'en') =>
    call(ctx.app, path, body, { token, ...(lang ? { lang } : {}) });
  const code = (n: number) => ({ code: n, msg: errorMessage(n, 'zh'), data: null });

  async function addSite(
    token: string,
    capacity?: { capacityKwh: number; ratedPowerKw: number },
    companyId?: number,
  ) {
    const as = api(token);
    const tag = unique('s')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(-20);
    const site = await as(endpoints.site.save.path, { code: tag, name: `Site ${tag}`, companyId });
    expect(site.code).toBe(0);
    if (capacity) {
      const ems = await as(endpoints.device.save.path, {
        siteId: site.data.id,
        sn: `EMS-${tag}`,
        type: 'ems',
      });
      const gatewayId = ems.data.id;
      await as(endpoints.device.save.path, {
        siteId: site.data.id,
        gatewayId,
        sn: `BMS-${tag}`,
        type: 'bms',
        capacityKwh: capacity.capacityKwh,
      });
      await as(endpoints.device.save.path, {
        siteId: site.data.id,
        gatewayId,
        sn: `PCS-${tag}`,
        type: 'pcs',
        ratedPowerKw: capacity.ratedPowerKw,
      });
    }
    return site.data.id as number;
  }
  async function addScheme(token: string, name = unique('tariff')) {
    const saved = await api(token)(endpoints.tou.save.path, { name, document: validScheme() });
    expect(saved.code, saved.msg).toBe(0);
    return saved.data.id as number;
  }

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    platform = (await signIn(ctx.app)).token;
    ({ id: A, token: ownerA } = await companyWithAdmin());
    ({ id: B, token: ownerB } = await companyWithAdmin());
    siteA = await addSite(ownerA, { capacityKwh: 215, ratedPowerKw: 100 });
    siteA2 = await addSite(ownerA);
    siteB = await addSite(ownerB);
  });
  afterAll(async () => ctx?.close());

  it("an ordinary company's administrator holds the ToU menus and every ToU permission", async () => {
    const perms = await api(ownerA)(endpoints.user.getPermission.path, {});
    expect(perms.data.permissions).toEqual(
      expect.arrayContaining(['tou:scheme:list', 'tou:scheme:save', 'tou:scheme:delete', 'tou:scheme:push']),
    );
    const menu = await api(ownerA)(endpoints.user.getLanguageMenu.path, { language: 'en' });
    const strategy = menu.data.menuList.find((m: { id: number }) => m.id === 400);
    expect(strategy).toMatchObject({ path: '/strategy', meta: { title: 'Operation strategy' } });
    expect(
      strategy.children.map((c: { path: string; meta: { title: string } }) => [c.path, c.meta.title]),
    ).toEqual([
      ['/timetariff', 'Time tariffs'],
      ['/chargestrategy', 'Charge strategy'],
    ]);
    const zh = await api(ownerA)(endpoints.user.getLanguageMenu.path, { language: 'cn' });
    const zhStrategy = zh.data.menuList.find((m: { id: number }) => m.id === 400);
    expect(zhStrategy.meta.title).toBe('运行策略');
    expect(zhStrategy.children.map((c: { meta: { title: string } }) => c.meta.title)).toEqual([
      '分时电价',
      '充放电策略',
    ]);
  });

  it('creates, lists and reads a scheme; names are unique per company', async () => {
    const as = api(ownerA);
    const name = unique('上海一般工商业');
    const id = await addScheme(ownerA, name);
    const list = conforms(
      touSchemeListResponse,
      (await as(endpoints.tou.pageList.path, { keyword: name })).data,
    );
    expect(list.total).toBe(1);
    expect(list.list[0]).toMatchObject({
      id,
      companyId: A,
      name,
      version: 1,
      dailyPlanCount: 2,
      weeklyPlanCount: 1,
      yearlyPlanCount: 1,
      exceptionPlanCount: 1,
      siteCount: 0,
    });
    const detail = conforms(touSchemeDetailSchema, (await as(endpoints.tou.detail.path, { id })).data);
    expect(detail).toMatchObject({ id, companyId: A, name, version: 1, sites: [] });
    expect(detail.document).toEqual(validScheme());

    expect(await as(endpoints.tou.save.path, { name, document: validScheme() })).toEqual(
      code(ErrorCode.TOU_SCHEME_NAME_EXISTS),
    );
    // Another company may use the same name.
    expect((await api(ownerB)(endpoints.tou.save.path, { name, document: validScheme() })).code).toBe(0);
  });

  it('updates over the version read: 3093 for a stale version, 3091 for a name taken', async () => {
    const as = api(ownerA);
    const id = await addScheme(ownerA);
    const otherName = unique('other');
    await addScheme(ownerA, otherName);
    const doc = validScheme();
    doc.dailyPlans[0]!.periods[1]!.priceCnyPerKwh = 1.2;
    const first = await as(endpoints.tou.update.path, { id, version: 1, name: 'Renamed', document: doc });
    expect(first).toMatchObject({ code: 0, data: { version: 2 } });
    const stale = await as(
      endpoints.tou.update.path,
      { id, version: 1, name: 'Renamed', document: validScheme() },
      'en',
    );
    expect(stale).toEqual({ code: 3093, msg: errorMessage(3093, 'en'), data: null });
    expect(await as(endpoints.tou.update.path, { id, version: 2, name: otherName, document: doc })).toEqual(
      code(ErrorCode.TOU_SCHEME_NAME_EXISTS),
    );
    const detail = await as(endpoints.tou.detail.path, { id });
    expect(detail.data).toMatchObject({ name: 'Renamed', version: 2 });
    expect(detail.data.document.dailyPlans[0].periods[1].priceCnyPerKwh).toBe(1.2);
    const [logged] = await db
      .select()
      .from(operationLog)
      .where(
        and(
          eq(operationLog.action, 'tou.update'),
          eq(operationLog.targetId, String(id)),
          eq(operationLog.code, 0),
        ),
      );
    expect(logged).toMatchObject({ targetType: 'tou_scheme', companyId: A });
    expect(logged!.before).toMatchObject({ version: 1 });
    expect(logged!.after).toMatchObject({ name: 'Renamed', version: 2 });
  });

  it('assigns exactly the listed sites, moving them from other schemes; a scheme in use cannot be deleted', async () => {
    const as = api(ownerA);
    const first = await addScheme(ownerA);
    const second = await addScheme(ownerA);
    const assigned = await as(endpoints.tou.assign.path, { id: first, siteIds: [siteA, siteA2] });
    expect(assigned.code).toBe(0);
    const rows = conforms(touPushStatusResponse, assigned.data).list;
    expect(rows.map((r) => [r.siteId, r.state, r.schemeVersion, r.pushedVersion])).toEqual([
      [siteA, 'pending', 1, null],
      [siteA2, 'pending', 1, null],
    ]);
    // siteA has an EMS that never connected; siteA2 has no gateway at all.
    expect(rows[0]).toMatchObject({ gatewaySn: expect.stringMatching(/^EMS-/), gatewayOnline: false });
    expect(rows[1]).toMatchObject({ gatewaySn: null, gatewayOnline: false });

    const detail = conforms(touSchemeDetailSchema, (await as(endpoints.tou.detail.path, { id: first })).data);
    expect(detail.sites.map((s) => [s.siteId, s.capacityKwh, s.ratedPowerKw])).toEqual([
      [siteA, 215, 100],
      [siteA2, 0, 0],
    ]);
    expect(await as(endpoints.tou.delete.path, { id: first })).toEqual(code(ErrorCode.TOU_SCHEME_IN_USE));

    // Moving siteA2 to the second scheme takes it off the first.
    expect((await as(endpoints.tou.assign.path, { id: second, siteIds: [siteA2] })).code).toBe(0);
    const status = await as(endpoints.tou.pushStatus.path, { id: first });
    expect(status.data.list.map((r: { siteId: number }) => r.siteId)).toEqual([siteA]);
    expect(
      (await as(endpoints.tou.pushStatus.path, { id: second })).data.list.map(
        (r: { siteId: number }) => r.siteId,
      ),
    ).toEqual([siteA2]);
    // Assigning the same list again keeps the rows as they are.
    expect((await as(endpoints.tou.assign.path, { id: second, siteIds: [siteA2] })).data.list[0].state).toBe(
      'pending',
    );

    // An empty list frees every site; then the scheme can go.
    expect((await as(endpoints.tou.assign.path, { id: first, siteIds: [] })).data).toEqual({ list: [] });
    expect((await as(endpoints.tou.delete.path, { id: first })).code).toBe(0);
    expect(await as(endpoints.tou.detail.path, { id: first })).toEqual(code(ErrorCode.TOU_SCHEME_NOT_FOUND));
    const list = await as(endpoints.tou.pageList.path, { pageSize: 500 });
    expect(list.data.list.some((r: { id: number }) => r.id === first)).toBe(false);
    expect(list.data.list.find((r: { id: number }) => r.id === second).siteCount).toBe(1);
  });

  it("another company's schemes and sites answer as if they did not exist", async () => {
    const schemeA = await addScheme(ownerA);
    const schemeB = await addScheme(ownerB);
    const asB = api(ownerB);
    const doc = validScheme();
    const list = await asB(endpoints.tou.pageList.path, { pageSize: 500 });
    expect(list.code).toBe(0);
    expect(list.data.list.map((r: { companyId: number }) => r.companyId)).toEqual(
      list.data.list.map(() => B),
    );
    expect(list.data.list.some((r: { id: number }) => r.id === schemeB)).toBe(true);
    for (const [path, body] of [
      [endpoints.tou.detail.path, { id: schemeA }],
      [endpoints.tou.update.path, { id: schemeA, version: 1, name: 'x', document: doc }],
      [endpoints.tou.delete.path, { id: schemeA }],
      [endpoints.tou.assign.path, { id: schemeA, siteIds: [] }],
      [endpoints.tou.pushStatus.path, { id: schemeA }],
    ] as const) {
      expect(await asB(path, body), path).toEqual(code(ErrorCode.TOU_SCHEME_NOT_FOUND));
    }
    // B's own scheme with A's site: the site does not exist for B.
    const foreign = await asB(endpoints.tou.assign.path, { id: schemeB, siteIds: [siteB, siteA] });
    expect(foreign).toMatchObject({ code: ErrorCode.SITE_NOT_FOUND, data: null });
    expect(await asB(endpoints.tou.push.path, { siteId: siteA })).toEqual(code(ErrorCode.SITE_NOT_FOUND));
    expect(await asB(endpoints.tou.save.path, { companyId: A, name: unique('t'), document: doc })).toEqual(
      code(ErrorCode.COMPANY_NOT_FOUND),
    );
    // The platform sees both, but a site runs only a scheme of its own company tree.
    expect((await api(platform)(endpoints.tou.assign.path, { id: schemeA, siteIds: [siteB] })).code).toBe(
      ErrorCode.SITE_NOT_FOUND,
    );
    expect((await api(platform)(endpoints.tou.detail.path, { id: schemeA })).code).toBe(0);
    // Nothing moved.
    expect((await asB(endpoints.tou.pushStatus.path, { id: schemeB })).data.list).toEqual([]);
  });

  it("a site moved to a company outside its scheme's company tree stops running the scheme", async () => {
    const scheme = await addScheme(ownerA);
    const moving = await addSite(ownerA);
    expect((await api(ownerA)(endpoints.tou.assign.path, { id: scheme, siteIds: [moving] })).code).toBe(0);
    const moved = await api(platform)(endpoints.site.moveCompany.path, { id: moving, companyId: B });
    expect(moved.code).toBe(0);
    expect(moved.data.touScheme).toEqual({ id: scheme, name: expect.any(String), kept: false });
    expect((await api(ownerA)(endpoints.tou.pushStatus.path, { id: scheme })).data.list).toEqual([]);
    expect((await api(ownerA)(endpoints.tou.detail.path, { id: scheme })).data.sites).toEqual([]);
    expect(await api(ownerB)(endpoints.tou.push.path, { siteId: moving })).toEqual(
      code(ErrorCode.NO_EMS_TIME_PERIOD_CONFIG),
    );
  });

  it("a user who sees only their own company: a scheme's sites of companies below stay hidden and assigned", async () => {
    const child = await addCompanyUnder(db, { type: 'owner', parentId: A });
    const own = await addSite(ownerA);
    const below = await addSite(ownerA, undefined, child);
    const scheme = await addScheme(ownerA);
    expect((await api(ownerA)(endpoints.tou.assign.path, { id: scheme, siteIds: [own, below] })).code).toBe(
      0,
    );
    const everyMenu = holdableMenus(await allMenus(db), false).map((m) => m.id);
    const staff = await addStaff(db, {
      companyId: A,
      roleIds: [await addScopedRole(db, { companyId: A, dataScope: 'department', menuIds: everyMenu })],
    });
    const narrow = api((await signIn(ctx.app, staff.account, staff.password)).token);
    const siteIdsOf = (list: Array<{ siteId: number }>) => list.map((r) => r.siteId);

    expect(siteIdsOf((await narrow(endpoints.tou.detail.path, { id: scheme })).data.sites)).toEqual([own]);
    expect(siteIdsOf((await narrow(endpoints.tou.pushStatus.path, { id: scheme })).data.list)).toEqual([own]);
    expect(siteIdsOf((await api(ownerA)(endpoints.tou.detail.path, { id: scheme })).data.sites)).toEqual([
      own,
      below,
    ]);
    // The narrow user cannot assign the hidden site, and unassigning everything it sees leaves it.
    expect((await narrow(endpoints.tou.assign.path, { id: scheme, siteIds: [below] })).code).toBe(
      ErrorCode.SITE_NOT_FOUND,
    );
    expect((await narrow(endpoints.tou.assign.path, { id: scheme, siteIds: [] })).data).toEqual({ list: [] });
    expect(siteIdsOf((await api(ownerA)(endpoints.tou.pushStatus.path, { id: scheme })).data.list)).toEqual([
      below,
    ]);
    // The operation log says what the caller changed: its own site only.
    const logs = await db
      .select()
      .from(operationLog)
      .where(
        and(
          eq(operationLog.employeeId, staff.employeeId),
          eq(operationLog.action, 'tou.assign'),
          eq(operationLog.code, 0),
        ),
      );
    expect(logs.map((l) => [l.before, l.after])).toEqual([[{ siteIds: [own] }, { siteIds: [] }]]);
    expect(await narrow(endpoints.tou.delete.path, { id: scheme })).toEqual(
      code(ErrorCode.TOU_SCHEME_IN_USE),
    );
  });

  it.runIf(engine === 'postgres')(
    'deleting a scheme while an assignment to it is being stored answers 3092 (not a server error)',
    async () => {
      const scheme = await addScheme(ownerA);
      const target = await addSite(ownerA);
      let stored!: () => void;
      let release!: () => void;
      const isStored = new Promise<void>((resolve) => {
        stored = resolve;
      });
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      // Another request's assignment: written, not yet committed.
      const assignment = db.transaction(async (tx) => {
        await tx.update(site).set({ touSchemeId: scheme }).where(eq(site.id, target));
        stored();
        await held;
      });
      await isStored;
      const removal = api(ownerA)(endpoints.tou.delete.path, { id: scheme });
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      await assignment;
      expect(await removal).toEqual(code(ErrorCode.TOU_SCHEME_IN_USE));
      expect(
        (await api(ownerA)(endpoints.tou.detail.path, { id: scheme })).data.sites.map(
          (s: { siteId: number }) => s.siteId,
        ),
      ).toEqual([target]);
    },
  );

  it('push: 3060 when the site runs no scheme, 3033 when its EMS never connected or it has none', async () => {
    const as = api(ownerA);
    const bare = await addSite(ownerA, { capacityKwh: 100, ratedPowerKw: 50 });
    expect(await as(endpoints.tou.push.path, { siteId: bare })).toEqual(
      code(ErrorCode.NO_EMS_TIME_PERIOD_CONFIG),
    );
    const scheme = await addScheme(ownerA);
    const noGateway = await addSite(ownerA);
    expect((await as(endpoints.tou.assign.path, { id: scheme, siteIds: [bare, noGateway] })).code).toBe(0);
    expect(await as(endpoints.tou.push.path, { siteId: bare }, 'en')).toEqual({
      code: 3033,
      msg: 'Device not connected',
      data: null,
    });
    expect(await as(endpoints.tou.push.path, { siteId: noGateway })).toEqual(
      code(ErrorCode.DEVICE_NOT_CONNECTED),
    );
    const status = await as(endpoints.tou.pushStatus.path, { id: scheme });
    expect(status.data.list.map((r: { state: string }) => r.state)).toEqual(['pending', 'pending']);
  });
});
