/**
 * The endpoint table (endpoints.ts): one entry per `/api-bms/*` call,
 * with permissions from `Perm` and audit actions from the closed vocabulary.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { COMPANY_KINDS } from '../src/api/organisation';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '../src/audit-vocabulary';
import {
  ALL_ENDPOINTS,
  COMPANY_KIND_ENDPOINTS,
  type Endpoint,
  type EndpointBody,
  type EndpointRequest,
  type EndpointResponse,
  endpoints,
  envelopeFor,
  exportEndpoints,
  touEndpoints,
  userEndpoints,
} from '../src/endpoints';
import * as contract from '../src/index';
import { Perm } from '../src/permissions';

/**
 * Permissions that guard no call: held only so that a menu row or button shows. Each needs a
 * reason; today every `Perm` guards at least one call, so the list is empty.
 */
const MENU_ONLY_PERMISSIONS: Readonly<Record<string, string>> = {};

const accessKinds = (e: Endpoint) => Object.keys(e.access);
const where = (e: Endpoint) => e.path;

describe('the endpoint table', () => {
  it('holds every call the server answers today (155: 139 fixed, 16 of the four company kinds)', () => {
    expect(ALL_ENDPOINTS).toHaveLength(155);
  });

  it('gives every call a unique path under /api-bms/', () => {
    const paths = ALL_ENDPOINTS.map((e) => e.path);
    for (const path of paths) expect(path).toMatch(/^\/api-bms\/[A-Za-z]+(\/[A-Za-z]+)+$/);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('lists in ALL_ENDPOINTS exactly the entries of endpoints.<area>.<call>', () => {
    const nested = Object.values(endpoints).flatMap((area) => Object.values(area));
    expect(new Set(ALL_ENDPOINTS)).toEqual(new Set(nested));
  });

  it('declares exactly one kind of access per call', () => {
    for (const e of ALL_ENDPOINTS) expect(accessKinds(e), where(e)).toHaveLength(1);
  });

  it('uses only permissions of Perm', () => {
    const known = new Set<string>(Object.values(Perm));
    for (const e of ALL_ENDPOINTS) {
      if ('permission' in e.access) expect(known.has(e.access.permission), where(e)).toBe(true);
    }
  });

  it('uses every Perm value, or lists it as menu-only with a reason', () => {
    const used = new Set(
      ALL_ENDPOINTS.flatMap((e) => ('permission' in e.access ? [e.access.permission] : [])),
    );
    const unused = Object.values(Perm).filter((p) => !used.has(p) && !(p in MENU_ONLY_PERMISSIONS));
    expect(unused).toEqual([]);
    for (const [permission, reason] of Object.entries(MENU_ONLY_PERMISSIONS)) {
      expect(used.has(permission as never), `${permission} guards a call: not menu-only`).toBe(false);
      expect(reason.trim()).not.toBe('');
    }
  });

  it('leaves public only the sign-in handshake and the public cockpit', () => {
    const open = ALL_ENDPOINTS.filter((e) => 'public' in e.access).map((e) => e.path);
    expect(open.sort()).toEqual(
      [
        endpoints.user.login.path,
        endpoints.user.getUserInfo.path,
        endpoints.user.refreshToken.path,
        endpoints.screen.cockpitPublic.path,
      ].sort(),
    );
  });

  it('records only actions and target types of the audit vocabulary, and uses all of them', () => {
    const actions = new Set(AUDIT_ACTIONS);
    const targets = new Set(AUDIT_TARGET_TYPES);
    const usedActions = new Set<string>();
    const usedTargets = new Set<string>();
    for (const e of ALL_ENDPOINTS) {
      if (!e.audit) continue;
      expect(actions.has(e.audit.action), where(e)).toBe(true);
      expect(targets.has(e.audit.targetType), where(e)).toBe(true);
      usedActions.add(e.audit.action);
      usedTargets.add(e.audit.targetType);
    }
    expect([...actions].filter((a) => !usedActions.has(a))).toEqual([]);
    expect([...targets].filter((t) => !usedTargets.has(t))).toEqual([]);
  });

  it('records each action on one call only, except the company kinds’ shared verbs', () => {
    const seen = new Map<string, string>();
    for (const e of ALL_ENDPOINTS) {
      if (!e.audit) continue;
      expect(seen.get(e.audit.action), `${e.audit.action} on ${e.path}`).toBeUndefined();
      seen.set(e.audit.action, e.path);
    }
  });

  it('audits every call that changes something (save, update, delete, status, …)', () => {
    const writes =
      /\/(save|update|delete|status|copy|ack|assign|push|resetPassword|resetSecret|assignDevices|unassignDevices|updatePassword|updateEmail|login|loginOut|acceptInvitation|declineInvitation|moveSite|moveCompany|set|retry|initialize|open|send|close|upload|publish|disable|create|cancel|pause|resume|recover|trigger|draft|confirm|correct|changeStatus|bindSites|unbindSite|recordMeterSwap|deleteMeterSwap)$/;
    for (const e of ALL_ENDPOINTS) expect(Boolean(e.audit), where(e)).toBe(writes.test(e.path));
  });

  it('gives every call a summary, tags and an object body', () => {
    for (const e of ALL_ENDPOINTS) {
      expect(e.summary.trim(), where(e)).not.toBe('');
      expect(e.tags.length, where(e)).toBeGreaterThan(0);
      expect(e.request, where(e)).toBeInstanceOf(z.ZodType);
      expect(e.request.safeParse('not an object').success, where(e)).toBe(false);
    }
  });

  it('exports each area on its own as `<area>Endpoints` (the console imports only those it calls)', () => {
    const exported = contract as unknown as Record<string, unknown>;
    for (const [area, calls] of Object.entries(endpoints)) {
      expect(exported[`${area}Endpoints`], area).toBe(calls);
    }
    expect(touEndpoints).toBe(endpoints.tou);
    expect(userEndpoints).toBe(endpoints.user);
    expect(exportEndpoints).toBe(endpoints.export);
    for (const kind of COMPANY_KINDS) expect(COMPANY_KIND_ENDPOINTS[kind]).toBe(endpoints[kind]);
  });

  it('answers a file only for export.xlsx and bill.exportXlsx', () => {
    expect(ALL_ENDPOINTS.filter((e) => e.file).map((e) => e.path)).toEqual([
      endpoints.export.xlsx.path,
      endpoints.bill.exportXlsx.path,
    ]);
  });

  it('streams an upload only for firmware.upload, whose request is its query string', () => {
    expect(ALL_ENDPOINTS.filter((e) => e.upload).map((e) => e.path)).toEqual([
      endpoints.firmware.upload.path,
    ]);
    expect(endpoints.firmware.upload.upload).toEqual({
      mime: 'application/octet-stream',
      maxBytes: 256 * 1024 * 1024,
    });
    const query = Object.fromEntries(
      new URLSearchParams(
        contract.firmwareUploadQuery({
          name: '储能EMS固件',
          version: '2.4.1',
          deviceType: 'ems',
          models: ['EMS-100', ' EMS-200 ', 'EMS-100'],
          releaseNoteZh: '修复若干问题',
          fileName: 'ems-2.4.1.bin',
          sha256: 'A'.repeat(64),
        }),
      ),
    );
    expect(endpoints.firmware.upload.request.parse(query)).toEqual({
      name: '储能EMS固件',
      version: '2.4.1',
      deviceType: 'ems',
      models: ['EMS-100', 'EMS-200'],
      releaseNoteZh: '修复若干问题',
      releaseNoteEn: null,
      fileName: 'ems-2.4.1.bin',
      sha256: 'a'.repeat(64),
    });
    const bad = endpoints.firmware.upload.request.safeParse({ ...query, version: '2.4 beta' });
    expect(bad.success && 'accepted').toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['version']);
  });

  it('builds the company kinds’ calls with their own path, permission and action', () => {
    for (const kind of COMPANY_KINDS) {
      const calls = endpoints[kind];
      expect(calls.pageList.path).toBe(`/api-bms/${kind}/pageList`);
      expect(calls.pageList.access).toEqual({ permission: `org:${kind}:list` });
      expect(calls.update.access).toEqual({ permission: `org:${kind}:save` });
      expect(calls.status.access).toEqual({ permission: `org:${kind}:status` });
      expect(calls.save.audit).toEqual({ action: `${kind}.save`, targetType: 'company' });
    }
  });

  it('wraps the response in the envelope, with data null on errors', () => {
    const envelope = envelopeFor(endpoints.tou.save);
    expect(envelope.safeParse({ code: 0, msg: 'ok', data: { id: 7 } }).success).toBe(true);
    expect(envelope.safeParse({ code: 3091, msg: 'exists', data: null }).success).toBe(true);
    expect(envelope.safeParse({ code: 0, msg: 'ok', data: { id: 'x' } }).success).toBe(false);
  });
});

describe('endpoint types', () => {
  it('infers the answer and the body of a call', () => {
    expectTypeOf<EndpointResponse<typeof endpoints.tou.save>>().toEqualTypeOf<{ id: number }>();
    expectTypeOf<EndpointResponse<typeof endpoints.tou.delete>>().toEqualTypeOf<null>();
    expectTypeOf<EndpointRequest<typeof endpoints.tou.save>>().toHaveProperty('document');
    expectTypeOf<EndpointRequest<typeof endpoints.tou.save>['name']>().toEqualTypeOf<string>();
    // Defaults may be left out by the client and are filled in for the handler.
    expectTypeOf<EndpointRequest<typeof endpoints.site.pageList>['pageSize']>().toEqualTypeOf<
      number | undefined
    >();
    expectTypeOf<EndpointBody<typeof endpoints.site.pageList>['pageSize']>().toEqualTypeOf<number>();
    expectTypeOf<EndpointResponse<typeof endpoints.site.pageList>['total']>().toEqualTypeOf<number>();
    expectTypeOf(endpoints.agent.pageList.path).toEqualTypeOf<'/api-bms/agent/pageList'>();
    expectTypeOf(endpoints.tou.push.path).toEqualTypeOf<'/api-bms/tou/push'>();
  });
});
