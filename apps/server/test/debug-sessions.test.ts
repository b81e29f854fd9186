/**
 * Transparent debugging through the API (`/api-bms/debug/*`, issue 15 item 5) with a fake
 * gateway on the test server's embedded broker (or TEST_MQTT_URL) that answers `debug_frame` as
 * an EMS relaying to a Modbus unit would: real RTU responses built with the contract's
 * `buildModbusResponse` from a small register map, a silent bus (`hex: null`), no reply at all,
 * a refusal. Observed through the answers, the frames list, the operation log and the commands
 * the gateway received:
 *  - open: 3030 (no such gateway, a device behind one, another company's), 3033 never
 *    connected, 3034 offline; re-opening one's own answers it; another user gets 3043 naming
 *    who and until when in the site's zone; a session ends after the idle timeout (the service's
 *    clock is moved, nothing sleeps) and is then free for others;
 *  - send: registers read and decoded; a write refused without `confirmWrite` (3046, also a raw
 *    hex 06 frame) and applied with it; raw hex read decoded, a non-Modbus frame shown raw; a
 *    silent bus and an EMS that never answers are timeouts (code 0); a refusal is 3035 with the
 *    EMS's reason; malformed hex, an oversized frame and a bad register count answer -100 with
 *    the contract's text at the field, in the caller's language, and send nothing; the 61st
 *    frame within a minute is 3045; a gateway gone offline is 3034;
 *  - every call in the operation log, a frame's hex in it.
 */
import { randomBytes } from 'node:crypto';
import {
  buildModbusRequest,
  buildModbusResponse,
  type CommandPayload,
  DEBUG_IDLE_TIMEOUT_S,
  DEBUG_MAX_FRAMES_PER_MINUTE,
  type DebugFrameParams,
  debugFrameParams,
  debugFramesResponse,
  debugSendResponse,
  debugSessionSchema,
  deviceTopic,
  ErrorCode,
  endpoints,
  errorMessage,
  formatHex,
  MODBUS_MAX_FRAME_BYTES,
  ModbusFrameError,
  type ModbusRequest,
  modbusErrorText,
  parseModbusRequest,
} from '@ess/contract';
import { and, desc, eq, isNull } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { debugSession, operationLog } from '../src/core/db/schema';
import { DeviceService } from '../src/devices/device-service';
import { untilText } from '../src/modules/debug/debug-service';
import { call, signIn } from './support/client';
import { clearStatus } from './support/fake-ems';
import { addCompany, addRole, addStaff } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

const externalBroker = process.env.TEST_MQTT_URL;
/** Short command reply timeout, so that "the EMS never answers" is quick to observe. */
const COMMAND_TIMEOUT_MS = 1000;
/** The menu row of /deviceDebugging (migration 0018), permission device:debug:use. */
const DEBUG_MENU = 212;

type GatewayMode = 'answer' | 'silentBus' | 'noReply' | 'refuse';

/**
 * A gateway whose EMS relays `debug_frame` to unit 1 holding registers 0–99 (`registers`):
 * 03/04 read them, 06/16 write them, anything beyond answers exception 2; a frame that is not a
 * Modbus request is answered with its bytes reversed.
 */
class DebugGateway {
  mode: GatewayMode = 'answer';
  refusal = 'port busy';
  readonly registers = new Map<number, number>();
  readonly received: DebugFrameParams[] = [];
  private client: MqttClient | null = null;

  constructor(
    private readonly url: () => string,
    readonly sn: string,
    readonly secret: string,
  ) {}

  async connect(): Promise<void> {
    const client = await mqtt.connectAsync(this.url(), {
      clientId: this.sn,
      username: this.sn,
      password: this.secret,
      reconnectPeriod: 0,
      clean: true,
    });
    this.client = client;
    await client.subscribeAsync(deviceTopic(this.sn, 'cmd'), { qos: 1 });
    client.on('message', (_topic, payload) => {
      const command = JSON.parse(payload.toString()) as CommandPayload;
      if (command.name !== 'debug_frame') return;
      const params = debugFrameParams.parse(command.params);
      this.received.push(params);
      if (this.mode === 'noReply') return;
      const body =
        this.mode === 'refuse'
          ? { ok: false, error: this.refusal }
          : {
              ok: true,
              result: { hex: this.mode === 'silentBus' ? null : this.answer(params.hex), busMs: 12 },
            };
      client.publish(
        deviceTopic(this.sn, 'reply'),
        JSON.stringify({ v: 1, id: command.id, ts: Date.now(), ...body }),
        { qos: 1 },
      );
    });
    await this.status({ online: true });
  }

  private answer(hex: string): string {
    const bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
    const request = parseModbusRequest(bytes);
    if (!request) return Buffer.from(bytes).reverse().toString('hex');
    const { register } = request;
    const values = request.fn === 6 ? [request.value] : request.fn === 16 ? request.values : null;
    const count = values ? values.length : (request as { count: number }).count;
    let response: Uint8Array;
    if (register + count > 100) {
      response = buildModbusResponse(request, { exceptionCode: 2 });
    } else if (values) {
      for (const [i, v] of values.entries()) this.registers.set(register + i, v < 0 ? v + 0x10000 : v);
      response = buildModbusResponse(request, { written: true });
    } else {
      const registers = Array.from({ length: count }, (_, i) => this.registers.get(register + i) ?? 0);
      response = buildModbusResponse(request, { registers });
    }
    return Buffer.from(response).toString('hex');
  }

  private status(body: object) {
    return this.client!.publishAsync(
      deviceTopic(this.sn, 'status'),
      JSON.stringify({ v: 1, ts: Date.now(), ...body }),
      { qos: 1, retain: true },
    );
  }

  /** Says goodbye (`online: false`) and disconnects. */
  async disconnect(): Promise<void> {
    if (!this.client) return;
    await this.status({ online: false, reason: 'clean' });
    await this.client.endAsync();
    this.client = null;
  }
}

const hexOf = (request: ModbusRequest) => formatHex(buildModbusRequest(request));

describe.each(engines)('transparent debugging on %s', (engine) => {
  const tag = `${engine === 'postgres' ? 'P' : 'G'}${randomBytes(3).toString('hex')}`.toUpperCase();
  let ctx: TestContext;
  let devices: DeviceService;
  let admin: string;
  let adminName: string;
  let other: string;
  let outsider: string;
  let gw: DebugGateway;
  let gatewayId: number;
  let meterId: number;
  let neverId: number;
  const gateways: DebugGateway[] = [];
  /** The debugging service's clock: fixed at the start, moved by the tests. */
  const base = Date.now();
  let clockOffsetMs = 0;
  const now = () => base + clockOffsetMs;
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);

  const brokerUrl = () => externalBroker ?? `mqtt://127.0.0.1:${devices.brokerAddress.port}`;
  const as =
    (token: () => string) =>
    (path: string, body: object, lang: 'zh' | 'en' = 'en') =>
      call(ctx.app, path, body, { token: token(), lang });
  const api = as(() => admin);
  const otherApi = as(() => other);
  const open = async (id = gatewayId, via = api) => {
    const answer = await via(endpoints.debug.open.path, { gatewayId: id });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data.sessionId as string;
  };
  const send = (sessionId: string, frame: object, more: object = {}, lang: 'zh' | 'en' = 'en') =>
    api(endpoints.debug.send.path, { sessionId, port: 'rs485_1', frame, ...more }, lang);
  const read = (register: number, count: number): object => ({
    kind: 'modbus',
    request: { fn: 3, address: 1, register, count },
  });
  const frames = async (id = gatewayId, pageSize = 10) => {
    const answer = await api(endpoints.debug.frames.path, { gatewayId: id, pageSize });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data;
  };
  const lastLog = async (action: string) =>
    (
      await ctx.database.db
        .select()
        .from(operationLog)
        .where(eq(operationLog.action, action))
        .orderBy(desc(operationLog.id))
        .limit(1)
    )[0]!;
  const addGateway = async (name: string) => {
    const site = await api(endpoints.site.save.path, {
      code: `DBG${tag}${name}`,
      name: `Debug ${name}`,
      timezone: 'Asia/Urumqi',
    });
    expect(site.code, site.msg).toBe(0);
    const saved = await api(endpoints.device.save.path, {
      siteId: site.data.id,
      sn: `EMS-DBG${tag}${name}`,
      type: 'ems',
    });
    expect(saved.code, saved.msg).toBe(0);
    const fake = new DebugGateway(brokerUrl, saved.data.secret.sn, saved.data.secret.secret);
    gateways.push(fake);
    return { id: saved.data.id as number, siteId: site.data.id as number, fake };
  };

  beforeAll(async () => {
    process.on('unhandledRejection', record);
    ctx = await createTestApp(engine);
    devices = new DeviceService(ctx.database.db, ctx.app.log, {
      mqttPort: 0,
      mqttHost: '127.0.0.1',
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      ...(externalBroker ? { mqttUrl: externalBroker } : {}),
    });
    await devices.start();
    ctx.app.devices = devices;
    ctx.app.debugSessions.now = now;
    const signed = await signIn(ctx.app);
    admin = signed.token;
    adminName = signed.info.name;
    const db = ctx.database.db;
    const debugRole = await addRole(db, { companyId: signed.companyId, menuIds: [DEBUG_MENU] });
    const colleague = await addStaff(db, { companyId: signed.companyId, roleIds: [debugRole] });
    other = (await signIn(ctx.app, colleague.account, colleague.password)).token;
    const elsewhere = await addCompany(db);
    const outsiderRole = await addRole(db, { companyId: elsewhere.id, isAdmin: true });
    const stranger = await addStaff(db, { companyId: elsewhere.id, roleIds: [outsiderRole] });
    outsider = (await signIn(ctx.app, stranger.account, stranger.password)).token;

    const main = await addGateway('A');
    gw = main.fake;
    gatewayId = main.id;
    for (let r = 0; r < 100; r++) gw.registers.set(r, 1000 + r);
    const meter = await api(endpoints.device.save.path, {
      siteId: main.siteId,
      sn: `MTR-DBG${tag}`,
      type: 'meter',
      gatewayId,
    });
    expect(meter.code, meter.msg).toBe(0);
    meterId = meter.data.id;
    neverId = (await addGateway('N')).id;
    await gw.connect();
    await waitFor(() => devices.tracker.isOnline(gatewayId));
  });
  afterEach(async () => {
    clockOffsetMs = 0;
    gw.mode = 'answer';
    await ctx.database.db
      .update(debugSession)
      .set({ closedAt: new Date(), closeReason: 'closed' })
      .where(isNull(debugSession.closedAt));
  });
  afterAll(async () => {
    for (const g of gateways) await g.disconnect();
    if (externalBroker) for (const g of gateways) await clearStatus(externalBroker, g.sn, g.secret);
    await devices?.close();
    await ctx?.close();
    process.off('unhandledRejection', record);
    expect(unhandled).toEqual([]);
  });

  it('reads registers through the gateway: decoded values, hex both ways, round trip, and in the frames list', async () => {
    const sessionId = await open();
    const answer = await send(sessionId, read(10, 3), { timeoutMs: 1500 });
    expect(answer.code, answer.msg).toBe(0);
    const expectedRequest = hexOf({ fn: 3, address: 1, register: 10, count: 3 });
    const response = buildModbusResponse(
      { fn: 3, address: 1, register: 10, count: 3 },
      { registers: [1010, 1011, 1012] },
    );
    expect(answer.data.frame).toMatchObject({
      port: 'rs485_1',
      requestHex: expectedRequest,
      responseHex: formatHex(response),
      timeout: false,
      write: false,
      decoded: { kind: 'read', register: 10, registers: [1010, 1011, 1012] },
      error: null,
    });
    expect(answer.data.frame.rttMs).toBeGreaterThanOrEqual(0);
    // The gateway got the bytes as lower-case hex, with the port and the timeout asked for.
    expect(gw.received.at(-1)).toEqual({
      port: 'rs485_1',
      hex: expectedRequest.replaceAll(' ', '').toLowerCase(),
      timeoutMs: 1500,
    });
    // A register beyond the unit's map: the exception, decoded.
    const beyond = await send(sessionId, read(200, 1));
    expect(beyond.data.frame.decoded).toEqual({ kind: 'exception', exceptionCode: 2 });
    const list = await frames();
    // The answers are the contract's shapes.
    debugSendResponse.parse(answer.data);
    debugSendResponse.parse(beyond.data);
    debugFramesResponse.parse(list);
    expect(list.list[0].id).toBe(beyond.data.frame.id);
    expect(list.list[1]).toEqual(answer.data.frame);
    expect(list.list[1].by).toBe(adminName);
  });

  it('a write needs the second confirmation: 3046 without it (Modbus and raw hex alike), applied with it', async () => {
    const sessionId = await open();
    const write = { kind: 'modbus', request: { fn: 6, address: 1, register: 5, value: 4242 } };
    const before = gw.received.length;
    const refused = await send(sessionId, write);
    expect(refused.code).toBe(ErrorCode.DEBUG_WRITE_NOT_CONFIRMED);
    expect(refused.msg).toBe(errorMessage(ErrorCode.DEBUG_WRITE_NOT_CONFIRMED, 'en'));
    const rawWrite = hexOf({ fn: 16, address: 1, register: 6, values: [1, 2] });
    expect((await send(sessionId, { kind: 'hex', hex: rawWrite })).code).toBe(
      ErrorCode.DEBUG_WRITE_NOT_CONFIRMED,
    );
    expect(gw.received.length).toBe(before);
    expect(gw.registers.get(5)).toBe(1005);

    const applied = await send(sessionId, write, { confirmWrite: true });
    expect(applied.code, applied.msg).toBe(0);
    expect(applied.data.frame).toMatchObject({ write: true, decoded: { kind: 'write', register: 5 } });
    expect(gw.registers.get(5)).toBe(4242);
    const many = await send(sessionId, { kind: 'hex', hex: rawWrite }, { confirmWrite: true });
    expect(many.data.frame).toMatchObject({ write: true, decoded: { kind: 'write', register: 6 } });
    expect([gw.registers.get(6), gw.registers.get(7)]).toEqual([1, 2]);
    // Read back.
    const back = await send(sessionId, read(5, 3));
    expect(back.data.frame.decoded.registers).toEqual([4242, 1, 2]);
  });

  it('a raw hex read is decoded; a frame that is not a Modbus request shows its raw answer only', async () => {
    const sessionId = await open();
    const hex = hexOf({ fn: 4, address: 1, register: 0, count: 2 }).replaceAll(' ', '').toLowerCase();
    const decoded = await send(sessionId, { kind: 'hex', hex });
    expect(decoded.data.frame).toMatchObject({
      write: false,
      decoded: { kind: 'read', registers: [1000, 1001] },
    });
    const raw = await send(sessionId, { kind: 'hex', hex: '0xAA, 0xBB 0xCC' });
    expect(raw.code, raw.msg).toBe(0);
    expect(raw.data.frame).toMatchObject({
      requestHex: 'AA BB CC',
      responseHex: 'CC BB AA',
      decoded: null,
      error: null,
      write: false,
    });
  });

  it('a silent bus and an EMS that never answers are timeouts, not errors; a refusal is 3035 with the reason', async () => {
    const sessionId = await open();
    gw.mode = 'silentBus';
    const silent = await send(sessionId, read(0, 1));
    expect(silent.code, silent.msg).toBe(0);
    expect(silent.data.frame).toMatchObject({ timeout: true, responseHex: null, rttMs: null, error: null });
    gw.mode = 'noReply';
    const none = await send(sessionId, read(0, 1), {}, 'zh');
    expect(none.code, none.msg).toBe(0);
    expect(none.data.frame).toMatchObject({ timeout: true, responseHex: null, error: 'EMS未应答' });
    gw.mode = 'refuse';
    const refused = await send(sessionId, read(0, 1));
    expect(refused.code).toBe(ErrorCode.DEVICE_SEND_FAILED);
    expect(refused.msg).toBe(`${errorMessage(ErrorCode.DEVICE_SEND_FAILED, 'en')}: port busy`);
    const [latest] = (await frames()).list;
    expect(latest).toMatchObject({ timeout: false, error: 'The EMS refused the frame: port busy' });
  });

  it('malformed hex, an oversized frame and bad numbers answer -100 at the field in the caller’s language; nothing is sent', async () => {
    const sessionId = await open();
    const before = gw.received.length;
    const expectField = async (frame: object, lang: 'zh' | 'en', field: string, error: ModbusFrameError) => {
      const answer = await send(sessionId, frame, {}, lang);
      expect(answer.code).toBe(ErrorCode.PARAM_ERROR);
      expect(answer.msg).toContain(`${field}: ${modbusErrorText(error, lang)}`);
    };
    await expectField(
      { kind: 'hex', hex: '01 0G' },
      'zh',
      'frame.hex',
      new ModbusFrameError('hexMalformed', { position: 5, char: 'G' }),
    );
    await expectField(
      { kind: 'hex', hex: '01 0G' },
      'en',
      'frame.hex',
      new ModbusFrameError('hexMalformed', { position: 5, char: 'G' }),
    );
    await expectField({ kind: 'hex', hex: '010' }, 'en', 'frame.hex', new ModbusFrameError('hexOddLength'));
    await expectField({ kind: 'hex', hex: '  ' }, 'zh', 'frame.hex', new ModbusFrameError('hexEmpty'));
    const tooLong = 'ab'.repeat(MODBUS_MAX_FRAME_BYTES + 1);
    await expectField(
      { kind: 'hex', hex: tooLong },
      'zh',
      'frame.hex',
      new ModbusFrameError('frameTooLong', { max: MODBUS_MAX_FRAME_BYTES }),
    );
    await expectField(
      { kind: 'modbus', request: { fn: 3, address: 1, register: 0, count: 126 } },
      'zh',
      'frame.request.count',
      new ModbusFrameError('countInvalid', { max: 125 }),
    );
    await expectField(
      { kind: 'modbus', request: { fn: 6, address: 0, register: 0, value: 1 } },
      'en',
      'frame.request.address',
      new ModbusFrameError('addressInvalid', { min: 1, max: 247 }),
    );
    expect(gw.received.length).toBe(before);
    // The refusal is in the operation log with what was typed.
    const log = await lastLog('debug.send');
    expect(log.code).toBe(ErrorCode.PARAM_ERROR);
  });

  it(`more than ${DEBUG_MAX_FRAMES_PER_MINUTE} frames within a minute: 3045, counted in the database; a minute later frames go again`, async () => {
    const sessionId = await open();
    for (let i = 0; i < DEBUG_MAX_FRAMES_PER_MINUTE; i++) {
      clockOffsetMs = i * 100; // 60 frames over 6 s
      const answer = await send(sessionId, read(i % 100, 1));
      expect(answer.code, answer.msg).toBe(0);
    }
    const before = gw.received.length;
    clockOffsetMs = 59_000;
    const flood = await send(sessionId, read(0, 1), {}, 'zh');
    expect(flood.code).toBe(ErrorCode.DEBUG_RATE_LIMITED);
    expect(flood.msg).toBe(
      errorMessage(ErrorCode.DEBUG_RATE_LIMITED, 'zh', { max: DEBUG_MAX_FRAMES_PER_MINUTE }),
    );
    expect(gw.received.length).toBe(before);
    // The first frame (at offset 0) leaves the rolling minute; the second (at 100 ms) not yet.
    clockOffsetMs = 60_001;
    expect((await send(sessionId, read(0, 1))).code).toBe(0);
    expect((await send(sessionId, read(0, 1))).code).toBe(ErrorCode.DEBUG_RATE_LIMITED);
  });

  it('one session per gateway: another user gets 3043 naming who and until when (site zone); re-opening one’s own answers it', async () => {
    const sessionId = await open();
    const again = await api(endpoints.debug.open.path, { gatewayId });
    expect(again.data.sessionId).toBe(sessionId);
    debugSessionSchema.parse(again.data);
    expect(again.data).toMatchObject({
      gatewayId,
      timezone: 'Asia/Urumqi',
      openedBy: adminName,
      idleTimeoutS: DEBUG_IDLE_TIMEOUT_S,
      maxFramesPerMinute: DEBUG_MAX_FRAMES_PER_MINUTE,
      maxFrameBytes: MODBUS_MAX_FRAME_BYTES,
    });
    const busy = await otherApi(endpoints.debug.open.path, { gatewayId }, 'zh');
    expect(busy.code).toBe(ErrorCode.DEBUG_SESSION_BUSY);
    const until = untilText(Date.parse(again.data.expiresAt), 'Asia/Urumqi');
    expect(until).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\+6$/);
    expect(busy.msg).toBe(errorMessage(ErrorCode.DEBUG_SESSION_BUSY, 'zh', { name: adminName, until }));
    // Not the other user's session: it does not exist for them.
    const foreign = await otherApi(endpoints.debug.send.path, {
      sessionId,
      port: 'rs485_1',
      frame: read(0, 1),
    });
    expect(foreign.code).toBe(ErrorCode.DEBUG_SESSION_ENDED);
    expect((await otherApi(endpoints.debug.close.path, { sessionId })).code).toBe(
      ErrorCode.DEBUG_SESSION_ENDED,
    );
    // Closed: it ends, and the gateway is free.
    expect((await api(endpoints.debug.close.path, { sessionId })).code).toBe(0);
    expect((await send(sessionId, read(0, 1))).code).toBe(ErrorCode.DEBUG_SESSION_ENDED);
    expect((await api(endpoints.debug.close.path, { sessionId })).code).toBe(ErrorCode.DEBUG_SESSION_ENDED);
    await open(gatewayId, otherApi);
  });

  it('two users opening at once: one session, the other gets 3043', async () => {
    const answers = await Promise.all([
      api(endpoints.debug.open.path, { gatewayId }),
      otherApi(endpoints.debug.open.path, { gatewayId }),
      api(endpoints.debug.open.path, { gatewayId }),
      otherApi(endpoints.debug.open.path, { gatewayId }),
    ]);
    const opened = answers.filter((a) => a.code === 0);
    const busy = answers.filter((a) => a.code === ErrorCode.DEBUG_SESSION_BUSY);
    expect(opened.length + busy.length).toBe(4);
    // Whoever won, both of their calls answer the same session; the other's both answer 3043.
    expect(opened.length).toBe(2);
    expect(new Set(opened.map((a) => a.data.sessionId)).size).toBe(1);
    const rows = await ctx.database.db
      .select()
      .from(debugSession)
      .where(and(eq(debugSession.gatewayId, gatewayId), isNull(debugSession.closedAt)));
    expect(rows.map((r) => r.id)).toEqual([opened[0]!.data.sessionId]);
  });

  it('a session ends after the idle timeout; each frame moves the end; then another user may open', async () => {
    const sessionId = await open();
    clockOffsetMs = (DEBUG_IDLE_TIMEOUT_S - 60) * 1000;
    const kept = await send(sessionId, read(0, 1));
    expect(kept.code, kept.msg).toBe(0);
    expect(Date.parse(kept.data.expiresAt)).toBe(now() + DEBUG_IDLE_TIMEOUT_S * 1000);
    // One second short of the idle timeout after that frame: still open.
    clockOffsetMs += (DEBUG_IDLE_TIMEOUT_S - 1) * 1000;
    const late = await send(sessionId, read(0, 1));
    expect(late.code, late.msg).toBe(0);
    // Idle for the whole timeout after the last frame.
    clockOffsetMs += DEBUG_IDLE_TIMEOUT_S * 1000;
    expect((await send(sessionId, read(0, 1))).code).toBe(ErrorCode.DEBUG_SESSION_ENDED);
    const [row] = await ctx.database.db.select().from(debugSession).where(eq(debugSession.id, sessionId));
    expect(row).toMatchObject({ closeReason: 'expired' });
    expect(row!.closedAt!.toISOString()).toBe(late.data.expiresAt);
    const theirs = await open(gatewayId, otherApi);
    expect(theirs).not.toBe(sessionId);
  });

  it('an expired session not yet closed does not keep another user out', async () => {
    await open();
    clockOffsetMs = DEBUG_IDLE_TIMEOUT_S * 1000 + 1;
    await open(gatewayId, otherApi);
  });

  it('3030 for no such gateway, a device behind one and another company’s; 3033 never connected; 3034 offline', async () => {
    const code = async (via: typeof api, id: number) =>
      (await via(endpoints.debug.open.path, { gatewayId: id })).code;
    expect(await code(api, 2_000_000_000)).toBe(ErrorCode.DEVICE_NOT_FOUND);
    expect(await code(api, meterId)).toBe(ErrorCode.DEVICE_NOT_FOUND);
    const stranger = as(() => outsider);
    expect(await code(stranger, gatewayId)).toBe(ErrorCode.DEVICE_NOT_FOUND);
    expect((await stranger(endpoints.debug.frames.path, { gatewayId })).code).toBe(
      ErrorCode.DEVICE_NOT_FOUND,
    );
    expect(await code(api, neverId)).toBe(ErrorCode.DEVICE_NOT_CONNECTED);
    const gone = await addGateway('O');
    await gone.fake.connect();
    await waitFor(() => devices.tracker.isOnline(gone.id));
    const sessionId = await open(gone.id);
    await gone.fake.disconnect();
    await waitFor(() => !devices.tracker.isOnline(gone.id));
    expect(await code(api, gone.id)).toBe(ErrorCode.DEVICE_OFFLINE);
    expect((await send(sessionId, read(0, 1))).code).toBe(ErrorCode.DEVICE_OFFLINE);
  });

  it('every call is in the operation log with the gateway as target and the frame’s hex', async () => {
    const sessionId = await open();
    const opened = await lastLog('debug.open');
    expect(opened).toMatchObject({ targetType: 'device', targetId: String(gatewayId), code: 0 });
    expect(opened.after).toMatchObject({ sessionId, gatewayId });
    const answer = await send(sessionId, read(1, 2));
    const sent = await lastLog('debug.send');
    expect(sent).toMatchObject({ targetType: 'device', targetId: String(gatewayId), code: 0 });
    expect(sent.after).toMatchObject({
      sessionId,
      port: 'rs485_1',
      requestHex: answer.data.frame.requestHex,
      responseHex: answer.data.frame.responseHex,
      write: false,
      timeout: false,
    });
    const unconfirmed = await send(sessionId, {
      kind: 'modbus',
      request: { fn: 6, address: 1, register: 9, value: 7 },
    });
    expect(unconfirmed.code).toBe(ErrorCode.DEBUG_WRITE_NOT_CONFIRMED);
    const refusedLog = await lastLog('debug.send');
    expect(refusedLog).toMatchObject({
      targetId: String(gatewayId),
      code: ErrorCode.DEBUG_WRITE_NOT_CONFIRMED,
    });
    expect(refusedLog.after).toMatchObject({
      requestHex: hexOf({ fn: 6, address: 1, register: 9, value: 7 }),
      write: true,
    });
    await api(endpoints.debug.close.path, { sessionId });
    expect(await lastLog('debug.close')).toMatchObject({ targetId: String(gatewayId), code: 0 });
    // Sessions of this gateway are closed and logged.
    const open_ = await ctx.database.db
      .select()
      .from(debugSession)
      .where(and(eq(debugSession.gatewayId, gatewayId), isNull(debugSession.closedAt)));
    expect(open_).toEqual([]);
  });
});
