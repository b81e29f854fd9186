/**
 * Device parameters of the console (issue 15, `/paramsconfig`; contract api/params.ts): the
 * device tree, one device's shadow (desired beside reported, per-key state), changes, copies,
 * history and a site's one-time initialization. The SQL of the shadow is devices/params-store.ts,
 * sending devices/params-push.ts.
 *
 * Every call sees only devices and sites of the caller's company scope (access/company-scope.ts,
 * through the device's and the site's `company_id`): any other answers 3030 / 3036, as if absent.
 *
 * Changes are checked with the contract's `validateParams` (params/validate.ts), partial, over
 * the device's values as they will be — reported, then desired, then the change — so that a rule
 * between parameters sees both sides; an issue about a changed key, or a rule a changed key takes
 * part in, answers -100 with `<key>: <the issue's text in the caller's language>`, and nothing
 * is stored. Unknown keys: the same (paramUnknown).
 */
import {
  DELIVERY_STATES,
  type DeliveryState,
  type DeviceType,
  defaultParams,
  ErrorCode,
  type ErrorCodeValue,
  errorMessage,
  type Lang,
  nextParamsVersion,
  PARAM_SCHEMAS,
  type ParamChangeRow,
  type ParamChangeSource,
  type ParamRow,
  type ParamState,
  type ParamsDeviceResponse,
  type ParamsTreeSite,
  type ParamValue,
  paramDefs,
  paramIssueText,
  validateParams,
} from '@ess/contract';
import { and, asc, count, desc, eq, ilike, inArray, or } from 'drizzle-orm';
import { type CompanyScope, inScope, requireSiteInScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import {
  company,
  device,
  deviceDelivery,
  deviceParamKey,
  deviceParams,
  employee,
  paramChange,
  site,
  siteParamsInit,
} from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';
import { deliveryMessage, siteGateway, type Tx } from '../../devices/delivery';
import type { DeviceService } from '../../devices/device-service';
import { PARAMS_KIND, type ParamsPushService, paramsTarget } from '../../devices/params-push';
import { type ChangeAuthor, desiredOf, ensureShadow, keysOf, storeChanges } from '../../devices/params-store';

/** Keys never copied between devices: the EMS's network, MQTT and time zone, a meter's bus address. */
export const NOT_COPIED_GROUPS = new Set(['time', 'network', 'mqtt']);
export const NOT_COPIED_KEYS = new Set(['modbus_address']);

/** Groups of the EMS that `initialize` writes as its network settings. */
const INITIALIZE_NETWORK_GROUPS = new Set(['network', 'mqtt']);

/** Keys of `type` that a copy may carry. */
export function copyableKeys(type: DeviceType): Set<string> {
  return new Set(
    paramDefs(type)
      .filter((d) => !NOT_COPIED_GROUPS.has(d.group) && !NOT_COPIED_KEYS.has(d.key))
      .map((d) => d.key),
  );
}

const hasParams = (type: string): boolean => (PARAM_SCHEMAS[type as DeviceType] ?? []).length > 0;
const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

type DeviceRecord = typeof device.$inferSelect;

/** Why a change waits: 3033 the gateway never connected, 3034 it is offline; null: it goes out now. */
export type Waiting = 3033 | 3034 | null;

export class ParamsService {
  constructor(
    private readonly db: Db,
    private readonly push: ParamsPushService,
    private readonly devices: () => DeviceService | null,
  ) {}

  // ---- reading -------------------------------------------------------------------------------

  /** The device if it is in `scope` (3030 otherwise). */
  async requireDevice(scope: CompanyScope, deviceId: number): Promise<DeviceRecord> {
    const [row] = await this.db
      .select()
      .from(device)
      .where(and(eq(device.id, deviceId), inScope(scope, device.companyId)));
    if (!row) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
    return row;
  }

  /** The gateway a device is reached through (itself for a gateway); 3031 when there is none. */
  async gatewayOf(d: DeviceRecord): Promise<DeviceRecord> {
    if (d.gatewayId === null) return d;
    const [gw] = await this.db.select().from(device).where(eq(device.id, d.gatewayId));
    if (!gw) throw new ApiError(ErrorCode.DEVICE_NO_MQTT_CONFIG);
    return gw;
  }

  private online(gateway: Pick<DeviceRecord, 'id' | 'online'>): boolean {
    const devices = this.devices();
    return devices ? devices.tracker.isOnline(gateway.id) : gateway.online;
  }

  /** 3033 never connected, 3034 offline, null online. */
  waitingOf(gateway: Pick<DeviceRecord, 'id' | 'online' | 'lastSeenAt'>): Waiting {
    if (this.online(gateway)) return null;
    return gateway.lastSeenAt === null ? ErrorCode.DEVICE_NOT_CONNECTED : ErrorCode.DEVICE_OFFLINE;
  }

  /** Sites of the scope with their devices that have parameters (gateway first). */
  async tree(scope: CompanyScope, keyword?: string): Promise<{ sites: ParamsTreeSite[] }> {
    const like = keyword ? `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    const rows = await this.db
      .select({
        device,
        siteName: site.name,
        timezone: site.timezone,
        companyName: company.name,
        initializedAt: siteParamsInit.initializedAt,
      })
      .from(device)
      .innerJoin(site, eq(site.id, device.siteId))
      .innerJoin(company, eq(company.id, site.companyId))
      .leftJoin(siteParamsInit, eq(siteParamsInit.siteId, site.id))
      .where(
        and(
          inScope(scope, device.companyId),
          like ? or(ilike(site.name, like), ilike(device.sn, like), ilike(site.code, like)) : undefined,
        ),
      )
      .orderBy(asc(site.name), asc(site.id), asc(device.id));
    const withParams = rows.filter((r) => hasParams(r.device.type));
    const ids = withParams.map((r) => r.device.id);
    const keys = ids.length
      ? await this.db
          .select({ deviceId: deviceParamKey.deviceId, state: deviceParamKey.state })
          .from(deviceParamKey)
          .where(inArray(deviceParamKey.deviceId, ids))
      : [];
    const gatewayIds = [...new Set(withParams.map((r) => r.device.gatewayId ?? r.device.id))];
    const gateways = gatewayIds.length
      ? await this.db
          .select({ id: device.id, online: device.online })
          .from(device)
          .where(inArray(device.id, gatewayIds))
      : [];
    const gatewayById = new Map(gateways.map((g) => [g.id, g]));
    const sites = new Map<number, ParamsTreeSite>();
    for (const r of withParams) {
      const d = r.device;
      let s = sites.get(d.siteId);
      if (!s) {
        s = {
          siteId: d.siteId,
          siteName: r.siteName,
          companyName: r.companyName,
          timezone: r.timezone,
          initializedAt: iso(r.initializedAt),
          devices: [],
        };
        sites.set(d.siteId, s);
      }
      const mine = keys.filter((k) => k.deviceId === d.id);
      const gw = gatewayById.get(d.gatewayId ?? d.id);
      s.devices.push({
        deviceId: d.id,
        sn: d.sn,
        type: d.type as DeviceType,
        model: d.model,
        gatewayId: d.gatewayId,
        online: gw ? this.online(gw) : false,
        outOfSync: mine.filter((k) => k.state !== 'in_sync' && k.state !== 'applied').length,
        drift: mine.some((k) => k.state === 'drift'),
      });
    }
    for (const s of sites.values())
      s.devices.sort(
        (a, b) => Number(a.gatewayId !== null) - Number(b.gatewayId !== null) || a.deviceId - b.deviceId,
      );
    return { sites: [...sites.values()] };
  }

  /** One device's shadow (3030 outside the scope). */
  async detail(scope: CompanyScope, deviceId: number): Promise<ParamsDeviceResponse> {
    const d = await this.requireDevice(scope, deviceId);
    return this.shadowOf(d);
  }

  private async shadowOf(d: DeviceRecord): Promise<ParamsDeviceResponse> {
    const type = d.type as DeviceType;
    const [s] = await this.db
      .select({ name: site.name, timezone: site.timezone })
      .from(site)
      .where(eq(site.id, d.siteId));
    // One snapshot for the shadow, its keys and the delivery: read one after the other, an answer
    // committed between them showed a key 'applied' beside the reported values from before it
    // (no value) on PostgreSQL.
    const { shadow, keys, row } = await this.db.transaction(
      async (tx) => {
        const [shadow] = await tx.select().from(deviceParams).where(eq(deviceParams.deviceId, d.id));
        const keys = new Map((await keysOf(tx, d.id)).map((k) => [k.key, k]));
        const [row] = await tx
          .select()
          .from(deviceDelivery)
          .where(and(eq(deviceDelivery.kind, PARAMS_KIND), eq(deviceDelivery.target, `device:${d.id}`)));
        return { shadow, keys, row };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    const gw =
      d.gatewayId === null ? d : (await this.db.select().from(device).where(eq(device.id, d.gatewayId)))[0];
    const reported = shadow?.reported ?? {};
    const defs = paramDefs(type);
    const known = new Set(defs.map((x) => x.key));
    const params: ParamRow[] = defs.map((def) => {
      const k = keys.get(def.key);
      return {
        key: def.key,
        desired: k?.desired ?? null,
        reported: reported[def.key] ?? null,
        state: (k?.state ?? 'in_sync') as ParamState,
        reason: k?.reason ?? null,
        messageKey: k?.messageKey ?? null,
        messageParams: k?.messageParams ?? null,
        changedAt: iso(k?.changedAt),
      };
    });
    const extra: Record<string, ParamValue> = {};
    for (const [k, v] of Object.entries(reported)) if (!known.has(k)) extra[k] = v;
    const message = row ? deliveryMessage(row, this.push.delivery.retryAfterMs) : null;
    return {
      deviceId: d.id,
      sn: d.sn,
      type,
      model: d.model,
      siteId: d.siteId,
      siteName: s?.name ?? '',
      timezone: s?.timezone ?? 'Asia/Shanghai',
      online: gw ? this.online(gw) : false,
      version: shadow?.version ?? 0,
      reportedVersion: shadow?.reportedVersion ?? null,
      reportedAt: iso(shadow?.reportedAt),
      delivery: message
        ? {
            state: (DELIVERY_STATES.includes(message.state) ? message.state : 'pending') as DeliveryState,
            attempt: message.attempt,
            sentAt: message.sentAt,
            reason: message.reason,
            retryAt: message.retryAt,
          }
        : null,
      params,
      extra,
    };
  }

  /** A device's history, newest first (3030 outside the scope). */
  async history(
    scope: CompanyScope,
    q: { deviceId: number; pageNum: number; pageSize: number },
  ): Promise<{ list: ParamChangeRow[]; total: number }> {
    await this.requireDevice(scope, q.deviceId);
    const where = eq(paramChange.deviceId, q.deviceId);
    const [{ total } = { total: 0 }] = await this.db
      .select({ total: count() })
      .from(paramChange)
      .where(where);
    const rows = await this.db
      .select({ c: paramChange, name: employee.name })
      .from(paramChange)
      .leftJoin(employee, eq(employee.id, paramChange.employeeId))
      .where(where)
      .orderBy(desc(paramChange.at), desc(paramChange.id))
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    return {
      total: Number(total),
      list: rows.map(({ c, name }) => ({
        id: c.id,
        at: c.at.toISOString(),
        by: c.source === 'device' ? null : (name ?? c.byName),
        source: c.source as ParamChangeSource,
        key: c.key,
        oldValue: c.oldValue ?? null,
        newValue: c.newValue ?? null,
        version: c.version,
        outcome: (c.outcome as ParamChangeRow['outcome']) ?? null,
        reason: c.reason,
        answeredAt: iso(c.answeredAt),
      })),
    };
  }

  // ---- changing ------------------------------------------------------------------------------

  /**
   * The first issue of `changes` for a device of `type` whose values are `current` (reported
   * overlaid with desired), as -100 naming the key in `lang`; undefined when they may be stored.
   */
  static issueOf(
    type: DeviceType,
    current: Readonly<Record<string, ParamValue>>,
    changes: Readonly<Record<string, ParamValue>>,
    lang: Lang,
  ): ApiError | undefined {
    const known = new Set(paramDefs(type).map((d) => d.key));
    const merged: Record<string, ParamValue> = {};
    for (const [k, v] of Object.entries(current)) if (known.has(k)) merged[k] = v;
    Object.assign(merged, changes);
    const changed = (k: string) => Object.hasOwn(changes, k);
    const issue = validateParams(type, merged, { partial: true }).find(
      (i) => changed(i.key) || (i.related ?? []).some(changed),
    );
    if (!issue) return undefined;
    return new ApiError(ErrorCode.PARAM_ERROR, {}, `${issue.key}: ${paramIssueText(type, issue, lang)}`);
  }

  /** Author of a change: the caller's employee and name. */
  async authorOf(employeeId: number): Promise<ChangeAuthor> {
    const [e] = await this.db
      .select({ name: employee.name })
      .from(employee)
      .where(eq(employee.id, employeeId));
    return { employeeId, name: e?.name ?? null };
  }

  /**
   * Validates and stores `changes` of device `d` at its next version, in one transaction (the
   * shadow row locked): answers the version. -100 naming the key when a rule is broken.
   */
  private async storeChange(
    tx: Tx,
    d: DeviceRecord,
    changes: Readonly<Record<string, ParamValue>>,
    source: ParamChangeSource,
    author: ChangeAuthor,
    lang: Lang,
  ): Promise<number> {
    const shadow = await ensureShadow(tx, d.id, true);
    const keys = await keysOf(tx, d.id);
    const current = { ...shadow.reported, ...desiredOf(keys) };
    const issue = ParamsService.issueOf(d.type as DeviceType, current, changes, lang);
    if (issue) throw issue;
    const version = nextParamsVersion(shadow.version, shadow.reportedVersion);
    await storeChanges(tx, shadow, version, changes, source, author, new Date());
    return version;
  }

  /**
   * The operator's change of one device: stored (pending) and sent in the background. Answers
   * the version, why it waits (3033/3034) and the device. Errors: 3030, 3031, -100.
   */
  async set(
    scope: CompanyScope,
    input: { deviceId: number; values: Record<string, ParamValue> },
    author: ChangeAuthor,
    lang: Lang,
  ) {
    const d = await this.requireDevice(scope, input.deviceId);
    const gateway = await this.gatewayOf(d);
    const before = await this.currentValues(d.id, Object.keys(input.values));
    const version = await this.db.transaction((tx) =>
      this.storeChange(tx, d, input.values, 'operator', author, lang),
    );
    this.push.changed([paramsTarget(d.siteId, d.id)]);
    return { version, waiting: this.waitingOf(gateway), device: await this.shadowOf(d), before };
  }

  /** Desired (else reported) values of `keys` of a device: the audit's "before". */
  private async currentValues(deviceId: number, keys: readonly string[]) {
    const [shadow] = await this.db.select().from(deviceParams).where(eq(deviceParams.deviceId, deviceId));
    const desired = desiredOf(await keysOf(this.db, deviceId));
    const out: Record<string, ParamValue | null> = {};
    for (const k of keys) out[k] = desired[k] ?? shadow?.reported[k] ?? null;
    return out;
  }

  /**
   * Reads the device (`get_params`) and answers its shadow. Errors: 3030, 3031, 3033 never
   * connected, 3034 offline, 3035 no answer, refused or malformed.
   */
  async read(scope: CompanyScope, deviceId: number): Promise<ParamsDeviceResponse> {
    const d = await this.requireDevice(scope, deviceId);
    const gateway = await this.gatewayOf(d);
    const waiting = this.waitingOf(gateway);
    if (waiting !== null) throw new ApiError(waiting);
    await this.push.read(gateway.sn, d);
    return this.shadowOf(d);
  }

  /**
   * Sends the device's outstanding changes now and waits for the answer. Errors: 3030, 3031,
   * 3048 nothing outstanding, 3033, 3034 (kept for the reconnect), 3035.
   */
  async retry(scope: CompanyScope, deviceId: number): Promise<ParamsDeviceResponse> {
    const d = await this.requireDevice(scope, deviceId);
    await this.gatewayOf(d);
    const outstanding = await this.db
      .select({ key: deviceParamKey.key })
      .from(deviceParamKey)
      .where(
        and(eq(deviceParamKey.deviceId, d.id), inArray(deviceParamKey.state, ['pending', 'sent', 'timeout'])),
      )
      .limit(1);
    if (outstanding.length === 0) throw new ApiError(ErrorCode.PARAMS_NOTHING_TO_SEND);
    await this.push.sendNow(paramsTarget(d.siteId, d.id));
    return this.shadowOf(d);
  }

  /**
   * Copies the source's desired values (or those of `keys`; never network, MQTT, time zone or
   * bus address) to each target as its change (source 'copy'): one result per target, in the
   * order asked. Errors of the call: 3030 the source. Per target: 0, 3030, 3047, 3048 nothing to
   * copy, -100.
   */
  async copy(
    scope: CompanyScope,
    input: { fromDeviceId: number; toDeviceIds: number[]; keys?: string[] | undefined },
    author: ChangeAuthor,
    lang: Lang,
  ) {
    const from = await this.requireDevice(scope, input.fromDeviceId);
    const type = from.type as DeviceType;
    const allowed = copyableKeys(type);
    const desired = desiredOf(await keysOf(this.db, from.id));
    const values: Record<string, ParamValue> = {};
    for (const [k, v] of Object.entries(desired))
      if (allowed.has(k) && (!input.keys || input.keys.includes(k))) values[k] = v;
    const results = [];
    const targets = [];
    for (const toId of input.toDeviceIds) {
      const fail = (code: ErrorCodeValue, sn: string | null, detail?: string) => ({
        deviceId: toId,
        sn,
        code,
        msg: `${errorMessage(code, lang)}${detail ? `${lang === 'zh' ? '：' : ': '}${detail}` : ''}`,
        version: null,
        waiting: null,
      });
      let to: DeviceRecord;
      try {
        to = await this.requireDevice(scope, toId);
      } catch (err) {
        results.push(fail((err as ApiError).code, null));
        continue;
      }
      if (to.id === from.id || to.type !== from.type || (to.model ?? null) !== (from.model ?? null)) {
        results.push(fail(ErrorCode.PARAMS_MODEL_MISMATCH, to.sn));
        continue;
      }
      if (Object.keys(values).length === 0) {
        results.push(fail(ErrorCode.PARAMS_NOTHING_TO_SEND, to.sn));
        continue;
      }
      try {
        const gateway = await this.gatewayOf(to);
        const version = await this.db.transaction((tx) =>
          this.storeChange(tx, to, values, 'copy', author, lang),
        );
        targets.push(paramsTarget(to.siteId, to.id));
        results.push({
          deviceId: to.id,
          sn: to.sn,
          code: 0,
          msg: lang === 'zh' ? '操作成功' : 'Success',
          version,
          waiting: this.waitingOf(gateway),
        });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        results.push(fail(err.code, to.sn, err.detail));
      }
    }
    this.push.changed(targets);
    return { results, copied: Object.keys(values) };
  }

  /**
   * Commissions a site once (3049 the second time): records the initialization, stores the
   * defaults of every device of the site with parameters as a change (source 'initialize'), and
   * sends `initialize` {time zone, network} to the gateway — now when online, else at its next
   * connection. Errors: 3036, 3031 no gateway, 3049, -100 a network value broken.
   */
  async initialize(
    scope: CompanyScope,
    input: { siteId: number; network?: Record<string, ParamValue> | undefined },
    author: ChangeAuthor,
    lang: Lang,
  ) {
    const s = await requireSiteInScope(this.db, scope, input.siteId);
    const network = input.network ?? {};
    const networkKeys = new Set(
      paramDefs('ems')
        .filter((d) => INITIALIZE_NETWORK_GROUPS.has(d.group))
        .map((d) => d.key),
    );
    for (const key of Object.keys(network)) {
      if (!networkKeys.has(key)) {
        const issue = { key, messageKey: 'paramUnknown' as const, params: { key } };
        throw new ApiError(ErrorCode.PARAM_ERROR, {}, `${key}: ${paramIssueText('ems', issue, lang)}`);
      }
    }
    const networkIssue = ParamsService.issueOf('ems', {}, network, lang);
    if (networkIssue) throw networkIssue;
    const devices = await this.db
      .select()
      .from(device)
      .where(eq(device.siteId, s.id))
      .orderBy(asc(device.id));
    const gateway = siteGateway(devices.filter((d) => d.gatewayId === null));
    if (!gateway) throw new ApiError(ErrorCode.DEVICE_NO_MQTT_CONFIG);
    const at = new Date();
    const stored = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(siteParamsInit)
        .values({ siteId: s.id, initializedAt: at, employeeId: author.employeeId, network })
        .onConflictDoNothing()
        .returning();
      if (!row) throw new ApiError(ErrorCode.INITIALIZATION_DONE);
      const changed: DeviceRecord[] = [];
      for (const d of devices) {
        if (!hasParams(d.type)) continue;
        const defaults = defaultParams(d.type as DeviceType);
        if (Object.keys(defaults).length === 0) continue;
        const shadow = await ensureShadow(tx, d.id, true);
        const version = nextParamsVersion(shadow.version, shadow.reportedVersion);
        await storeChanges(tx, shadow, version, defaults, 'initialize', author, at);
        changed.push(d);
      }
      return changed;
    });
    this.push.changed(stored.map((d) => paramsTarget(d.siteId, d.id)));
    const waiting = this.waitingOf(gateway);
    if (waiting === null) this.push.initializeWhenDue(s.id);
    return { initializedAt: at.toISOString(), devices: stored.length, waiting };
  }
}

/** Devices with parameters: the schema of the type has at least one group. */
export { hasParams };
