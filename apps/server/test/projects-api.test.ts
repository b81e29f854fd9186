/**
 * The project calls (modules/project, contract api/project.ts; issue 17 item 1) on both engines:
 * create with investors, meters and sites; edit; delete (refused while sites are bound, 7002);
 * 7000 name clash per company (the same name in another company allowed); 7001 missing or out of
 * scope; 6004 a site bound elsewhere or a device carrying another project; ratios that do not add
 * up to 100 %, CT/PT of 0, a cycle outside 1–30 years, negative costs: -100 with the field and a
 * zh/en reason, nothing written; status transitions allowed and refused (7003 naming the allowed
 * ones); bind/unbind by local date with device.project_id following; the history rows. The clock
 * of the service is the wall clock, but no assertion depends on the time of day: dates are given
 * or read back from the answer.
 */
import {
  ErrorCode,
  endpoints,
  type ProjectSaveRequest,
  projectContractEnd,
  projectContractProblem,
  projectDetailSchema,
} from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { device, project, projectChange, projectMeter, projectSite, site } from '../src/core/db/schema';
import { registerDemoFleet } from '../src/demo/demo-fleet';
import { call, signIn } from './support/client';
import { addRole, addStaff, conforms, unique } from './support/fixtures';
import { addCompanyUnder, catalogueMsg } from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';

const calls = endpoints.project;

describe.each(engines)('project calls on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  /** Company A's administrator and company B's. */
  let tokenA: string;
  let tokenB: string;
  let companyA: number;
  let companyB: number;
  let investor1: number;
  let investor2: number;
  let owner: number;
  let construction: number;
  let siteA1: { id: number; meterId: number };
  let siteA2: { id: number; meterId: number };
  let siteA3: { id: number; meterId: number };

  async function addSite(companyId: number) {
    const [s] = await db
      .insert(site)
      .values({ companyId, code: unique('P').slice(0, 30), name: unique('站点'), timezone: 'Asia/Shanghai' })
      .returning({ id: site.id });
    const [ems] = await db
      .insert(device)
      .values({ companyId, siteId: s!.id, sn: unique('EMS'), type: 'ems' })
      .returning({ id: device.id });
    const [meter] = await db
      .insert(device)
      .values({ companyId, siteId: s!.id, gatewayId: ems!.id, sn: unique('MTR'), type: 'meter' })
      .returning({ id: device.id });
    return { id: s!.id, meterId: meter!.id };
  }

  async function companyAdmin(companyId: number) {
    const staff = await addStaff(db, {
      companyId,
      roleIds: [await addRole(db, { companyId, isAdmin: true })],
    });
    return (await signIn(ctx.app, staff.account, staff.password)).token;
  }

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    companyA = await addCompanyUnder(db, { type: 'agent', parentId: null });
    companyB = await addCompanyUnder(db, { type: 'agent', parentId: null });
    investor1 = await addCompanyUnder(db, { type: 'investor', parentId: companyA });
    investor2 = await addCompanyUnder(db, { type: 'investor', parentId: companyA });
    owner = await addCompanyUnder(db, { type: 'owner', parentId: companyA });
    construction = await addCompanyUnder(db, { type: 'construction', parentId: companyA });
    siteA1 = await addSite(companyA);
    siteA2 = await addSite(companyA);
    siteA3 = await addSite(companyA);
    tokenA = await companyAdmin(companyA);
    tokenB = await companyAdmin(companyB);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const api = (path: string, body: object, lang: 'zh' | 'en' = 'zh', token = tokenA) =>
    call(ctx.app, path, body, { token, lang });

  const selfInvestment = (over: Partial<ProjectSaveRequest> = {}): ProjectSaveRequest => ({
    name: unique('项目'),
    address: '湖北省武汉市东西湖区',
    longitude: 114.14,
    latitude: 30.62,
    constructionCompanyId: construction,
    ownerCompanyId: owner,
    contractStart: '2026-01-01',
    contractYears: 10,
    incomeMode: 'self_investment',
    ownerSharePct: 20,
    investors: [
      { companyId: investor1, ratioPct: 50.5 },
      { companyId: investor2, ratioPct: 29.5 },
    ],
    maintenanceCnyPerMonth: 1200,
    insuranceCnyPerMonth: 300.5,
    costBearer: 'shared',
    ...over,
  });

  const projectRows = async (name: string) => db.select().from(project).where(eq(project.name, name));

  it('creates a self-investment project with sites and meters; detail, list and history show it', async () => {
    const body = selfInvestment({
      siteIds: [siteA1.id],
      boundFrom: '2026-01-01',
      meters: [{ deviceId: siteA1.meterId, ctRatio: 40, ptRatio: 1, readsSecondary: true }],
    });
    const saved = await api(calls.save.path, body);
    expect(saved.code).toBe(0);
    const id = saved.data.id as number;

    const detail = conforms(projectDetailSchema, (await api(calls.detail.path, { id })).data);
    expect(detail).toMatchObject({
      name: body.name,
      status: 'to_be_started',
      incomeMode: 'self_investment',
      ownerSharePct: 20,
      contractEnd: '2035-12-31',
      maintenanceCnyPerMonth: 1200,
      insuranceCnyPerMonth: 300.5,
      owner: { id: owner },
      construction: { id: construction },
      siteCount: 1,
      nextStatuses: ['under_construction', 'ended'],
    });
    expect(detail.investors.map((i) => [i.companyId, i.ratioPct])).toEqual([
      [investor1, 50.5],
      [investor2, 29.5],
    ]);
    expect(detail.meters).toEqual([
      expect.objectContaining({ deviceId: siteA1.meterId, ctRatio: 40, ptRatio: 1, readsSecondary: true }),
    ]);
    expect(detail.sites).toEqual([
      expect.objectContaining({ siteId: siteA1.id, boundFrom: '2026-01-01', boundTo: null }),
    ]);
    // Live figures come from the fleet rule: the site has reported nothing, so no power, 0 kWh.
    expect(detail.sites[0]!.live).toMatchObject({ siteId: siteA1.id, online: false, todayChargeKwh: 0 });

    // The site's devices carry the project while bound.
    const devs = await db.select().from(device).where(eq(device.siteId, siteA1.id));
    expect(devs.every((d) => d.projectId === id)).toBe(true);

    const list = await api(calls.pageList.path, { pageNum: 1, pageSize: 50, name: body.name });
    expect(list.data.total).toBe(1);
    expect(list.data.list[0]).toMatchObject({ id, siteCount: 1, investorCount: 2, status: 'to_be_started' });
    const filtered = await api(calls.pageList.path, {
      pageNum: 1,
      pageSize: 50,
      name: body.name,
      incomeMode: 'leasing',
    });
    expect(filtered.data.total).toBe(0);

    const history = await api(calls.history.path, { id, pageNum: 1, pageSize: 20 });
    expect(history.data.list.map((h: { action: string }) => h.action).sort()).toEqual(['bind', 'create']);
    const created = history.data.list.find((h: { action: string }) => h.action === 'create');
    expect(created.userName).toBeTruthy();
    expect(created.changes).toEqual(
      expect.arrayContaining([{ field: 'name', before: null, after: body.name }]),
    );
  });

  it('creates a leasing project (rent per kWh of capacity) and edits it: history holds before/after', async () => {
    const body = selfInvestment({
      incomeMode: 'leasing',
      ownerSharePct: null,
      rentBasis: 'per_kwh_capacity',
      rentCny: 8.5,
      capacityKwh: 215,
      investors: [{ companyId: investor1, ratioPct: 100 }],
      costBearer: 'investors',
    });
    const id = (await api(calls.save.path, body)).data.id as number;
    const edited = await api(calls.update.path, {
      ...body,
      id,
      rentCny: 9,
      investors: [
        { companyId: investor1, ratioPct: 60 },
        { companyId: investor2, ratioPct: 40 },
      ],
    });
    expect(edited.code).toBe(0);
    expect(edited.data.rentCny).toBe(9);
    expect(edited.data.investors).toHaveLength(2);
    const changes = await db.select().from(projectChange).where(eq(projectChange.projectId, id));
    const update = changes.find((c) => c.action === 'update')!;
    expect(update.changes).toEqual(
      expect.arrayContaining([
        { field: 'rentCny', before: 8.5, after: 9 },
        expect.objectContaining({ field: 'investors' }),
      ]),
    );
    expect(update.changes.map((c) => c.field)).not.toContain('name');
  });

  it('7000: the name is taken in the company; the same name in another company is allowed', async () => {
    const body = selfInvestment();
    expect((await api(calls.save.path, body)).code).toBe(0);
    const again = await api(calls.save.path, selfInvestment({ name: body.name }), 'en');
    expect(again).toEqual({ code: 7000, msg: catalogueMsg(7000, 'en'), data: null });
    expect(await projectRows(body.name)).toHaveLength(1);
    // Company B has its own namespace (its investors: its own sub-companies).
    const investorB = await addCompanyUnder(db, { type: 'investor', parentId: companyB });
    const inB = await api(
      calls.save.path,
      {
        name: body.name,
        contractStart: '2026-03-01',
        contractYears: 5,
        incomeMode: 'leasing',
        rentBasis: 'monthly',
        rentCny: 20000,
        investors: [{ companyId: investorB, ratioPct: 100 }],
      },
      'zh',
      tokenB,
    );
    expect(inB.code).toBe(0);
    expect(await projectRows(body.name)).toHaveLength(2);
    // Renaming onto a taken name is refused too.
    const other = selfInvestment();
    const otherId = (await api(calls.save.path, other)).data.id;
    const rename = await api(calls.update.path, { ...other, id: otherId, name: body.name });
    expect(rename.code).toBe(7000);
  });

  it('-100: ratios not adding up to 100 %, CT/PT 0, cycle out of range, negative cost — nothing written', async () => {
    const before = (await db.select().from(project)).length;
    const cases: [Partial<ProjectSaveRequest>, string, string][] = [
      [
        {
          ownerSharePct: 20,
          investors: [
            { companyId: investor1, ratioPct: 50 },
            { companyId: investor2, ratioPct: 29.99 },
          ],
        },
        'investors: 业主与投资方比例之和须为 100%，当前为 99.99%',
        'investors: Owner and investor ratios must add up to 100 %; they add up to 99.99 %',
      ],
      [
        {
          incomeMode: 'leasing',
          ownerSharePct: null,
          rentBasis: 'monthly',
          rentCny: 30000,
          investors: [
            { companyId: investor1, ratioPct: 60 },
            { companyId: investor2, ratioPct: 41 },
          ],
        },
        'investors: 投资方租金分配比例之和须为 100%，当前为 101.00%',
        'investors: The investors’ ratios of the rent must add up to 100 %; they add up to 101.00 %',
      ],
      [
        { siteIds: [siteA3.id], meters: [{ deviceId: siteA3.meterId, ctRatio: 0, ptRatio: 1 }] },
        'meters[0].ctRatio: CT 变比须大于 0',
        'meters[0].ctRatio: The CT ratio must be greater than 0',
      ],
      [
        { siteIds: [siteA3.id], meters: [{ deviceId: siteA3.meterId, ctRatio: 40, ptRatio: 0 }] },
        'meters[0].ptRatio: PT 变比须大于 0',
        'meters[0].ptRatio: The PT ratio must be greater than 0',
      ],
      [
        { contractYears: 0 },
        'contractYears: 合同年限须为 1–30 的整数年',
        'contractYears: The contract cycle must be 1–30 whole years',
      ],
      [
        { maintenanceCnyPerMonth: -1 },
        'maintenanceCnyPerMonth: 费用不能为负数',
        'maintenanceCnyPerMonth: A cost cannot be negative',
      ],
      [
        { meters: [{ deviceId: siteA3.meterId, ctRatio: 40, ptRatio: 1 }] },
        'meters[0].deviceId: 须为项目所绑定站点的电表设备',
        'meters[0].deviceId: must be a meter device of a site bound to the project',
      ],
      [
        { ownerCompanyId: investor1 },
        'ownerCompanyId: 须为可见的业主（用户公司）',
        'ownerCompanyId: must be an owner company you can see',
      ],
    ];
    for (const [over, zh, en] of cases) {
      const body = selfInvestment(over);
      expect(await api(calls.save.path, body, 'zh')).toEqual({
        code: -100,
        msg: catalogueMsg(-100, 'zh', zh),
        data: null,
      });
      expect(await api(calls.save.path, body, 'en')).toEqual({
        code: -100,
        msg: catalogueMsg(-100, 'en', en),
        data: null,
      });
    }
    expect(await db.select().from(project)).toHaveLength(before);
    // The site of the refused meter cases stayed free.
    expect(await db.select().from(projectSite).where(eq(projectSite.siteId, siteA3.id))).toEqual([]);
    const free = await db.select().from(device).where(eq(device.siteId, siteA3.id));
    expect(free.every((d) => d.projectId === null)).toBe(true);
  });

  it('the contract rule is one pure function: the cycle cannot end before it starts', () => {
    expect(projectContractEnd('2026-01-01', 1)).toBe('2026-12-31');
    expect(projectContractEnd('2028-02-29', 1)).toBe('2029-02-27');
    const base = {
      contractStart: '2026-01-01',
      contractYears: 1,
      incomeMode: 'self_investment' as const,
      ownerSharePct: 33.33,
      rentBasis: null,
      rentCny: null,
      capacityKwh: null,
      maintenanceCnyPerMonth: 0,
      insuranceCnyPerMonth: 0,
      costBearer: 'investors' as const,
      investors: [
        { companyId: 1, ratioPct: 33.33 },
        { companyId: 2, ratioPct: 33.34 },
      ],
      meters: [],
    };
    // 33.33 + 33.33 + 33.34 = 100.00 exactly in hundredths, though not in binary floating point.
    expect(projectContractProblem(base, 'en')).toBeNull();
    expect(projectContractProblem({ ...base, contractYears: 31 }, 'en')?.field).toBe('contractYears');
    expect(projectContractProblem({ ...base, contractStart: '2026-02-30' }, 'en')?.field).toBe(
      'contractStart',
    );
  });

  it('status transitions: allowed ones move, refused ones answer 7003 naming the allowed ones', async () => {
    const id = (await api(calls.save.path, selfInvestment())).data.id as number;
    const refused = await api(calls.changeStatus.path, { id, status: 'in_operation' }, 'en');
    expect(refused).toEqual({
      code: 7003,
      msg: catalogueMsg(
        7003,
        'en',
        '“To be started” cannot change to “In operation” (allowed: Under construction, Ended)',
      ),
      data: null,
    });
    const refusedZh = await api(calls.changeStatus.path, { id, status: 'in_operation' }, 'zh');
    expect(refusedZh.msg).toBe(
      catalogueMsg(7003, 'zh', '“待启动”不能变为“运行中”（可变为：建设中、已结束）'),
    );
    for (const status of [
      'under_construction',
      'in_operation',
      'suspended',
      'in_operation',
      'ended',
    ] as const) {
      const moved = await api(calls.changeStatus.path, { id, status });
      expect(moved.code).toBe(0);
      expect(moved.data.status).toBe(status);
    }
    const final = await api(calls.changeStatus.path, { id, status: 'in_operation' }, 'en');
    expect(final.code).toBe(7003);
    expect(final.msg).toContain('allowed: none');
    const [row] = await db.select().from(project).where(eq(project.id, id));
    expect(row!.status).toBe('ended');
    const statusRows = await db.select().from(projectChange).where(eq(projectChange.projectId, id));
    expect(statusRows.filter((r) => r.action === 'status')).toHaveLength(5);
  });

  it('6004: a site bound to another project, or a device carrying another project; bind/unbind by date', async () => {
    const p1 = (
      await api(
        calls.save.path,
        selfInvestment({
          siteIds: [siteA2.id],
          boundFrom: '2026-01-01',
          meters: [{ deviceId: siteA2.meterId, ctRatio: 40, ptRatio: 1 }],
        }),
      )
    ).data.id;
    const p2 = (await api(calls.save.path, selfInvestment())).data.id;
    const clash = await api(calls.bindSites.path, { id: p2, siteIds: [siteA2.id] });
    expect(clash.code).toBe(ErrorCode.DEVICE_BOUND_TO_PROJECT);
    expect(clash.msg).toContain('设备已绑定项目');
    expect(await db.select().from(projectSite).where(eq(projectSite.projectId, p2))).toEqual([]);

    // Unbind from p1 on 2026-02-15 (exclusive), then bind to p2 from that date: the month splits.
    const unbound = await api(calls.unbindSite.path, { id: p1, siteId: siteA2.id, boundTo: '2026-02-15' });
    expect(unbound.code).toBe(0);
    expect(unbound.data.sites[0]).toMatchObject({
      siteId: siteA2.id,
      boundFrom: '2026-01-01',
      boundTo: '2026-02-15',
      live: null,
    });
    const released = await db.select().from(device).where(eq(device.siteId, siteA2.id));
    expect(released.every((d) => d.projectId === null)).toBe(true);
    // Starting before the earlier binding ended is refused.
    const overlap = await api(
      calls.bindSites.path,
      { id: p2, siteIds: [siteA2.id], boundFrom: '2026-02-14' },
      'en',
    );
    expect(overlap.code).toBe(-100);
    expect(overlap.msg).toContain('boundFrom');
    const bound = await api(calls.bindSites.path, { id: p2, siteIds: [siteA2.id], boundFrom: '2026-02-15' });
    expect(bound.code).toBe(0);
    // Binding declares no storage meter (the site's meter is usually its grid connection meter).
    expect(bound.data.meters).toEqual([]);
    expect(await db.select().from(projectMeter).where(eq(projectMeter.projectId, p2))).toEqual([]);
    const held = await db.select().from(device).where(eq(device.siteId, siteA2.id));
    expect(held.every((d) => d.projectId === p2)).toBe(true);
    const bindings = await db.select().from(projectSite).where(eq(projectSite.siteId, siteA2.id));
    expect(bindings.map((b) => [b.projectId, b.boundFrom, b.boundTo]).sort()).toEqual(
      [
        [p1, '2026-01-01', '2026-02-15'],
        [p2, '2026-02-15', null],
      ].sort(),
    );
    // p1 keeps the meter's CT/PT row for its bound days.
    expect(
      (await db.select().from(projectMeter).where(eq(projectMeter.projectId, p1))).map((m) => m.ctRatio),
    ).toEqual([40]);

    // A device of a free site that still carries another project (e.g. set by another path): 6004 naming it.
    const s = await addSite(companyA);
    await db.update(device).set({ projectId: p1 }).where(eq(device.id, s.meterId));
    const sn = (await db.select().from(device).where(eq(device.id, s.meterId)))[0]!.sn;
    const heldElsewhere = await api(calls.bindSites.path, { id: p2, siteIds: [s.id] }, 'en');
    expect(heldElsewhere).toEqual({ code: 6004, msg: catalogueMsg(6004, 'en', sn), data: null });
  });

  it('storage meters are an explicit choice: bind declares none, update declares and removes them', async () => {
    const s = await addSite(companyA);
    const other = await addSite(companyA);
    const body = selfInvestment({ siteIds: [s.id], boundFrom: '2026-01-01' });
    const id = (await api(calls.save.path, body)).data.id as number;
    const rows = () => db.select().from(projectMeter).where(eq(projectMeter.projectId, id));
    expect((await api(calls.detail.path, { id })).data.meters).toEqual([]);
    expect(await rows()).toEqual([]);

    // Update with the meter: declared with its CT/PT, the history names it.
    const { siteIds: _s, boundFrom: _b, ...fields } = body;
    const declared = await api(calls.update.path, {
      ...fields,
      id,
      meters: [{ deviceId: s.meterId, ctRatio: 40, ptRatio: 2, readsSecondary: true }],
    });
    expect(declared.code).toBe(0);
    expect(declared.data.meters).toEqual([
      expect.objectContaining({ deviceId: s.meterId, ctRatio: 40, ptRatio: 2, readsSecondary: true }),
    ]);
    expect((await rows()).map((m) => [m.deviceId, m.ctRatio, m.ptRatio, m.readsSecondary])).toEqual([
      [s.meterId, 40, 2, true],
    ]);

    // A meter of a site not bound to the project: refused as before, nothing changed.
    const refused = await api(
      calls.update.path,
      { ...fields, id, meters: [{ deviceId: other.meterId, ctRatio: 1, ptRatio: 1 }] },
      'en',
    );
    expect(refused).toEqual({
      code: -100,
      msg: catalogueMsg(
        -100,
        'en',
        'meters[0].deviceId: must be a meter device of a site bound to the project',
      ),
      data: null,
    });
    expect((await rows()).map((m) => m.ctRatio)).toEqual([40]);

    // Update without it: no longer a storage meter of the project.
    const removed = await api(calls.update.path, { ...fields, id, meters: [] });
    expect(removed.code).toBe(0);
    expect(removed.data.meters).toEqual([]);
    expect(await rows()).toEqual([]);
    const history = await api(calls.history.path, { id, pageNum: 1, pageSize: 20 });
    const meterChanges = history.data.list
      .filter((h: { action: string }) => h.action === 'update')
      .flatMap((h: { changes: { field: string }[] }) => h.changes.filter((c) => c.field === 'meters'));
    expect(meterChanges).toHaveLength(2);

    // Declared again, then the site unbound: an update no longer touches the ended site's row.
    await api(calls.update.path, {
      ...fields,
      id,
      meters: [{ deviceId: s.meterId, ctRatio: 40, ptRatio: 1 }],
    });
    const [b] = await db.select().from(projectSite).where(eq(projectSite.projectId, id));
    expect((await api(calls.unbindSite.path, { id, siteId: s.id, boundTo: '2026-02-01' })).code).toBe(0);
    expect(b!.boundFrom).toBe('2026-01-01');
    expect((await api(calls.update.path, { ...fields, id, meters: [] })).code).toBe(0);
    expect((await rows()).map((m) => m.ctRatio)).toEqual([40]);
  });

  it('delete: refused while sites are bound (7002), then allowed; the site is free again', async () => {
    const s = await addSite(companyA);
    const id = (await api(calls.save.path, selfInvestment({ siteIds: [s.id] }))).data.id as number;
    expect(await api(calls.delete.path, { id }, 'en')).toEqual({
      code: 7002,
      msg: catalogueMsg(7002, 'en'),
      data: null,
    });
    expect(
      await projectRows((await db.select().from(project).where(eq(project.id, id)))[0]!.name),
    ).toHaveLength(1);
    // Unbinding on the day it was bound leaves a binding that covered no day: it is removed.
    const [b] = await db.select().from(projectSite).where(eq(projectSite.projectId, id));
    expect((await api(calls.unbindSite.path, { id, siteId: s.id, boundTo: b!.boundFrom })).code).toBe(0);
    expect((await api(calls.delete.path, { id })).code).toBe(0);
    expect(await db.select().from(project).where(eq(project.id, id))).toEqual([]);
    expect(await db.select().from(projectChange).where(eq(projectChange.projectId, id))).toEqual([]);
    expect(
      (await db.select().from(device).where(eq(device.siteId, s.id))).every((d) => d.projectId === null),
    ).toBe(true);
  });

  it('7001: a missing project, or another company’s; 3036 another company’s site', async () => {
    const id = (await api(calls.save.path, selfInvestment())).data.id as number;
    for (const [path, body] of [
      [calls.detail.path, { id }],
      [calls.history.path, { id, pageNum: 1, pageSize: 10 }],
      [calls.changeStatus.path, { id, status: 'under_construction' }],
      [calls.delete.path, { id }],
      [calls.bindSites.path, { id, siteIds: [siteA3.id] }],
    ] as const) {
      expect(await api(path, body, 'en', tokenB)).toEqual({
        code: 7001,
        msg: catalogueMsg(7001, 'en'),
        data: null,
      });
    }
    expect((await api(calls.detail.path, { id: 2_000_000_000 })).code).toBe(7001);
    const list = await api(calls.pageList.path, { pageNum: 1, pageSize: 500 }, 'zh', tokenB);
    expect(list.data.list.some((p: { id: number }) => p.id === id)).toBe(false);
    // A site of company B cannot be bound to A's project.
    const siteB = await addSite(companyB);
    expect((await api(calls.bindSites.path, { id, siteIds: [siteB.id] })).code).toBe(
      ErrorCode.SITE_NOT_FOUND,
    );
    const [row] = await db.select().from(project).where(eq(project.id, id));
    expect(row!.status).toBe('to_be_started');
  });

  it('the demo fleet gets a self-investment and a leasing project at its first registration, once', async () => {
    const now = new Date('2026-03-10T04:00:00Z');
    await registerDemoFleet(db, { sites: 5, seed: 1, now, historyDays: 40 });
    const demo = await db.select().from(project).where(sql`${project.name} LIKE '%（演示）'`);
    expect(demo.map((p) => [p.incomeMode, p.status]).sort()).toEqual([
      ['leasing', 'in_operation'],
      ['self_investment', 'in_operation'],
    ]);
    const platform = (await signIn(ctx.app)).token;
    for (const p of demo) {
      const detail = conforms(
        projectDetailSchema,
        (await api(calls.detail.path, { id: p.id }, 'zh', platform)).data,
      );
      // Bound from the first day of the written past (40 days before 2026-03-10, Shanghai time).
      expect(detail.sites).toEqual([expect.objectContaining({ boundFrom: '2026-01-29', boundTo: null })]);
      // No storage meter: the site's meter is its grid meter (bills read the PCS; demo-bills.test.ts).
      expect(detail.meters).toEqual([]);
      expect(detail.investors).toHaveLength(2);
      expect(projectContractProblem({ ...detail, investors: detail.investors }, 'en')).toBeNull();
      if (p.incomeMode === 'leasing') expect(detail.capacityKwh).toBeGreaterThan(0);
      const devs = await db.select().from(device).where(eq(device.siteId, detail.sites[0]!.siteId));
      expect(devs.every((d) => d.projectId === p.id)).toBe(true);
      const history = await db.select().from(projectChange).where(eq(projectChange.projectId, p.id));
      expect(history.map((h) => h.userName)).toEqual(history.map(() => '演示数据'));
    }
    await registerDemoFleet(db, { sites: 5, seed: 1, now, historyDays: 40 });
    expect(await db.select().from(project).where(sql`${project.name} LIKE '%（演示）'`)).toHaveLength(2);
  });

  it('writes are in the operation log with the project as target', async () => {
    const body = selfInvestment();
    const id = (await api(calls.save.path, body)).data.id as number;
    const rows = rowsOf<{ action: string }>(
      await db.execute(
        sql`SELECT action FROM operation_log WHERE target_type = 'project' AND target_id = ${String(id)}`,
      ),
    );
    expect(rows.map((r) => r.action)).toContain('project.save');
  });
});
