/**
 * BOLA matrix: every `/api-bms` route of the running app (`app.apiRoutes`, the
 * route table the auth hook collects) is called as
 *   (a) the owning company's administrator — allowed;
 *   (b) another company's administrator — refused as if the target did not exist, or a list
 *       without anything of the owner's;
 *   (c) no token — 9999;
 *   (d) an employee of the owner whose roles lack the right — 5034 (routes open to every
 *       signed-in user answer as for anyone);
 *   (e) an employee of the owner holding every right with data scope "self" — what that scope
 *       allows (own company's sites and roles, only oneself among employees, own department);
 * asserting the code, that list answers hold (or do not hold) the owner's target, and that a
 * refused call changed none of the owner's rows. A route without a row in CASES fails the test,
 * so a new route cannot slip past the matrix.
 *
 * Owner A is an ordinary company with one sub-company of each kind; B is another company. Menu
 * routes are the platform operator's (menus are global): there the owner is the platform.
 */

import {
  COMPANY_KINDS,
  type CompanyKind,
  ErrorCode,
  endpoints,
  errorMessage,
  type FirmwarePackageState,
  firmwareUploadQuery,
  type UpgradeBatchState,
  type UpgradeDeviceState,
} from '@ess/contract';
import { eq, inArray, or, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMenus, forgetMenus, holdableMenus } from '../src/access/menu-access';
import { browserPasswordDigest } from '../src/access/password';
import type { Db } from '../src/core/db/database';
import {
  alarm,
  alarmEvent,
  bill,
  company,
  debugSession,
  department,
  device,
  deviceDeadLetter,
  deviceDelivery,
  deviceParamKey,
  deviceParams,
  employee,
  employeeRole,
  firmwareChunk,
  firmwareDownloadToken,
  firmwarePackage,
  mailOutbox,
  menu,
  operationLog,
  paramChange,
  project,
  projectChange,
  projectInvestor,
  projectMeter,
  projectMeterSwap,
  projectSite,
  role,
  roleMenu,
  scheduledTask,
  site,
  siteParamsInit,
  touScheme,
  upgradeBatch,
  upgradeDevice,
  userAccount,
} from '../src/core/db/schema';
import { writeTariffVersions } from '../src/devices/tariff-history';
import { BillService } from '../src/modules/bill/bill-service';
import { call, type Envelope, type SignedIn, signIn } from './support/client';
import { addAccount, addEmployee, addRole, addStaff, type Staff, unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';

type Body = Record<string, unknown>;
/** What a caller gets: a code, or a successful list that does / does not show the target. */
type Outcome = { code: number } | { sees: boolean };
type Caller = 'platform' | 'owner' | 'other' | 'noRight' | 'self';

interface RouteCase {
  /** The owner of the target: company A (default) or the platform operator (menus). */
  owner?: 'A' | 'platform';
  /** The body; called once per call, so destructive calls get a fresh target. */
  body: () => Promise<Body> | Body;
  /** Text that identifies the owner's target in a list answer. */
  marker?: () => string;
  /** (a); default code 0. */
  a?: Outcome;
  b: Outcome;
  e: Outcome;
  /** (d) for routes every signed-in user may call. */
  d?: Outcome;
  /** The call ends the caller's session: sign in afresh for it. */
  endsSession?: boolean;
  /** How to call it when it is not a JSON POST (the upload): default `call(app, path, body)`. */
  send?: (body: Body, token: string | undefined) => Promise<Envelope>;
}

const OK: Outcome = { code: 0 };
const SEES: Outcome = { sees: true };
const HIDDEN: Outcome = { sees: false };
const code = (c: number): Outcome => ({ code: c });
const PUBLIC_ROUTES = [
  '/api-bms/user/login',
  '/api-bms/user/getUserInfo',
  '/api-bms/user/refreshToken',
  // Aggregates only, nothing of any company by name (screens.test.ts proves it).
  '/api-bms/screen/cockpitPublic',
];

describe.each(engines)('BOLA matrix on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  const M = unique('bola').replace(/[^A-Za-z0-9-]/g, '');
  let platformId: number;
  let A: number;
  let B: number;
  const sub = {} as Record<CompanyKind, number>;
  let deptA: number;
  let selfDept: number;
  let roleA: number;
  let siteA: number;
  let gatewayA: number;
  let employeeA: number;
  let customMenu: number;
  let schemeA: number;
  let mailA: number;
  let packageA: number;
  let batchA: number;
  let projectA: number;
  let billA: number;
  const staff = {} as Record<Caller, Staff | 'admin'>;
  const sessions = {} as Record<Caller, SignedIn>;
  let n = 0;
  const fresh = (what: string) => `${M}-${what}-${++n}`;

  async function addDepartment(companyId: number, name: string, parentId: number | null = null) {
    const [row] = await db.insert(department).values({ companyId, name, parentId }).returning();
    return row!.id;
  }
  async function addSite(name: string, companyId = A) {
    const [row] = await db
      .insert(site)
      .values({ companyId, code: name.slice(-32), name })
      .returning({ id: site.id });
    return row!.id;
  }
  async function addDevice(gatewayId: number | null, agentId: number | null = null) {
    const [row] = await db
      .insert(device)
      .values({
        companyId: A,
        siteId: siteA,
        gatewayId,
        sn: fresh('sn').slice(-40),
        type: gatewayId ? 'meter' : 'ems',
        agentId,
      })
      .returning({ id: device.id });
    return row!.id;
  }
  async function addPlainEmployee() {
    const userId = await addAccount(db, fresh('acct'), 'secret1');
    return addEmployee(db, { companyId: A, userId, name: fresh('emp') });
  }
  /** A pending invitation of company A for an account of company B (none of the callers'). */
  async function addInvitationOfA() {
    const userId = await addAccount(db, fresh('invitee'), 'secret1');
    await addEmployee(db, { companyId: B, userId, name: fresh('invitee-b') });
    await db
      .insert(employee)
      .values({ companyId: A, userId, name: fresh('invited'), invitation: 'pending', joinedAt: null });
  }
  async function addSubCompany(kind: CompanyKind) {
    const [row] = await db
      .insert(company)
      .values({ type: kind, name: fresh(`sub-${kind}`), parentId: A })
      .returning({ id: company.id });
    return row!.id;
  }
  async function addCustomMenu() {
    const [row] = await db
      .insert(menu)
      .values({ type: 'directory', path: `/${fresh('m')}`, titleZh: fresh('菜单'), titleEn: fresh('menu') })
      .returning({ id: menu.id });
    forgetMenus(db);
    return row!.id;
  }
  /** A scheduled task (the platform's: no company), `normal` or `pause`. */
  async function addJob(status: 'normal' | 'pause' = 'normal') {
    const [row] = await db
      .insert(scheduledTask)
      .values({
        name: fresh('job'),
        group: `${M}-jobs`,
        kind: 'job-run-retention',
        cron: '0 30 3 * * *',
        timeoutS: 60,
        status,
      })
      .returning({ id: scheduledTask.id });
    return row!.id;
  }
  async function addScheme(name = fresh('tou')) {
    const [row] = await db
      .insert(touScheme)
      .values({ companyId: A, name, document: validScheme() })
      .returning({ id: touScheme.id });
    return row!.id;
  }
  /** An open debugging session of the owner's administrator on a new gateway of site A. */
  async function addDebugSession() {
    const id = fresh('dbg').slice(-64);
    const owner = staff.owner as Staff;
    const at = new Date();
    await db.insert(debugSession).values({
      id,
      gatewayId: await addDevice(null),
      companyId: A,
      employeeId: owner.employeeId,
      openedAt: at,
      expiresAt: new Date(at.getTime() + 600_000),
    });
    return id;
  }
  /** A firmware package of company A for EMS units (metadata only: no call here reads its bytes). */
  async function addPackage(state: FirmwarePackageState, name = fresh('fw')) {
    const [row] = await db
      .insert(firmwarePackage)
      .values({
        companyId: A,
        name,
        version: `9.${++n}.0`,
        deviceType: 'ems',
        fileName: 'ems.bin',
        sizeBytes: 1024,
        sha256: 'a'.repeat(64),
        chunkBytes: 1024,
        state,
        uploaderName: `${M}-uploader`,
        uploadedAt: new Date(),
        stateChangedAt: state === 'unused' ? null : new Date(),
      })
      .returning({ id: firmwarePackage.id });
    return row!.id;
  }
  /**
   * An upgrade batch of company A with package A and one device (a new, never connected EMS of
   * site A) in `deviceState`; one wave, already judged, deadline a day ahead: the engine has
   * nothing to move in it until a call changes it.
   */
  async function addBatch(state: UpgradeBatchState, deviceState: UpgradeDeviceState, batchNo = fresh('UP')) {
    const at = new Date();
    const [row] = await db
      .insert(upgradeBatch)
      .values({
        batchNo,
        companyId: A,
        packageId: packageA,
        operatorName: `${M}-operator`,
        state,
        pausedReason: state === 'paused' ? 'operator' : null,
        firstWaveSize: 1,
        waveSize: 1,
        waveCount: 1,
        currentWave: 1,
        passedWave: 1,
        failureRateThresholdPct: 100,
        maxConcurrentDownloads: 1,
        phaseTimeoutsS: { sent: 60, downloading: 1800, verifying: 300, installing: 900, rebooting: 600 },
        includeOffline: true,
        deadlineAt: new Date(at.getTime() + 86_400_000),
        finishedAt: state === 'finished' ? at : null,
      })
      .returning({ id: upgradeBatch.id });
    const failed = deviceState === 'failed';
    await db.insert(upgradeDevice).values({
      batchId: row!.id,
      deviceId: await addDevice(null),
      wave: 1,
      toVersion: '9.0.0',
      state: deviceState,
      reason: failed ? 'download_error' : null,
      timeline: [{ state: deviceState, at: at.toISOString(), percent: null, reason: null, detail: null }],
    });
    return row!.id;
  }
  /** `firmware/upload` as the console sends it: the file as the body, the fields in the query. */
  async function upload(body: Body, token: string | undefined): Promise<Envelope> {
    const file = Buffer.from(`${M} firmware image ${String(body.version)}`);
    const response = await ctx.app.inject({
      method: 'POST',
      url: `${endpoints.firmware.upload.path}?${firmwareUploadQuery({
        name: String(body.name),
        version: String(body.version),
        deviceType: 'ems',
        fileName: 'ems.bin',
      })}`,
      payload: file,
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(file.length),
        'accept-language': 'zh-CN,zh;q=0.9',
        ...(token ? { 'x-token': token } : {}),
      },
    });
    if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${response.body}`);
    return response.json() as Envelope;
  }
  /** An active alarm of site A (raised by an event), named by `${M}-alarm` in its content. */
  async function addAlarm(code = fresh('code')) {
    const ts = new Date();
    const [event] = await db
      .insert(alarmEvent)
      .values({
        companyId: A,
        siteId: siteA,
        deviceId: gatewayA,
        gatewayId: gatewayA,
        msgId: fresh('msg'),
        msgIndex: 0,
        ts,
        kind: 'produce',
        code,
        level: 'fault',
        content: `${M}-alarm`,
      })
      .returning({ id: alarmEvent.id });
    const [row] = await db
      .insert(alarm)
      .values({
        companyId: A,
        siteId: siteA,
        deviceId: gatewayA,
        gatewayId: gatewayA,
        code,
        level: 'fault',
        content: `${M}-alarm`,
        producedAt: ts,
        produceEventId: event!.id,
        notifyState: 'done',
      })
      .returning({ id: alarm.id });
    await db.update(alarmEvent).set({ alarmId: row!.id }).where(eq(alarmEvent.id, event!.id));
    return row!.id;
  }
  const nameOf = async (table: typeof company | typeof site, id: number) =>
    (await db.select({ name: table.name }).from(table).where(eq(table.id, id)))[0]!.name;

  /** Every row of company A's tree (and the global menus), to prove a refused call changed nothing. */
  /** A project of A (self-investment: owner 40 %, A's investor sub-company 60 %), to be started. */
  /** A project of A with a bound site whose meter it declares a storage meter (CT 40, secondary). */
  async function addMeteredProject() {
    const id = await addProject();
    const siteId = await addSite(fresh('msite'));
    await db.insert(projectSite).values({ companyId: A, projectId: id, siteId, boundFrom: '2025-01-01' });
    const [meter] = await db
      .insert(device)
      .values({ companyId: A, siteId, sn: fresh('mtr').slice(-40), type: 'meter', projectId: id })
      .returning({ id: device.id });
    await db.insert(projectMeter).values({
      companyId: A,
      projectId: id,
      deviceId: meter!.id,
      ctRatio: 40,
      ptRatio: 1,
      readsSecondary: true,
    });
    return { id, deviceId: meter!.id };
  }

  async function addProject(name = fresh('project')) {
    const [row] = await db
      .insert(project)
      .values({
        companyId: A,
        name,
        contractStart: '2026-01-01',
        contractYears: 10,
        incomeMode: 'self_investment',
        ownerSharePct: 40,
      })
      .returning({ id: project.id });
    await db
      .insert(projectInvestor)
      .values({ companyId: A, projectId: row!.id, investorCompanyId: sub.investor, ratioPct: 60 });
    return row!.id;
  }
  /**
   * A project of A (a fresh one unless given) that can be billed for `month`: a fresh site of A
   * bound to it for that month only (a month without a bound site is not billed, 7065; the
   * binding has ended, so it holds no site now) and billed at a tariff from the month's first day
   * (a day without one is refused: -100 tariffs).
   */
  async function addBillableProject(month: string, projectId?: number) {
    const pid = projectId ?? (await addProject());
    const [y, m] = month.split('-').map(Number) as [number, number];
    const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
    const billedSite = await addSite(fresh('billed-site'));
    await db
      .insert(projectSite)
      .values({ companyId: A, projectId: pid, siteId: billedSite, boundFrom: `${month}-01`, boundTo: next });
    await writeTariffVersions(db, {
      siteIds: [billedSite],
      scheme: { id: null, name: fresh('tariff'), version: 1, document: validScheme(), twoPart: null },
      effectiveFrom: `${month}-01`,
      createdBy: null,
    });
    return pid;
  }
  /**
   * A bill of a project of A (a fresh one unless given; {@link addBillableProject}): 2025-01
   * drafted through the bill service as the monthly task would (no energy: an empty bill), then
   * settled when `state` is 'confirmed'.
   */
  async function addBill(projectId?: number, state: 'draft' | 'confirmed' = 'draft') {
    const service = new BillService(db);
    const pid = await addBillableProject('2025-01', projectId);
    const out = await service.draft({ all: true }, pid, '2025-01', null, 'zh');
    if (state === 'confirmed')
      await service.confirm({ all: true }, out.id, { employeeId: null, name: 'bola' });
    return out.id;
  }
  /** `bill/exportXlsx`: the xlsx on success (answered here as code 0), the envelope on a refusal. */
  async function sendBillExport(body: Body, token: string | undefined): Promise<Envelope> {
    const response = await ctx.app.inject({
      method: 'POST',
      url: endpoints.bill.exportXlsx.path,
      payload: body as object,
      headers: {
        'content-type': 'application/json',
        'accept-language': 'zh-CN,zh;q=0.9',
        ...(token ? { 'x-token': token } : {}),
      },
    });
    if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${response.body}`);
    if (String(response.headers['content-type']).includes('spreadsheetml')) {
      expect(response.rawPayload.subarray(0, 2).toString()).toBe('PK');
      return { code: 0, msg: '', data: null } as Envelope;
    }
    return response.json() as Envelope;
  }
  /** The fields of a valid project of A for `project/save` and `project/update`. */
  const projectBody = () => ({
    name: fresh('project'),
    contractStart: '2026-01-01',
    contractYears: 10,
    incomeMode: 'self_investment',
    ownerSharePct: 40,
    investors: [{ companyId: sub.investor, ratioPct: 60 }],
  });

  async function snapshotOfA(): Promise<string> {
    const companies = (
      await db
        .select()
        .from(company)
        .where(or(eq(company.id, A), eq(company.parentId, A)))
    ).sort((x, y) => x.id - y.id);
    const ids = companies.map((c) => c.id);
    const employees = await db.select().from(employee).where(inArray(employee.companyId, ids));
    const roles = await db.select().from(role).where(inArray(role.companyId, ids));
    const roleIds = roles.map((r) => r.id);
    const employeeIds = employees.map((e) => e.id);
    const parts = {
      companies,
      departments: await db.select().from(department).where(inArray(department.companyId, ids)),
      employees,
      accounts: await db
        .select({ id: userAccount.id, hash: userAccount.passwordHash, must: userAccount.mustChangePassword })
        .from(userAccount)
        .where(inArray(userAccount.id, employees.map((e) => e.userId).concat(-1))),
      employeeRoles: await db
        .select()
        .from(employeeRole)
        .where(inArray(employeeRole.employeeId, employeeIds.concat(-1))),
      roles,
      roleMenus: await db
        .select()
        .from(roleMenu)
        .where(inArray(roleMenu.roleId, roleIds.concat(-1))),
      sites: await db.select().from(site).where(inArray(site.companyId, ids)),
      touSchemes: await db.select().from(touScheme).where(inArray(touScheme.companyId, ids)),
      touPushes: await db
        .select()
        .from(deviceDelivery)
        .innerJoin(site, eq(site.id, deviceDelivery.siteId))
        .where(inArray(site.companyId, ids)),
      devices: await db.select().from(device).where(inArray(device.companyId, ids)),
      paramShadows: await db
        .select({ p: deviceParams })
        .from(deviceParams)
        .innerJoin(device, eq(device.id, deviceParams.deviceId))
        .where(inArray(device.companyId, ids)),
      paramKeys: await db
        .select({ k: deviceParamKey })
        .from(deviceParamKey)
        .innerJoin(device, eq(device.id, deviceParamKey.deviceId))
        .where(inArray(device.companyId, ids)),
      paramChanges: await db
        .select({ c: paramChange })
        .from(paramChange)
        .innerJoin(device, eq(device.id, paramChange.deviceId))
        .where(inArray(device.companyId, ids)),
      paramInits: await db
        .select({ i: siteParamsInit })
        .from(siteParamsInit)
        .innerJoin(site, eq(site.id, siteParamsInit.siteId))
        .where(inArray(site.companyId, ids)),
      alarms: await db.select().from(alarm).where(inArray(alarm.companyId, ids)),
      firmwarePackages: await db
        .select()
        .from(firmwarePackage)
        .where(inArray(firmwarePackage.companyId, ids)),
      firmwareChunks: await db
        .select({
          packageId: firmwareChunk.packageId,
          seq: firmwareChunk.seq,
          md5: sql<string>`md5(${firmwareChunk.data})`,
        })
        .from(firmwareChunk)
        .innerJoin(firmwarePackage, eq(firmwarePackage.id, firmwareChunk.packageId))
        .where(inArray(firmwarePackage.companyId, ids)),
      downloadTokens: await db
        .select({ t: firmwareDownloadToken })
        .from(firmwareDownloadToken)
        .innerJoin(device, eq(device.id, firmwareDownloadToken.deviceId))
        .where(inArray(device.companyId, ids)),
      upgradeBatches: await db.select().from(upgradeBatch).where(inArray(upgradeBatch.companyId, ids)),
      // A's batches' devices, and A's devices in anyone's batch.
      upgradeDevices: await db
        .select({ u: upgradeDevice })
        .from(upgradeDevice)
        .innerJoin(upgradeBatch, eq(upgradeBatch.id, upgradeDevice.batchId))
        .innerJoin(device, eq(device.id, upgradeDevice.deviceId))
        .where(or(inArray(upgradeBatch.companyId, ids), inArray(device.companyId, ids))),
      projects: await db.select().from(project).where(inArray(project.companyId, ids)),
      projectInvestors: await db
        .select()
        .from(projectInvestor)
        .where(inArray(projectInvestor.companyId, ids)),
      projectSites: await db.select().from(projectSite).where(inArray(projectSite.companyId, ids)),
      projectMeters: await db.select().from(projectMeter).where(inArray(projectMeter.companyId, ids)),
      projectMeterSwaps: await db
        .select()
        .from(projectMeterSwap)
        .where(inArray(projectMeterSwap.companyId, ids)),
      projectChanges: await db.select().from(projectChange).where(inArray(projectChange.companyId, ids)),
      bills: await db.select().from(bill).where(inArray(bill.companyId, ids)),
      menus: await db.select().from(menu),
    };
    // Each row serialised once, then sorted (serialising inside the comparator cost seconds).
    const sorted = Object.fromEntries(
      Object.entries(parts).map(([k, rows]) => [k, rows.map((row) => JSON.stringify(row)).sort()]),
    );
    return JSON.stringify(sorted);
  }

  /** A gateway of site A assigned to A's agent sub-company: site A is then one of the agent's sites (export). */
  let agentGatewayA: number | undefined;
  const agentGateway = async () => {
    agentGatewayA ??= await addDevice(null, sub.agent);
    return agentGatewayA;
  };

  const companyCases = (kind: CompanyKind): Record<string, RouteCase> => ({
    [endpoints[kind].pageList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `sub-${kind}-`,
      a: SEES,
      b: HIDDEN,
      e: HIDDEN,
    },
    [endpoints[kind].save.path]: {
      body: () => ({ name: fresh(`new-${kind}`), parentId: A }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: OK,
    },
    [endpoints[kind].update.path]: {
      body: async () => ({ id: sub[kind], name: await nameOf(company, sub[kind]) }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },
    [endpoints[kind].status.path]: {
      body: async () => ({ id: await addSubCompany(kind), status: 'disabled' }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },
  });

  const CASES: Record<string, RouteCase> = {
    '/api-bms/user/getLanguageMenu': { body: () => ({ language: 'cn' }), b: OK, e: OK, d: OK },
    '/api-bms/user/loginOut': { body: () => ({}), b: OK, e: OK, d: OK, endsSession: true },
    '/api-bms/user/getPermission': { body: () => ({}), b: OK, e: OK, d: OK },
    // Keyed by the caller's own account: nobody answers an invitation meant for someone else.
    [endpoints.user.acceptInvitation.path]: {
      body: async () => {
        await addInvitationOfA();
        return { companyId: A };
      },
      a: code(ErrorCode.INVITATION_NOT_FOUND),
      b: code(ErrorCode.INVITATION_NOT_FOUND),
      e: code(ErrorCode.INVITATION_NOT_FOUND),
      d: code(ErrorCode.INVITATION_NOT_FOUND),
    },
    [endpoints.user.declineInvitation.path]: {
      body: async () => {
        await addInvitationOfA();
        return { companyId: A };
      },
      a: code(ErrorCode.INVITATION_NOT_FOUND),
      b: code(ErrorCode.INVITATION_NOT_FOUND),
      e: code(ErrorCode.INVITATION_NOT_FOUND),
      d: code(ErrorCode.INVITATION_NOT_FOUND),
    },
    '/api-bms/employee/updatePassword': {
      // Same old and new password: reaches the rules without changing anything (5056).
      body: () => {
        const same = browserPasswordDigest('secret1');
        return { oldPassword: same, newPassword: same, confirmPassword: same };
      },
      a: code(ErrorCode.PASSWORD_SAME_AS_OLD),
      b: code(ErrorCode.PASSWORD_SAME_AS_OLD),
      e: code(ErrorCode.PASSWORD_SAME_AS_OLD),
      d: code(ErrorCode.PASSWORD_SAME_AS_OLD),
    },
    '/api-bms/employee/getEmail': { body: () => ({}), b: OK, e: OK, d: OK },
    '/api-bms/employee/updateEmail': {
      body: () => ({ email: 'ops@example.com', isSubAlarm: 'N' }),
      b: OK,
      e: OK,
      d: OK,
    },
    '/api-bms/dashboard/overview': {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
      d: SEES,
    },
    // Real-time data and history: devices and sites outside scope answer 3030 / 3036.
    [endpoints.monitor.realtimeOptions.path]: {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.monitor.historyOptions.path]: {
      body: () => ({ siteId: siteA }),
      marker: () => `${M}-gw`,
      a: SEES,
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: SEES,
    },
    [endpoints.monitor.realtime.path]: {
      body: () => ({ deviceId: gatewayA }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.monitor.realtimeTrend.path]: {
      body: () => ({ deviceId: gatewayA, point: 'soc_pct' }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.monitor.history.path]: {
      body: () => ({
        series: [{ deviceId: gatewayA, point: 'soc_pct' }],
        startMs: Date.now() - 86_400_000,
        endMs: Date.now(),
      }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.monitor.compare.path]: {
      body: () => ({
        deviceId: gatewayA,
        point: 'soc_pct',
        a: { startMs: Date.now() - 86_400_000, endMs: Date.now() },
        b: { startMs: Date.now() - 2 * 86_400_000, endMs: Date.now() - 86_400_000 },
      }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.monitor.energy.path]: {
      body: () => ({
        siteId: siteA,
        granularity: 'day',
        startMs: Date.now() - 7 * 86_400_000,
        endMs: Date.now(),
      }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: OK,
    },
    // Site monitoring: sites in scope; a site outside it answers 3036.
    [endpoints.siteMonitor.sites.path]: {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.siteMonitor.site.path]: {
      body: () => ({ siteId: siteA }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: OK,
    },
    // Big screens: the signed-in cockpit (exact positions, revenue: screen:view), the
    // picker and one site.
    '/api-bms/screen/cockpit': {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    '/api-bms/screen/sites': {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    '/api-bms/screen/site': {
      body: () => ({ siteId: siteA }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: OK,
    },

    '/api-bms/menu/menuList': {
      owner: 'platform',
      body: () => ({}),
      marker: () => `${M}-m-`,
      a: SEES,
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.menu.save.path]: {
      owner: 'platform',
      body: () => ({
        type: 'directory',
        path: `/${fresh('m')}`,
        titleZh: fresh('菜单'),
        titleEn: fresh('menu'),
      }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.menu.update.path]: {
      owner: 'platform',
      body: () => ({
        id: customMenu,
        type: 'directory',
        path: `/${M}-m-0`,
        titleZh: `${M}-m-0`,
        titleEn: `${M}-m-0`,
      }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.menu.delete.path]: {
      owner: 'platform',
      body: async () => ({ id: await addCustomMenu() }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },

    // Scheduled tasks are the platform's (platform-only menu 150): every company caller 5034.
    [endpoints.job.pageList.path]: {
      owner: 'platform',
      body: () => ({ pageSize: 100, group: `${M}-jobs` }),
      marker: () => `${M}-job-`,
      a: SEES,
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.detail.path]: {
      owner: 'platform',
      body: async () => ({ id: await addJob() }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.kinds.path]: {
      owner: 'platform',
      body: () => ({}),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.save.path]: {
      owner: 'platform',
      body: () => ({
        name: fresh('job'),
        group: `${M}-jobs`,
        kind: 'job-run-retention',
        cron: '0 30 3 * * *',
        timezone: 'UTC',
        timeoutS: 60,
      }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.update.path]: {
      owner: 'platform',
      body: async () => ({
        id: await addJob(),
        name: fresh('job'),
        group: `${M}-jobs`,
        kind: 'job-run-retention',
        cron: '0 0 4 * * *',
        timezone: 'UTC',
        timeoutS: 60,
      }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.delete.path]: {
      owner: 'platform',
      body: async () => ({ id: await addJob() }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.pause.path]: {
      owner: 'platform',
      body: async () => ({ id: await addJob() }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.recover.path]: {
      owner: 'platform',
      body: async () => ({ id: await addJob('pause') }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.trigger.path]: {
      owner: 'platform',
      body: async () => ({ id: await addJob() }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    [endpoints.job.runs.path]: {
      owner: 'platform',
      body: () => ({ pageSize: 100 }),
      b: code(ErrorCode.NO_PERMISSION),
      e: code(ErrorCode.NO_PERMISSION),
    },
    // Revenue statistics (issue 17 item 4): A's sites among the targets; A's site's figures 3036
    // to another company (its project 7001, its company 6000 — the same scope rule).
    [endpoints.revenue.targets.path]: {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.revenue.stat.path]: {
      body: () => ({ scope: 'site', id: siteA, granularity: 'month', period: '2026-06' }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: OK,
    },
    // Projects (issue 17 item 1): A's rows; another company's answer 7001 (its company 6000).
    [endpoints.project.pageList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-project-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.project.detail.path]: {
      body: () => ({ id: projectA }),
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.history.path]: {
      body: () => ({ id: projectA, pageSize: 20 }),
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.siteOptions.path]: {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.project.save.path]: {
      body: () => ({ ...projectBody(), companyId: A }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.update.path]: {
      body: async () => ({ ...projectBody(), id: await addProject() }),
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.delete.path]: {
      body: async () => ({ id: await addProject() }),
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.changeStatus.path]: {
      body: async () => ({ id: await addProject(), status: 'under_construction' }),
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.bindSites.path]: {
      body: async () => ({ id: await addProject(), siteIds: [await addSite(fresh('psite'))] }),
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.recordMeterSwap.path]: {
      body: async () => {
        const { id, deviceId } = await addMeteredProject();
        return {
          id,
          deviceId,
          swappedAt: '2025-07-10 14:30',
          oldImportKwh: 520,
          oldExportKwh: 118,
          newImportKwh: 0,
          newExportKwh: 0,
          newCtRatio: 50,
          newPtRatio: 1,
          newReadsSecondary: true,
        };
      },
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.deleteMeterSwap.path]: {
      body: async () => {
        const { id, deviceId } = await addMeteredProject();
        const [swap] = await db
          .insert(projectMeterSwap)
          .values({
            companyId: A,
            projectId: id,
            deviceId,
            swappedAt: new Date('2025-07-10T06:30:00Z'),
            oldImportKwh: 520,
            oldExportKwh: 118,
            newImportKwh: 0,
            newExportKwh: 0,
            oldCtRatio: 40,
            oldPtRatio: 1,
            oldReadsSecondary: true,
          })
          .returning({ id: projectMeterSwap.id });
        return { id, swapId: swap!.id };
      },
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.project.unbindSite.path]: {
      body: async () => {
        const id = await addProject();
        const siteId = await addSite(fresh('psite'));
        await db.insert(projectSite).values({ companyId: A, projectId: id, siteId, boundFrom: '2026-01-01' });
        return { id, siteId };
      },
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    // Monthly bills (issue 17 item 5): A's bills; another company's answer 7062 (bill) / 7001 (project).
    [endpoints.bill.pageList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-project-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.bill.detail.path]: {
      body: () => ({ id: billA }),
      b: code(ErrorCode.BILL_NOT_FOUND),
      e: OK,
    },
    [endpoints.bill.draft.path]: {
      body: async () => ({ projectId: await addBillableProject('2025-02'), month: '2025-02' }),
      b: code(ErrorCode.PROJECT_NOT_FOUND),
      e: OK,
    },
    [endpoints.bill.confirm.path]: {
      body: async () => ({ id: await addBill() }),
      b: code(ErrorCode.BILL_NOT_FOUND),
      e: OK,
    },
    [endpoints.bill.correct.path]: {
      body: async () => ({ id: await addBill(undefined, 'confirmed'), reason: 'meter swap recorded late' }),
      b: code(ErrorCode.BILL_NOT_FOUND),
      e: OK,
    },
    [endpoints.bill.exportXlsx.path]: {
      body: () => ({ id: billA }),
      send: sendBillExport,
      b: code(ErrorCode.BILL_NOT_FOUND),
      e: OK,
    },

    '/api-bms/site/pageList': {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    '/api-bms/site/save': {
      body: () => ({ code: fresh('s').slice(-32), name: fresh('site'), companyId: A }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: OK,
    },
    '/api-bms/site/update': {
      body: async () => ({ id: siteA, code: `${M}-site-main`.slice(-32), name: `${M}-site-main` }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: OK,
    },
    // Moving a site into a company: A's sub-company, which a self-scoped caller does not see.
    [endpoints.site.moveCompanyPreview.path]: {
      body: () => ({ id: siteA, companyId: sub.owner }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },
    [endpoints.site.moveCompany.path]: {
      body: async () => ({ id: await addSite(fresh('site')), companyId: sub.owner }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },
    '/api-bms/site/delete': {
      body: async () => ({ id: await addSite(fresh('site')) }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: OK,
    },
    '/api-bms/device/pageList': {
      body: () => ({ pageSize: 500, siteId: siteA }),
      marker: () => `${M}-gw`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    '/api-bms/device/save': {
      body: () => ({ siteId: siteA, sn: fresh('sn').slice(-40), type: 'meter', gatewayId: gatewayA }),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: OK,
    },
    '/api-bms/device/update': {
      body: () => ({ id: gatewayA, siteId: siteA, sn: `${M}-gw`.slice(-40), type: 'ems' }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    // Moving a gateway of site A onto a site of A's sub-company (out of sight for scope "self").
    [endpoints.device.moveSite.path]: {
      body: async () => ({ id: await addDevice(null), siteId: await addSite(fresh('site'), sub.owner) }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: code(ErrorCode.SITE_NOT_FOUND),
    },
    '/api-bms/device/delete': {
      body: async () => ({ id: await addDevice(gatewayA) }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    '/api-bms/device/resetSecret': {
      body: () => ({ id: gatewayA }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.device.deadLetterPageList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-dead-letter`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },

    ...Object.assign({}, ...COMPANY_KINDS.map(companyCases)),
    [endpoints.company.options.path]: {
      body: () => ({}),
      marker: () => `${M}-sub-`,
      a: SEES,
      b: HIDDEN,
      e: HIDDEN,
      d: SEES, // its role has no menus but the default data scope (own company and sub-companies)
    },
    [endpoints.agent.devices.path]: {
      body: () => ({ agentId: sub.agent }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },
    [endpoints.agent.assignDevices.path]: {
      body: async () => ({ agentId: sub.agent, deviceIds: [await addDevice(null)] }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },
    [endpoints.agent.unassignDevices.path]: {
      body: async () => ({ agentId: sub.agent, deviceIds: [await addDevice(null, sub.agent)] }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },

    [endpoints.department.list.path]: {
      body: () => ({ companyId: A }),
      marker: () => `${M}-dept-main`,
      a: SEES,
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: HIDDEN,
    },
    [endpoints.department.save.path]: {
      body: () => ({ companyId: A, parentId: deptA, name: fresh('dept') }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: code(ErrorCode.DEPARTMENT_NOT_FOUND),
    },
    [endpoints.department.update.path]: {
      body: () => ({ id: deptA, name: `${M}-dept-main` }),
      b: code(ErrorCode.DEPARTMENT_NOT_FOUND),
      e: code(ErrorCode.DEPARTMENT_NOT_FOUND),
    },
    [endpoints.department.delete.path]: {
      body: async () => ({ id: await addDepartment(A, fresh('dept'), deptA) }),
      b: code(ErrorCode.DEPARTMENT_NOT_FOUND),
      e: code(ErrorCode.DEPARTMENT_NOT_FOUND),
    },

    [endpoints.employee.pageList.path]: {
      body: () => ({ pageSize: 500, companyId: A }),
      marker: () => `${M}-emp-main`,
      a: SEES,
      b: HIDDEN,
      e: HIDDEN,
    },
    [endpoints.employee.detail.path]: {
      body: () => ({ id: employeeA }),
      b: code(ErrorCode.EMPLOYEE_NOT_FOUND),
      e: code(ErrorCode.EMPLOYEE_NOT_FOUND),
    },
    [endpoints.employee.save.path]: {
      body: () => ({
        account: fresh('acct'),
        password: browserPasswordDigest('secret1'),
        name: fresh('emp'),
        companyId: A,
        departmentId: deptA,
      }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: code(ErrorCode.DEPARTMENT_NOT_FOUND),
    },
    [endpoints.employee.update.path]: {
      body: () => ({ id: employeeA, name: `${M}-emp-main`, departmentId: deptA, roleIds: [roleA] }),
      b: code(ErrorCode.EMPLOYEE_NOT_FOUND),
      e: code(ErrorCode.EMPLOYEE_NOT_FOUND),
    },
    [endpoints.employee.status.path]: {
      body: async () => ({ id: await addPlainEmployee(), status: 'disabled' }),
      b: code(ErrorCode.EMPLOYEE_NOT_FOUND),
      e: code(ErrorCode.EMPLOYEE_NOT_FOUND),
    },
    [endpoints.employee.delete.path]: {
      body: async () => ({ id: await addPlainEmployee() }),
      b: code(ErrorCode.EMPLOYEE_NOT_FOUND),
      e: code(ErrorCode.EMPLOYEE_NOT_FOUND),
    },
    [endpoints.employee.resetPassword.path]: {
      body: async () => ({ id: await addPlainEmployee(), password: browserPasswordDigest('secret2') }),
      b: code(ErrorCode.EMPLOYEE_NOT_FOUND),
      e: code(ErrorCode.EMPLOYEE_NOT_FOUND),
    },

    [endpoints.role.pageList.path]: {
      body: () => ({ pageSize: 500, companyId: A }),
      marker: () => `${M}-role-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.role.menuOptions.path]: {
      body: () => ({ companyId: A }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: OK,
    },
    [endpoints.role.detail.path]: { body: () => ({ id: roleA }), b: code(ErrorCode.ROLE_NOT_FOUND), e: OK },
    [endpoints.role.save.path]: {
      body: () => ({
        name: fresh('role'),
        code: `r${++n}${M}`.replace(/-/g, '_').slice(0, 32),
        companyId: A,
        menuIds: [120],
      }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: OK,
    },
    [endpoints.role.update.path]: {
      body: async () => {
        const id = await addRole(db, { companyId: A, menuIds: [120] });
        return {
          id,
          version: 1,
          name: fresh('role'),
          code: `u${++n}${M}`.replace(/-/g, '_').slice(0, 32),
          menuIds: [120],
        };
      },
      b: code(ErrorCode.ROLE_NOT_FOUND),
      e: OK,
    },
    [endpoints.role.delete.path]: {
      body: async () => ({ id: await addRole(db, { companyId: A, menuIds: [120] }) }),
      b: code(ErrorCode.ROLE_NOT_FOUND),
      e: OK,
    },
    [endpoints.role.copy.path]: {
      body: () => ({ id: roleA, name: fresh('copy'), code: `c${++n}${M}`.replace(/-/g, '_').slice(0, 32) }),
      b: code(ErrorCode.ROLE_NOT_FOUND),
      e: OK,
    },

    [endpoints.tou.pageList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-tou-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.tou.detail.path]: {
      body: () => ({ id: schemeA }),
      b: code(ErrorCode.TOU_SCHEME_NOT_FOUND),
      e: OK,
    },
    [endpoints.tou.save.path]: {
      body: () => ({ companyId: A, name: fresh('tou'), document: validScheme() }),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: OK,
    },
    [endpoints.tou.update.path]: {
      body: async () => ({ id: await addScheme(), version: 1, name: fresh('tou'), document: validScheme() }),
      b: code(ErrorCode.TOU_SCHEME_NOT_FOUND),
      e: OK,
    },
    [endpoints.tou.delete.path]: {
      body: async () => ({ id: await addScheme() }),
      b: code(ErrorCode.TOU_SCHEME_NOT_FOUND),
      e: OK,
    },
    [endpoints.tou.assign.path]: {
      body: () => ({ id: schemeA, siteIds: [siteA] }),
      b: code(ErrorCode.TOU_SCHEME_NOT_FOUND),
      e: OK,
    },
    [endpoints.tou.pushStatus.path]: {
      body: () => ({ id: schemeA }),
      b: code(ErrorCode.TOU_SCHEME_NOT_FOUND),
      e: OK,
    },
    [endpoints.tou.push.path]: {
      // siteA runs schemeA; its EMS never connected.
      body: () => ({ siteId: siteA }),
      a: code(ErrorCode.DEVICE_NOT_CONNECTED),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: code(ErrorCode.DEVICE_NOT_CONNECTED),
    },
    [endpoints.tou.optimalPlan.path]: {
      // siteA has no BMS or PCS with a capacity/rating: in scope it answers 3095, outside 3036.
      body: () => ({
        siteId: siteA,
        periods: validScheme().dailyPlans[0]!.periods,
        roundTripEfficiencyPct: 90,
        socMinPct: 5,
        socMaxPct: 95,
      }),
      a: code(ErrorCode.TOU_SITE_NO_BATTERY),
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: code(ErrorCode.TOU_SITE_NO_BATTERY),
    },
    // Device parameters: gatewayA (an EMS of siteA) never connected.
    [endpoints.params.tree.path]: {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.params.detail.path]: {
      body: () => ({ deviceId: gatewayA }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.params.set.path]: {
      body: () => ({ deviceId: gatewayA, values: { export_limit_kw: 50 } }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.params.read.path]: {
      body: () => ({ deviceId: gatewayA }),
      a: code(ErrorCode.DEVICE_NOT_CONNECTED),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: code(ErrorCode.DEVICE_NOT_CONNECTED),
    },
    [endpoints.params.retry.path]: {
      // The change of `set` above is outstanding and waits for the gateway's first connection.
      body: () => ({ deviceId: gatewayA }),
      a: code(ErrorCode.DEVICE_NOT_CONNECTED),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: code(ErrorCode.DEVICE_NOT_CONNECTED),
    },
    [endpoints.params.history.path]: {
      body: () => ({ deviceId: gatewayA, pageNum: 1, pageSize: 10 }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.params.copy.path]: {
      body: () => ({ fromDeviceId: gatewayA, toDeviceIds: [gatewayA] }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },
    [endpoints.params.initialize.path]: {
      body: async () => {
        const siteId = await addSite(fresh('init-site'));
        await db
          .insert(device)
          .values({ companyId: A, siteId, sn: fresh('init-gw').slice(-40), type: 'ems' });
        return { siteId };
      },
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: OK,
    },
    [endpoints.export.sites.path]: {
      body: async () => {
        await agentGateway();
        return { agentId: sub.agent };
      },
      marker: () => `${M}-site-main`,
      a: SEES,
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      // Scope "self" is the own company only: the agent sub-company is out of sight.
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },
    [endpoints.export.devices.path]: {
      body: () => ({ siteId: siteA }),
      marker: () => `${M}-gw`,
      a: SEES,
      b: code(ErrorCode.SITE_NOT_FOUND),
      e: SEES,
    },
    [endpoints.export.xlsx.path]: {
      // Agent, site and device exist for the owner; nothing chosen to export → 3130 (no file).
      body: async () => ({
        agentId: sub.agent,
        startMs: Date.now() - 3_600_000,
        endMs: Date.now(),
        siteId: siteA,
        type: 'alarms',
        deviceIds: [await agentGateway()],
        items: [],
      }),
      a: code(ErrorCode.EXPORT_DATA_REQUIRED),
      b: code(ErrorCode.COMPANY_NOT_FOUND),
      e: code(ErrorCode.COMPANY_NOT_FOUND),
    },

    [endpoints.log.pageList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-logged`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },

    [endpoints.alarm.activeList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-alarm`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.alarm.historyList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-alarm`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.alarm.ack.path]: {
      body: async () => ({ ids: [await addAlarm()] }),
      b: code(ErrorCode.ALARM_NOT_FOUND),
      e: OK,
    },
    [endpoints.alarm.filterOptions.path]: {
      body: () => ({}),
      marker: () => `${M}-site-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    // The outbox follows the department part of the data scope: a self-scoped caller sees only
    // mails to itself, not A's mail to someone else.
    [endpoints.mail.outboxList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-mail`,
      a: SEES,
      b: HIDDEN,
      e: HIDDEN,
    },
    [endpoints.mail.outboxDetail.path]: {
      body: () => ({ id: mailA }),
      b: code(ErrorCode.MAIL_NOT_FOUND),
      e: code(ErrorCode.MAIL_NOT_FOUND),
    },

    // Transparent debugging: a gateway outside the scope answers 3030; a session is its opener's
    // alone (anyone else: 3044, as if it had ended). gatewayA never connected (3033); the test
    // runs without a device side, so the owner's frame stops at "gateway offline" (3034).
    [endpoints.debug.open.path]: {
      body: () => ({ gatewayId: gatewayA }),
      a: code(ErrorCode.DEVICE_NOT_CONNECTED),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: code(ErrorCode.DEVICE_NOT_CONNECTED),
    },
    [endpoints.debug.send.path]: {
      body: async () => ({
        sessionId: await addDebugSession(),
        port: 'rs485_1',
        frame: { kind: 'modbus', request: { fn: 3, address: 1, register: 0, count: 1 } },
      }),
      a: code(ErrorCode.DEVICE_OFFLINE),
      b: code(ErrorCode.DEBUG_SESSION_ENDED),
      e: code(ErrorCode.DEBUG_SESSION_ENDED),
    },
    [endpoints.debug.close.path]: {
      body: async () => ({ sessionId: await addDebugSession() }),
      b: code(ErrorCode.DEBUG_SESSION_ENDED),
      e: code(ErrorCode.DEBUG_SESSION_ENDED),
    },
    [endpoints.debug.frames.path]: {
      body: () => ({ gatewayId: gatewayA }),
      b: code(ErrorCode.DEVICE_NOT_FOUND),
      e: OK,
    },

    // Firmware packages: one of A's (not the platform's, which every company is offered) is
    // another company's 7030, as if absent. An upload makes a package of the caller's own
    // company (B's upload changes nothing of A's; whose it is: the test after the matrix).
    [endpoints.firmware.pageList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-fw-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.firmware.detail.path]: {
      body: () => ({ id: packageA }),
      b: code(ErrorCode.INSTALL_PACKAGE_NOT_FOUND),
      e: OK,
    },
    [endpoints.firmware.upload.path]: {
      body: () => ({ name: fresh('fw-up'), version: `8.${++n}.0` }),
      send: upload,
      b: OK,
      e: OK,
    },
    [endpoints.firmware.publish.path]: {
      body: async () => ({ id: await addPackage('unused') }),
      b: code(ErrorCode.INSTALL_PACKAGE_NOT_FOUND),
      e: OK,
    },
    [endpoints.firmware.disable.path]: {
      body: async () => ({ id: await addPackage('published') }),
      b: code(ErrorCode.INSTALL_PACKAGE_NOT_FOUND),
      e: OK,
    },
    [endpoints.firmware.delete.path]: {
      body: async () => ({ id: await addPackage('unused') }),
      b: code(ErrorCode.INSTALL_PACKAGE_NOT_FOUND),
      e: OK,
    },

    // Upgrade batches: A's package is another company's 3061 (no upgrade firmware), A's batch its
    // 7037, as if absent. Devices are new EMS units of site A that never connected (they wait).
    [endpoints.upgrade.candidates.path]: {
      body: () => ({ packageId: packageA, includeOffline: true }),
      marker: () => `${M}-gw`,
      a: SEES,
      b: code(ErrorCode.NO_UPGRADE_FIRMWARE),
      e: SEES,
    },
    [endpoints.upgrade.create.path]: {
      body: async () => ({
        packageId: packageA,
        deviceIds: [await addDevice(null)],
        deadlineAt: Date.now() + 86_400_000,
        includeOffline: true,
      }),
      b: code(ErrorCode.NO_UPGRADE_FIRMWARE),
      e: OK,
    },
    [endpoints.upgrade.pageList.path]: {
      body: () => ({ pageSize: 500 }),
      marker: () => `${M}-UP-main`,
      a: SEES,
      b: HIDDEN,
      e: SEES,
    },
    [endpoints.upgrade.detail.path]: {
      body: () => ({ id: batchA }),
      b: code(ErrorCode.UPGRADE_BATCH_NOT_FOUND),
      e: OK,
    },
    [endpoints.upgrade.retry.path]: {
      body: async () => ({ id: await addBatch('finished', 'failed') }),
      b: code(ErrorCode.UPGRADE_BATCH_NOT_FOUND),
      e: OK,
    },
    [endpoints.upgrade.cancel.path]: {
      body: async () => ({ id: await addBatch('running', 'waiting') }),
      b: code(ErrorCode.UPGRADE_BATCH_NOT_FOUND),
      e: OK,
    },
    [endpoints.upgrade.pause.path]: {
      body: async () => ({ id: await addBatch('running', 'waiting') }),
      b: code(ErrorCode.UPGRADE_BATCH_NOT_FOUND),
      e: OK,
    },
    [endpoints.upgrade.resume.path]: {
      body: async () => ({ id: await addBatch('paused', 'waiting') }),
      b: code(ErrorCode.UPGRADE_BATCH_NOT_FOUND),
      e: OK,
    },
  };

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    [{ id: platformId }] = (await db
      .select({ id: company.id })
      .from(company)
      .where(eq(company.type, 'platform'))) as [{ id: number }];
    const [a] = await db
      .insert(company)
      .values({ type: 'owner', name: `${M}-A`, parentId: platformId })
      .returning();
    const [b] = await db
      .insert(company)
      .values({ type: 'owner', name: `${M}-B`, parentId: platformId })
      .returning();
    A = a!.id;
    B = b!.id;
    for (const kind of COMPANY_KINDS) sub[kind] = await addSubCompany(kind);
    deptA = await addDepartment(A, `${M}-dept-main`);
    selfDept = await addDepartment(A, `${M}-dept-self`);
    roleA = await addRole(db, { companyId: A, menuIds: [120] });
    await db
      .update(role)
      .set({ name: `${M}-role-main` })
      .where(eq(role.id, roleA));
    siteA = await addSite(`${M}-site-main`);
    const [gw] = await db
      .insert(device)
      .values({ companyId: A, siteId: siteA, sn: `${M}-gw`.slice(-40), type: 'ems' })
      .returning({ id: device.id });
    gatewayA = gw!.id;
    const userId = await addAccount(db, fresh('acct'), 'secret1');
    employeeA = await addEmployee(db, { companyId: A, userId, name: `${M}-emp-main`, roleIds: [roleA] });
    await db.update(employee).set({ departmentId: deptA }).where(eq(employee.id, employeeA));
    customMenu = await addCustomMenu();
    await addJob();
    schemeA = await addScheme(`${M}-tou-main`);
    await addAlarm();
    const [mail] = await db
      .insert(mailOutbox)
      .values({
        companyId: A,
        toAddress: `${M}-mail@example.com`,
        lang: 'zh',
        subject: `${M}-mail`,
        body: 'text',
        alarmIds: [],
      })
      .returning({ id: mailOutbox.id });
    mailA = mail!.id;
    await db.insert(deviceDeadLetter).values({
      companyId: A,
      siteId: siteA,
      gatewaySn: `${M}-dead-letter`,
      kind: 'telemetry',
      payload: '{}',
      error: 'value out of range: overflow',
      errorCode: '22003',
    });
    await db.update(site).set({ touSchemeId: schemeA }).where(eq(site.id, siteA));
    await db.insert(deviceDelivery).values({
      kind: 'tou',
      target: `site:${siteA}`,
      siteId: siteA,
      version: 1,
      desired: { schemeId: schemeA },
    });
    await db
      .update(menu)
      .set({ titleEn: `${M}-m-0` })
      .where(eq(menu.id, customMenu));
    await db
      .insert(operationLog)
      .values({ companyId: A, account: `${M}-logged`, action: 'site.update', code: 0 });
    packageA = await addPackage('published', `${M}-fw-main`);
    batchA = await addBatch('running', 'waiting', `${M}-UP-main`);
    projectA = await addProject(`${M}-project-main`);
    billA = await addBill(projectA);

    const everyHoldable = holdableMenus(await allMenus(db), false).map((m) => m.id);
    staff.owner = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, isAdmin: true })],
    });
    staff.other = await addStaff(db, {
      companyId: B,
      roleIds: [await addRole(db, { companyId: B, isAdmin: true })],
    });
    staff.noRight = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, menuIds: [] })],
    });
    const selfRole = await addRole(db, { companyId: A, menuIds: everyHoldable });
    await db.update(role).set({ dataScope: 'self' }).where(eq(role.id, selfRole));
    staff.self = await addStaff(db, { companyId: A, roleIds: [selfRole] });
    await db.update(employee).set({ departmentId: selfDept }).where(eq(employee.id, staff.self.employeeId));
    staff.platform = 'admin';
    for (const who of ['platform', 'owner', 'other', 'noRight', 'self'] as const)
      sessions[who] = await signInAs(who);
  });
  afterAll(async () => ctx?.close());

  async function signInAs(who: Caller): Promise<SignedIn> {
    const s = staff[who];
    return s === 'admin' ? signIn(ctx.app) : signIn(ctx.app, s.account, s.password);
  }

  it('every /api-bms route declares its access and has a row in the matrix', () => {
    const paths = ctx.app.apiRoutes.map((r) => r.path).sort();
    const publicPaths = ctx.app.apiRoutes.filter((r) => r.access.kind === 'public').map((r) => r.path);
    expect(publicPaths.sort()).toEqual([...PUBLIC_ROUTES].sort());
    const covered = [...Object.keys(CASES), ...PUBLIC_ROUTES].sort();
    expect(paths).toEqual(covered);
  });

  it('a route without an access declaration stops the server from starting', async () => {
    const { accessOf } = await import('../src/access/auth-hook');
    expect(() => accessOf('/api-bms/x/y', {} as never)).toThrow(/must declare exactly one/);
    expect(() => accessOf('/api-bms/x/y', { public: true, permission: 'a:b:c' } as never)).toThrow();
  });

  it('firmware across companies: an upload is the uploader company’s; a platform package offers another company none of A’s devices', async () => {
    const other = { token: sessions.other.token };
    const owner = { token: sessions.owner.token };
    const up = await upload({ name: `${M}-fw-of-B`, version: `7.${++n}.0` }, other.token);
    expect(up.code, up.msg).toBe(0);
    expect(up.data.companyId).toBe(B);
    const list = await call(ctx.app, endpoints.firmware.pageList.path, { pageSize: 500 }, owner);
    expect(list.code).toBe(0);
    expect(JSON.stringify(list.data).includes(`${M}-fw-of-B`)).toBe(false);
    for (const path of [endpoints.firmware.detail.path, endpoints.firmware.publish.path])
      expect((await call(ctx.app, path, { id: up.data.id }, owner)).code, path).toBe(
        ErrorCode.INSTALL_PACKAGE_NOT_FOUND,
      );

    // The platform's published package is offered to B, but with B's devices only; a batch of it
    // on A's gateway is refused as if the device did not exist, and B cannot disable it.
    const [platformPackage] = await db
      .insert(firmwarePackage)
      .values({
        companyId: platformId,
        name: `${M}-fw-platform`,
        version: `6.${++n}.0`,
        deviceType: 'ems',
        fileName: 'ems.bin',
        sizeBytes: 1024,
        sha256: 'b'.repeat(64),
        chunkBytes: 1024,
        state: 'published',
        uploaderName: 'platform',
        uploadedAt: new Date(),
        stateChangedAt: new Date(),
      })
      .returning();
    const packageId = platformPackage!.id;
    const candidates = await call(
      ctx.app,
      endpoints.upgrade.candidates.path,
      { packageId, includeOffline: true },
      other,
    );
    expect(candidates.code, candidates.msg).toBe(0);
    const idsOfA = new Set(
      (await db.select({ id: device.id }).from(device).where(eq(device.companyId, A))).map((d) => d.id),
    );
    expect(idsOfA.size).toBeGreaterThan(0);
    expect(candidates.data.list.filter((c: { deviceId: number }) => idsOfA.has(c.deviceId))).toEqual([]);
    const before = await snapshotOfA();
    const create = await call(
      ctx.app,
      endpoints.upgrade.create.path,
      { packageId, deviceIds: [gatewayA], deadlineAt: Date.now() + 86_400_000, includeOffline: true },
      other,
    );
    expect(create.code, create.msg).toBe(ErrorCode.DEVICE_NOT_FOUND);
    const disable = await call(ctx.app, endpoints.firmware.disable.path, { id: packageId }, other);
    expect(disable.code, disable.msg).toBe(ErrorCode.NO_PERMISSION);
    await ctx.app.upgrades.settled();
    expect(await snapshotOfA()).toBe(before);
    const [still] = await db
      .select({ state: firmwarePackage.state })
      .from(firmwarePackage)
      .where(eq(firmwarePackage.id, packageId));
    expect(still?.state).toBe('published');

    // The platform operator (scope all) may start upgrades with any company's package.
    const platform = { token: sessions.platform.token };
    const offered = await call(
      ctx.app,
      endpoints.upgrade.candidates.path,
      { packageId: packageA, includeOffline: true },
      platform,
    );
    expect(offered.code, offered.msg).toBe(0);
    expect(offered.data.list.some((c: { deviceId: number }) => c.deviceId === gatewayA)).toBe(true);
  });

  /** The background work of earlier calls ended (upgrades, parameter and ToU deliveries). */
  const settledBackground = async () => {
    await ctx.app.upgrades.settled();
    await ctx.app.paramsPush.settled();
    await ctx.app.touPush.settled();
  };

  for (const [path, spec] of Object.entries(CASES)) {
    it(`${path}: (c) no token, (d) no right, (b) other company, (e) scope self, (a) owner`, async () => {
      const permissionRoute = ctx.app.apiRoutes.find((r) => r.path === path)?.access.kind === 'permission';
      const run = async (who: Caller | 'none', expected: Outcome) => {
        const session = who === 'none' ? undefined : spec.endsSession ? await signInAs(who) : sessions[who];
        const body = await spec.body();
        // Only a refused call is checked for changes: no snapshot before one expected to succeed.
        // The background work of earlier calls (an upgrade batch made, retried, resumed; a
        // parameter change or ToU push handed to the delivery service, which writes its row after
        // the call answered) ends before a snapshot, so that only the call can change what it shows.
        const refused = 'code' in expected && expected.code !== 0;
        if (refused) await settledBackground();
        const before = refused ? await snapshotOfA() : '';
        const answer = spec.send
          ? await spec.send(body, session?.token)
          : await call(ctx.app, path, body, session ? { token: session.token } : {});
        const where = `${path} as ${who}: ${answer.code} ${answer.msg}`;
        if ('code' in expected) {
          expect(answer.code, where).toBe(expected.code);
          if (expected.code !== 0) {
            expect(answer.msg, where).toBe(errorMessage(expected.code, 'zh'));
            expect(answer.data, where).toBeNull();
            await settledBackground();
            expect(await snapshotOfA(), `${where} changed the owner's rows`).toBe(before);
          }
        } else {
          expect(answer.code, where).toBe(0);
          expect(JSON.stringify(answer.data).includes(spec.marker!()), where).toBe(expected.sees);
        }
      };
      await run('none', code(ErrorCode.TOKEN_INVALID));
      await run('noRight', permissionRoute ? code(ErrorCode.NO_PERMISSION) : (spec.d ?? OK));
      // For the platform's routes, A's own administrator is the "other company".
      await run(spec.owner === 'platform' ? 'owner' : 'other', spec.b);
      await run('self', spec.e);
      await run(spec.owner === 'platform' ? 'platform' : 'owner', spec.a ?? OK);
    });
  }
});
