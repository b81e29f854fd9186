/**
 * Moving devices between sites and sites between companies (issue 14 items 1 and 2;
 * modules/registry, docs/api.md "Moving devices and sites"): `device/moveSite` takes a gateway's
 * devices along and puts a device behind a gateway of the target site (3040 otherwise);
 * `site/moveCompany` takes the site's devices, alarms, alarm events and dead letters to the new
 * company and takes off a ToU scheme the new company may not run (its preview says so first);
 * the edits refuse to move (3042); each move is one operation-log row naming from and to; a caller
 * moves nothing into or out of a company it cannot see. Sites can be created in a customer's
 * company, whose employees then see them.
 */
import {
  deviceMoveResponse,
  ErrorCode,
  endpoints,
  errorMessage,
  type SiteMoveOutcome,
  siteMoveOutcome,
} from '@ess/contract';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alarm,
  alarmEvent,
  device,
  deviceDeadLetter,
  deviceDelivery,
  operationLog,
  site,
  touScheme,
} from '../src/core/db/schema';
import { call, type SignedIn, signIn } from './support/client';
import { addRole, addStaff, conforms, unique } from './support/fixtures';
import { addCompanyUnder } from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';

describe.each(engines)('moving devices and sites on %s', (engine) => {
  let ctx: TestContext;
  let platform: SignedIn;
  /** Customer companies: A with a sub-company A1, and B. */
  let A: number;
  let A1: number;
  let B: number;
  /** Administrators of A and of B. */
  let adminA: SignedIn;
  let adminB: SignedIn;

  const db = () => ctx.database.db;
  const code = (c: number) => ({ code: c, msg: errorMessage(c, 'zh'), data: null });
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  const api = (who: SignedIn, path: string, body: object): Promise<any> =>
    call(ctx.app, path, body, { token: who.token });
  const tag = () => unique('mv').replace(/[^A-Za-z0-9-]/g, '');

  async function addSite(companyId: number, name = tag()) {
    const [row] = await db()
      .insert(site)
      .values({ companyId, code: name.slice(-32), name })
      .returning({ id: site.id });
    return row!.id;
  }
  async function addDevice(siteId: number, gatewayId: number | null = null) {
    const [s] = await db().select({ companyId: site.companyId }).from(site).where(eq(site.id, siteId));
    const [row] = await db()
      .insert(device)
      .values({
        companyId: s!.companyId,
        siteId,
        gatewayId,
        sn: tag().slice(-40),
        type: gatewayId ? 'pcs' : 'ems',
      })
      .returning({ id: device.id, sn: device.sn });
    return row!;
  }
  /** An active alarm of the device (raised by an event), stamped with its site and company. */
  async function addAlarm(deviceId: number) {
    const [d] = await db().select().from(device).where(eq(device.id, deviceId));
    const where = {
      companyId: d!.companyId,
      siteId: d!.siteId,
      deviceId,
      gatewayId: d!.gatewayId ?? deviceId,
    };
    const ts = new Date();
    const [event] = await db()
      .insert(alarmEvent)
      .values({
        ...where,
        msgId: tag(),
        msgIndex: 0,
        ts,
        kind: 'produce',
        code: 'T1',
        level: 'fault',
        content: 'x',
      })
      .returning({ id: alarmEvent.id });
    const [row] = await db()
      .insert(alarm)
      .values({
        ...where,
        code: 'T1',
        level: 'fault',
        content: 'x',
        producedAt: ts,
        produceEventId: event!.id,
      })
      .returning({ id: alarm.id });
    return row!.id;
  }
  async function adminOf(companyId: number): Promise<SignedIn> {
    const staff = await addStaff(db(), {
      companyId,
      roleIds: [await addRole(db(), { companyId, isAdmin: true })],
    });
    return signIn(ctx.app, staff.account, staff.password);
  }
  const devicesOf = (ids: number[]) =>
    db()
      .select({
        id: device.id,
        siteId: device.siteId,
        companyId: device.companyId,
        gatewayId: device.gatewayId,
      })
      .from(device)
      .where(inArray(device.id, ids))
      .orderBy(device.id);
  const logRows = (action: string, targetId: number) =>
    db()
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, action), eq(operationLog.targetId, String(targetId))));

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    platform = await signIn(ctx.app);
    A = await addCompanyUnder(db(), { type: 'owner', parentId: platform.companyId });
    A1 = await addCompanyUnder(db(), { type: 'owner', parentId: A });
    B = await addCompanyUnder(db(), { type: 'owner', parentId: platform.companyId });
    adminA = await adminOf(A);
    adminB = await adminOf(B);
  });
  afterAll(async () => ctx?.close());

  describe('device/moveSite', () => {
    it('a gateway moves with the devices behind it, their alarms and dead letters, in one logged step', async () => {
      const from = await addSite(A);
      const to = await addSite(B);
      const gateway = await addDevice(from);
      const pcs = await addDevice(from, gateway.id);
      const bms = await addDevice(from, gateway.id);
      const alarmId = await addAlarm(pcs.id);
      await db().insert(deviceDeadLetter).values({
        companyId: A,
        siteId: from,
        gatewaySn: gateway.sn,
        kind: 'telemetry',
        payload: '{}',
        error: 'x',
      });
      expect((await api(adminA, endpoints.device.pageList.path, { siteId: from })).data.total).toBe(3);

      const moved = await api(platform, endpoints.device.moveSite.path, { id: gateway.id, siteId: to });
      expect(moved.code, moved.msg).toBe(0);
      expect(conforms(deviceMoveResponse, moved.data)).toEqual({
        fromSiteId: from,
        toSiteId: to,
        devices: [gateway, pcs, bms],
      });
      expect(await devicesOf([gateway.id, pcs.id, bms.id])).toEqual([
        { id: gateway.id, siteId: to, companyId: B, gatewayId: null },
        { id: pcs.id, siteId: to, companyId: B, gatewayId: gateway.id },
        { id: bms.id, siteId: to, companyId: B, gatewayId: gateway.id },
      ]);
      const [a] = await db().select().from(alarm).where(eq(alarm.id, alarmId));
      expect(a).toMatchObject({ siteId: to, companyId: B });
      const events = await db().select().from(alarmEvent).where(eq(alarmEvent.deviceId, pcs.id));
      expect(events.map((e) => [e.siteId, e.companyId])).toEqual([[to, B]]);
      const letters = await db()
        .select()
        .from(deviceDeadLetter)
        .where(eq(deviceDeadLetter.gatewaySn, gateway.sn));
      expect(letters.map((l) => [l.siteId, l.companyId])).toEqual([[to, B]]);

      // What each company sees: A nothing of them any more, B the devices, the alarm, their data.
      expect((await api(adminA, endpoints.device.pageList.path, { siteId: from })).data.total).toBe(0);
      expect(await api(adminA, endpoints.monitor.realtime.path, { deviceId: pcs.id })).toEqual(
        code(ErrorCode.DEVICE_NOT_FOUND),
      );
      const seen = await api(adminB, endpoints.device.pageList.path, { siteId: to });
      expect(seen.data.list.map((d: { sn: string }) => d.sn)).toEqual([gateway.sn, pcs.sn, bms.sn]);
      const alarmsB = await api(adminB, endpoints.alarm.activeList.path, { pageSize: 500 });
      expect(alarmsB.data.list.map((r: { id: number }) => r.id)).toContain(alarmId);
      const alarmsA = await api(adminA, endpoints.alarm.activeList.path, { pageSize: 500 });
      expect(alarmsA.data.list.map((r: { id: number }) => r.id)).not.toContain(alarmId);

      const [row] = await logRows('device.moveSite', gateway.id);
      expect(row).toMatchObject({
        targetType: 'device',
        code: 0,
        before: { siteId: from, companyId: A, gatewayId: null },
        after: { siteId: to, companyId: B, gatewayId: null, devices: [gateway.sn, pcs.sn, bms.sn] },
      });
    });

    it('a device behind a gateway moves only onto a gateway of the target site (3040)', async () => {
      const from = await addSite(A);
      const to = await addSite(A);
      const elsewhere = await addSite(A);
      const gateway = await addDevice(from);
      const target = await addDevice(to);
      const other = await addDevice(elsewhere);
      const meter = await addDevice(from, gateway.id);
      const before = await devicesOf([meter.id]);

      for (const body of [
        { id: meter.id, siteId: to },
        { id: meter.id, siteId: to, gatewayId: null },
        { id: meter.id, siteId: to, gatewayId: other.id },
        { id: meter.id, siteId: to, gatewayId: meter.id },
      ]) {
        const answer = await api(adminA, endpoints.device.moveSite.path, body);
        expect(answer.code, JSON.stringify(body)).toBe(ErrorCode.DEVICE_GATEWAY_ON_OTHER_SITE);
        expect(answer.msg).toContain('gatewayId');
      }
      expect(await devicesOf([meter.id])).toEqual(before);
      expect(await logRows('device.moveSite', meter.id)).toEqual([
        expect.objectContaining({ code: ErrorCode.DEVICE_GATEWAY_ON_OTHER_SITE }),
        expect.objectContaining({ code: ErrorCode.DEVICE_GATEWAY_ON_OTHER_SITE }),
        expect.objectContaining({ code: ErrorCode.DEVICE_GATEWAY_ON_OTHER_SITE }),
        expect.objectContaining({ code: ErrorCode.DEVICE_GATEWAY_ON_OTHER_SITE }),
      ]);

      const moved = await api(adminA, endpoints.device.moveSite.path, {
        id: meter.id,
        siteId: to,
        gatewayId: target.id,
      });
      expect(moved.code, moved.msg).toBe(0);
      expect(moved.data.devices).toEqual([meter]);
      expect(await devicesOf([meter.id, gateway.id])).toEqual([
        { id: gateway.id, siteId: from, companyId: A, gatewayId: null },
        { id: meter.id, siteId: to, companyId: A, gatewayId: target.id },
      ]);
      // A gateway moves as a gateway: it names no gateway.
      const asGateway = await api(adminA, endpoints.device.moveSite.path, {
        id: gateway.id,
        siteId: to,
        gatewayId: target.id,
      });
      expect(asGateway.code).toBe(ErrorCode.PARAM_ERROR);
      expect(asGateway.msg).toContain('gatewayId');
      // Already there.
      expect(await api(adminA, endpoints.device.moveSite.path, { id: gateway.id, siteId: from })).toEqual(
        code(ErrorCode.ALREADY_THERE),
      );
    });

    it('nothing moves into or out of a company the caller cannot see', async () => {
      const siteA = await addSite(A);
      const siteB = await addSite(B);
      const gwA = await addDevice(siteA);
      const gwB = await addDevice(siteB);
      // Into: B's site does not exist for A; out of: A's device does not exist for B.
      expect(await api(adminA, endpoints.device.moveSite.path, { id: gwA.id, siteId: siteB })).toEqual(
        code(ErrorCode.SITE_NOT_FOUND),
      );
      expect(await api(adminB, endpoints.device.moveSite.path, { id: gwA.id, siteId: siteB })).toEqual(
        code(ErrorCode.DEVICE_NOT_FOUND),
      );
      expect(await devicesOf([gwA.id, gwB.id])).toEqual([
        { id: gwA.id, siteId: siteA, companyId: A, gatewayId: null },
        { id: gwB.id, siteId: siteB, companyId: B, gatewayId: null },
      ]);
      // Within what it sees (its own company and its sub-company) A moves freely.
      const siteA1 = await addSite(A1);
      expect((await api(adminA, endpoints.device.moveSite.path, { id: gwA.id, siteId: siteA1 })).code).toBe(
        0,
      );
      expect(await devicesOf([gwA.id])).toEqual([
        { id: gwA.id, siteId: siteA1, companyId: A1, gatewayId: null },
      ]);
    });

    it('device/update keeps a device on its site: another siteId answers 3042 and changes nothing', async () => {
      const from = await addSite(A);
      const to = await addSite(A);
      const gateway = await addDevice(from);
      const body = { id: gateway.id, sn: gateway.sn, type: 'ems', model: 'EMS-2' };
      expect(await api(adminA, endpoints.device.update.path, { ...body, siteId: to })).toMatchObject({
        code: ErrorCode.MOVE_BY_ACTION,
      });
      const [unchanged] = await db().select().from(device).where(eq(device.id, gateway.id));
      expect(unchanged).toMatchObject({ siteId: from, model: null });
      expect((await api(adminA, endpoints.device.update.path, body)).code).toBe(0);
      expect((await api(adminA, endpoints.device.update.path, { ...body, siteId: from })).code).toBe(0);
      const [edited] = await db().select().from(device).where(eq(device.id, gateway.id));
      expect(edited).toMatchObject({ siteId: from, model: 'EMS-2' });
    });

    it('a moved gateway gets its new site’s ToU scheme again: both sites’ deliveries are pending', async () => {
      const from = await addSite(A);
      const to = await addSite(A);
      const [scheme] = await db()
        .insert(touScheme)
        .values({ companyId: A, name: tag(), document: validScheme() })
        .returning({ id: touScheme.id });
      await db()
        .update(site)
        .set({ touSchemeId: scheme!.id })
        .where(inArray(site.id, [from, to]));
      for (const siteId of [from, to]) {
        await db()
          .insert(deviceDelivery)
          .values({
            kind: 'tou',
            target: `site:${siteId}`,
            siteId,
            version: 1,
            desired: { schemeId: scheme!.id },
            state: 'applied',
          });
      }
      const gateway = await addDevice(from);
      expect((await api(adminA, endpoints.device.moveSite.path, { id: gateway.id, siteId: to })).code).toBe(
        0,
      );
      await ctx.app.touPush.settled();
      const rows = await db()
        .select({ siteId: deviceDelivery.siteId, state: deviceDelivery.state })
        .from(deviceDelivery)
        .where(inArray(deviceDelivery.siteId, [from, to]))
        .orderBy(deviceDelivery.siteId);
      expect(rows).toEqual([
        { siteId: from, state: 'pending' },
        { siteId: to, state: 'pending' },
      ]);
    });
  });

  describe('site/moveCompany', () => {
    /** A site of A with a gateway, a device behind it, an active and a cleared alarm and a dead letter. */
    async function furnishedSite(schemeCompany: number | null) {
      const id = await addSite(A);
      const gateway = await addDevice(id);
      const pcs = await addDevice(id, gateway.id);
      await addAlarm(pcs.id);
      const cleared = await addAlarm(gateway.id);
      await db().update(alarm).set({ clearedAt: new Date() }).where(eq(alarm.id, cleared));
      await db().insert(deviceDeadLetter).values({
        companyId: A,
        siteId: id,
        gatewaySn: gateway.sn,
        kind: 'event',
        payload: '{}',
        error: 'x',
      });
      let schemeId: number | null = null;
      if (schemeCompany !== null) {
        const [scheme] = await db()
          .insert(touScheme)
          .values({ companyId: schemeCompany, name: tag(), document: validScheme() })
          .returning({ id: touScheme.id, name: touScheme.name });
        schemeId = scheme!.id;
        await db().update(site).set({ touSchemeId: schemeId }).where(eq(site.id, id));
        await db()
          .insert(deviceDelivery)
          .values({
            kind: 'tou',
            target: `site:${id}`,
            siteId: id,
            version: 1,
            desired: { schemeId },
          });
      }
      return { id, gateway, pcs, schemeId };
    }
    const companiesOf = async (siteId: number) => ({
      site: (await db().select({ c: site.companyId }).from(site).where(eq(site.id, siteId))).map((r) => r.c),
      devices: (await db().select({ c: device.companyId }).from(device).where(eq(device.siteId, siteId))).map(
        (r) => r.c,
      ),
      alarms: (await db().select({ c: alarm.companyId }).from(alarm).where(eq(alarm.siteId, siteId))).map(
        (r) => r.c,
      ),
      events: (
        await db().select({ c: alarmEvent.companyId }).from(alarmEvent).where(eq(alarmEvent.siteId, siteId))
      ).map((r) => r.c),
      letters: (
        await db()
          .select({ c: deviceDeadLetter.companyId })
          .from(deviceDeadLetter)
          .where(eq(deviceDeadLetter.siteId, siteId))
      ).map((r) => r.c),
    });

    it('the preview says what follows and that a scheme the new company cannot run comes off; the move does it', async () => {
      const s = await furnishedSite(A);
      const preview = await api(platform, endpoints.site.moveCompanyPreview.path, { id: s.id, companyId: B });
      expect(preview.code, preview.msg).toBe(0);
      const expected: SiteMoveOutcome = {
        from: { id: A, name: expect.any(String) },
        to: { id: B, name: expect.any(String) },
        devices: 2,
        alarms: 2,
        activeAlarms: 1,
        touScheme: { id: s.schemeId!, name: expect.any(String), kept: false },
      };
      expect(conforms(siteMoveOutcome, preview.data)).toEqual(expected);
      // The preview changed nothing.
      expect(await companiesOf(s.id)).toEqual({
        site: [A],
        devices: [A, A],
        alarms: [A, A],
        events: [A, A],
        letters: [A],
      });
      expect(await logRows('site.moveCompany', s.id)).toEqual([]);

      const moved = await api(platform, endpoints.site.moveCompany.path, { id: s.id, companyId: B });
      expect(moved.code, moved.msg).toBe(0);
      expect(moved.data).toEqual(preview.data);
      expect(await companiesOf(s.id)).toEqual({
        site: [B],
        devices: [B, B],
        alarms: [B, B],
        events: [B, B],
        letters: [B],
      });
      const [after] = await db().select().from(site).where(eq(site.id, s.id));
      expect(after!.touSchemeId).toBeNull();
      expect(await db().select().from(deviceDelivery).where(eq(deviceDelivery.siteId, s.id))).toEqual([]);

      // B's administrator sees the site, its devices and its active alarm; A's nothing of it.
      const sitesB = await api(adminB, endpoints.site.pageList.path, { pageSize: 500 });
      expect(sitesB.data.list.map((r: { id: number }) => r.id)).toContain(s.id);
      const sitesA = await api(adminA, endpoints.site.pageList.path, { pageSize: 500 });
      expect(sitesA.data.list.map((r: { id: number }) => r.id)).not.toContain(s.id);
      expect((await api(adminB, endpoints.device.pageList.path, { siteId: s.id })).data.total).toBe(2);
      expect(await api(adminA, endpoints.monitor.realtime.path, { deviceId: s.pcs.id })).toEqual(
        code(ErrorCode.DEVICE_NOT_FOUND),
      );

      const [row] = await logRows('site.moveCompany', s.id);
      expect(row).toMatchObject({
        targetType: 'site',
        code: 0,
        companyId: platform.companyId,
        before: { companyId: A, touSchemeId: s.schemeId },
        after: {
          companyId: B,
          touSchemeId: null,
          devices: 2,
          alarms: 2,
          touSchemeRemoved: expect.any(String),
        },
      });
    });

    it('a scheme of a company above the new one stays', async () => {
      const s = await furnishedSite(A);
      const moved = await api(adminA, endpoints.site.moveCompany.path, { id: s.id, companyId: A1 });
      expect(moved.code, moved.msg).toBe(0);
      expect(moved.data.touScheme).toEqual({ id: s.schemeId, name: expect.any(String), kept: true });
      const [after] = await db().select().from(site).where(eq(site.id, s.id));
      expect(after).toMatchObject({ companyId: A1, touSchemeId: s.schemeId });
      expect(await db().select().from(deviceDelivery).where(eq(deviceDelivery.siteId, s.id))).toHaveLength(1);
    });

    it('refuses what the caller cannot see, a move to where it is, and a company change through site/update', async () => {
      const s = await furnishedSite(null);
      const before = await companiesOf(s.id);
      for (const path of [endpoints.site.moveCompanyPreview.path, endpoints.site.moveCompany.path]) {
        // Into a company A cannot see; out of a company B cannot see.
        expect(await api(adminA, path, { id: s.id, companyId: B })).toEqual(
          code(ErrorCode.COMPANY_NOT_FOUND),
        );
        expect(await api(adminB, path, { id: s.id, companyId: B })).toEqual(code(ErrorCode.SITE_NOT_FOUND));
        expect(await api(adminA, path, { id: s.id, companyId: A })).toEqual(code(ErrorCode.ALREADY_THERE));
        expect(await api(adminA, path, { id: s.id, companyId: 999_999 })).toEqual(
          code(ErrorCode.COMPANY_NOT_FOUND),
        );
      }
      const [row] = await db().select().from(site).where(eq(site.id, s.id));
      const edit = { id: s.id, code: row!.code, name: 'renamed' };
      expect(await api(platform, endpoints.site.update.path, { ...edit, companyId: B })).toMatchObject({
        code: ErrorCode.MOVE_BY_ACTION,
      });
      expect(await companiesOf(s.id)).toEqual(before);
      expect((await db().select().from(site).where(eq(site.id, s.id)))[0]!.name).toBe(row!.name);
      expect((await api(platform, endpoints.site.update.path, { ...edit, companyId: A })).code).toBe(0);
      expect((await db().select().from(site).where(eq(site.id, s.id)))[0]!.name).toBe('renamed');
    });
  });

  it('the platform creates a site in a customer company, whose administrator then sees it', async () => {
    const name = tag();
    const created = await api(platform, endpoints.site.save.path, {
      code: name.slice(-32),
      name,
      companyId: B,
    });
    expect(created.code, created.msg).toBe(0);
    const list = await api(adminB, endpoints.site.pageList.path, { keyword: name });
    expect(list.data.list).toEqual([expect.objectContaining({ id: created.data.id, companyId: B, name })]);
    // A customer cannot create one in a company it does not see.
    expect(
      await api(adminA, endpoints.site.save.path, { code: tag().slice(-32), name, companyId: B }),
    ).toEqual(code(ErrorCode.COMPANY_NOT_FOUND));
  });
});
