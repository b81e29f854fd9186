/**
 * Data export (spec §5, §9): every rule answers the contract's code with the same
 * zh/en message the form shows (checkExportRequest), nothing outside the caller's scope is
 * exported (6000 / 3036 / 3030 as if it did not exist), the xlsx holds what was seeded (opened
 * with exceljs: header rows, row counts, values), its name says what and when, and a large export
 * is written batch by batch while the file is already flowing out.
 */
import { PassThrough } from 'node:stream';
import {
  checkExportRequest,
  ErrorCode,
  EXPORT_MAX_ENTRIES,
  EXPORT_ROWS_HEADER,
  endpoints,
  errorMessage,
  exportDevicesResponse,
  exportRequest,
  exportSitesResponse,
  XLSX_MIME,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { alarmEvent, company, device, site } from '../src/core/db/schema';
import { attachmentHeader } from '../src/modules/export/export-routes';
import { ExportService } from '../src/modules/export/export-service';
import { call, type SignedIn, signIn } from './support/client';
import { addCompany, addRole, addStaff, conforms, unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

const DAY = 86_400_000;
const MINUTE = 60_000;
/** Asia/Shanghai midnight `daysAgo` days before today's. */
function shanghaiMidnight(daysAgo: number): number {
  const offset = 8 * 3_600_000;
  return Math.floor((Date.now() + offset) / DAY) * DAY - offset - daysAgo * DAY;
}
/** YYYY-MM-DD of `ms` in Asia/Shanghai. */
function shanghaiDay(ms: number): string {
  return new Date(ms + 8 * 3_600_000).toISOString().slice(0, 10);
}

describe.each(engines)('export on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let admin: SignedIn;
  let otherAdmin: SignedIn;
  let agentAdmin: SignedIn;
  let agentId: number;
  let otherAgentId: number;
  let siteId: number;
  let siteCode: string;
  let otherSiteId: number;
  let otherSiteDevice: number;
  let ems: number;
  let pcs: number;
  let bms: number;
  let meters: number[] = [];
  /** Two days of 1-minute PCS data from this start (Asia/Shanghai midnight, 10 days ago). */
  const start = shanghaiMidnight(10);
  const PCS_ROWS = 2 * 1440;
  /** A large BMS series: every 10 s over ~3.5 days. */
  const BMS_ROWS = 30_000;

  async function addDevice(
    companyId: number,
    onSite: number,
    sn: string,
    type: string,
    gatewayId: number | null,
  ) {
    const [row] = await db
      .insert(device)
      .values({ companyId, siteId: onSite, sn, type, gatewayId })
      .returning({ id: device.id });
    return row!.id;
  }

  /** A valid raw export of the PCS over the two seeded days. */
  const valid = () => ({
    agentId,
    startMs: start,
    endMs: start + 2 * DAY,
    siteId,
    type: 'raw' as const,
    deviceIds: [pcs],
    items: ['p_kw', 'e_charge_total_kwh'],
  });

  async function download(body: object, token = admin.token, lang: 'zh' | 'en' = 'zh') {
    return ctx.app.inject({
      method: 'POST',
      url: endpoints.export.xlsx.path,
      payload: body,
      headers: {
        'content-type': 'application/json',
        'accept-language': lang === 'en' ? 'en-US' : 'zh-CN',
        'x-token': token,
      },
    });
  }
  async function workbookOf(buffer: Buffer) {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(buffer as never);
    return workbook;
  }
  const values = (row: ExcelJS.Row) => (row.values as unknown[]).slice(1);

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    const [platform] = rowsOfPlatform(
      await db.execute(sql`SELECT id FROM company WHERE type = 'platform' LIMIT 1`),
    );
    const [agent] = await db
      .insert(company)
      .values({ type: 'agent', name: unique('导出代理商'), parentId: platform!.id })
      .returning({ id: company.id });
    agentId = agent!.id;
    const [other] = await db
      .insert(company)
      .values({ type: 'agent', name: unique('另一代理商'), parentId: platform!.id })
      .returning({ id: company.id });
    otherAgentId = other!.id;
    siteCode = unique('EXP')
      .replace(/[^A-Za-z0-9-]/g, '')
      .slice(0, 24);
    const [s] = await db
      .insert(site)
      .values({ companyId: agentId, code: siteCode, name: '导出测试站', timezone: 'Asia/Shanghai' })
      .returning({ id: site.id });
    siteId = s!.id;
    const [s2] = await db
      .insert(site)
      .values({ companyId: otherAgentId, code: `${siteCode}-O`, name: '别人的站', timezone: 'Asia/Shanghai' })
      .returning({ id: site.id });
    otherSiteId = s2!.id;
    otherSiteDevice = await addDevice(otherAgentId, otherSiteId, `${siteCode}-OEMS`, 'ems', null);

    ems = await addDevice(agentId, siteId, `${siteCode}-EMS`, 'ems', null);
    pcs = await addDevice(agentId, siteId, `${siteCode}-PCS`, 'pcs', ems);
    bms = await addDevice(agentId, siteId, `${siteCode}-BMS`, 'bms', ems);
    meters = [];
    for (let i = 0; i < EXPORT_MAX_ENTRIES; i += 1) {
      meters.push(await addDevice(agentId, siteId, `${siteCode}-M${i}`, 'meter', ems));
    }

    // PCS: p_kw = minute index mod 100, charge register +0.5 kWh per minute.
    await db.execute(sql`
      INSERT INTO telemetry (device_id, ts, points)
      SELECT ${pcs}, to_timestamp(${start / 1000}) + g * interval '1 minute',
             jsonb_build_object('p_kw', g % 100, 'e_charge_total_kwh', 1000 + g * 0.5, 'q_kvar', 1)
      FROM generate_series(0, ${PCS_ROWS - 1}) g`);
    await db.execute(sql`
      INSERT INTO telemetry (device_id, ts, points)
      SELECT ${bms}, to_timestamp(${start / 1000}) + g * interval '10 seconds',
             jsonb_build_object('soc_pct', 50 + (g % 40), 'soh_pct', 98)
      FROM generate_series(0, ${BMS_ROWS - 1}) g`);
    // Daily rollups of the charge register: the day before (last 1000), day 1 (last 1720), day 2 (last 2439.5).
    for (const [dayStart, first, last] of [
      [start - DAY, 900, 1000],
      [start, 1000, 1720],
      [start + DAY, 1720.5, 2439.5],
    ] as const) {
      await db.execute(sql`
        INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
        VALUES (${pcs}, 86400, to_timestamp(${dayStart / 1000}), 'e_charge_total_kwh', 2, ${first + last}, ${first}, ${last},
                to_timestamp(${dayStart / 1000}), ${first}, to_timestamp(${dayStart / 1000}), ${last})`);
    }
    await db.insert(alarmEvent).values(
      [
        { deviceId: bms, kind: 'produce', level: 'warning', code: 'bms.cell_overvoltage', at: 60 },
        { deviceId: bms, kind: 'disappear', level: 'warning', code: 'bms.cell_overvoltage', at: 120 },
        { deviceId: pcs, kind: 'produce', level: 'fault', code: 'pcs.igbt_overtemp', at: 180 },
        { deviceId: pcs, kind: 'produce', level: 'fault', code: 'pcs.igbt_overtemp', at: 3 * 1440 },
      ].map((a, i) => ({
        companyId: agentId,
        siteId,
        deviceId: a.deviceId,
        gatewayId: ems,
        msgId: `${siteCode}-a${i}`,
        msgIndex: 0,
        ts: new Date(start + a.at * MINUTE),
        kind: a.kind,
        code: a.code,
        level: a.level,
        content: `内容 ${i}`,
        value: i,
      })),
    );

    admin = await signIn(ctx.app);
    const B = (await addCompany(db)).id;
    const b = await addStaff(db, {
      companyId: B,
      roleIds: [await addRole(db, { companyId: B, isAdmin: true })],
    });
    otherAdmin = await signIn(ctx.app, b.account, b.password);
    const ag = await addStaff(db, {
      companyId: agentId,
      roleIds: [await addRole(db, { companyId: agentId, isAdmin: true })],
    });
    agentAdmin = await signIn(ctx.app, ag.account, ag.password);
  }, 120_000);
  afterAll(async () => ctx?.close());

  describe('rules: the server answers what the form shows', () => {
    const cases: [string, (b: ReturnType<typeof valid>) => object, number][] = [
      ['agent missing', (b) => ({ ...b, agentId: null }), ErrorCode.EXPORT_AGENT_REQUIRED],
      ['time missing', (b) => ({ ...b, startMs: null, endMs: null }), ErrorCode.EXPORT_TIME_REQUIRED],
      ['range inverted', (b) => ({ ...b, endMs: b.startMs - MINUTE }), ErrorCode.RANGE_INVERTED],
      [
        'more than 7 days apart',
        (b) => ({ ...b, endMs: b.startMs + 8 * DAY }),
        ErrorCode.EXPORT_RANGE_TOO_LONG,
      ],
      [
        'range in the future',
        (b) => ({ ...b, startMs: Date.now() + DAY, endMs: Date.now() + 2 * DAY }),
        ErrorCode.RANGE_IN_FUTURE,
      ],
      ['site missing', (b) => ({ ...b, siteId: null }), ErrorCode.EXPORT_SITE_REQUIRED],
      ['type missing', (b) => ({ ...b, type: null }), ErrorCode.EXPORT_TYPE_REQUIRED],
      ['device missing', (b) => ({ ...b, deviceIds: [] }), ErrorCode.EXPORT_DEVICE_REQUIRED],
      [
        `more than ${EXPORT_MAX_ENTRIES} entries`,
        (b) => ({ ...b, deviceIds: [pcs, ...meters] }),
        ErrorCode.EXPORT_TOO_MANY_ENTRIES,
      ],
      ['no data selected', (b) => ({ ...b, items: [] }), ErrorCode.EXPORT_DATA_REQUIRED],
      ['unknown data item', (b) => ({ ...b, items: ['p_kw', 'warning'] }), ErrorCode.EXPORT_ITEM_INVALID],
    ];
    for (const [name, change, expected] of cases) {
      it(`${name} → ${expected} in zh and en, as checkExportRequest says`, async () => {
        const body = change(valid());
        const issue = checkExportRequest(exportRequest.parse(body), Date.now());
        expect(issue?.code).toBe(expected);
        for (const lang of ['zh', 'en'] as const) {
          const answer = await call(ctx.app, endpoints.export.xlsx.path, body, { token: admin.token, lang });
          expect(answer).toEqual({
            code: expected,
            msg: errorMessage(expected, lang, issue!.params),
            data: null,
          });
        }
      });
    }

    it('the spec’s texts: 10 entries, 7 days, a site for actions', () => {
      expect(errorMessage(ErrorCode.EXPORT_TOO_MANY_ENTRIES, 'en', { max: 10 })).toBe(
        'At most 10 entries can be exported',
      );
      expect(errorMessage(ErrorCode.EXPORT_RANGE_TOO_LONG, 'zh', { maxDays: 7 })).toBe(
        '开始时间和结束时间相差不能超过7天',
      );
      expect(errorMessage(ErrorCode.EXPORT_SITE_REQUIRED, 'en')).toBe('A site must be selected for actions');
    });

    it('the first missing prerequisite is named, in form order', async () => {
      const answer = await call(
        ctx.app,
        endpoints.export.xlsx.path,
        { agentId, startMs: null, endMs: null, siteId: null, type: null, deviceIds: [], items: [] },
        { token: admin.token, lang: 'en' },
      );
      expect(answer.code).toBe(ErrorCode.EXPORT_TIME_REQUIRED);
      expect(answer.msg).toBe('Please choose the time first');
      const empty = await call(ctx.app, endpoints.export.xlsx.path, {}, { token: admin.token });
      expect(empty.code).toBe(ErrorCode.EXPORT_AGENT_REQUIRED);
      expect(empty.msg).toBe('请先选择代理商');
    });

    it('exactly 10 devices and exactly 7 days are accepted', async () => {
      const response = await download({
        ...valid(),
        startMs: start,
        endMs: start + 7 * DAY,
        deviceIds: meters,
        items: ['p_kw'],
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe(XLSX_MIME);
      const workbook = await workbookOf(response.rawPayload);
      expect(workbook.worksheets).toHaveLength(1 + EXPORT_MAX_ENTRIES);
    });
  });

  describe('scope', () => {
    it('sites of an agent: its companies’ sites only; another company’s caller gets 6000', async () => {
      const list = await call(ctx.app, endpoints.export.sites.path, { agentId }, { token: admin.token });
      expect(list.code).toBe(0);
      const sites = conforms(exportSitesResponse, list.data).list;
      expect(sites.map((s) => s.id)).toEqual([siteId]);
      const agentOwn = await call(
        ctx.app,
        endpoints.export.sites.path,
        { agentId },
        { token: agentAdmin.token },
      );
      expect(agentOwn.data.list.map((s: { id: number }) => s.id)).toEqual([siteId]);
      const other = await call(
        ctx.app,
        endpoints.export.sites.path,
        { agentId },
        { token: otherAdmin.token },
      );
      expect(other).toEqual({ code: 6000, msg: errorMessage(6000, 'zh'), data: null });
      // The agent's own administrator cannot see the other agent (a sibling company).
      const sibling = await call(
        ctx.app,
        endpoints.export.sites.path,
        { agentId: otherAgentId },
        { token: agentAdmin.token },
      );
      expect(sibling.code).toBe(ErrorCode.COMPANY_NOT_FOUND);
    });

    it('a site with a device assigned to the agent is among its sites', async () => {
      const before = await call(
        ctx.app,
        endpoints.export.sites.path,
        { agentId: otherAgentId },
        { token: admin.token },
      );
      expect(before.data.list.map((s: { id: number }) => s.id)).toEqual([otherSiteId]);
      await db.execute(sql`UPDATE device SET agent_id = ${otherAgentId} WHERE id = ${meters[0]!}`);
      const after = await call(
        ctx.app,
        endpoints.export.sites.path,
        { agentId: otherAgentId },
        { token: admin.token },
      );
      expect(after.data.list.map((s: { id: number }) => s.id).sort()).toEqual([siteId, otherSiteId].sort());
      await db.execute(sql`UPDATE device SET agent_id = NULL WHERE id = ${meters[0]!}`);
    });

    it('devices of a site: listed for the caller in scope, 3036 for anyone else', async () => {
      const list = await call(
        ctx.app,
        endpoints.export.devices.path,
        { siteId },
        { token: agentAdmin.token },
      );
      const devices = conforms(exportDevicesResponse, list.data).list;
      expect(devices.map((d) => d.type).slice(0, 3)).toEqual(['ems', 'pcs', 'bms']);
      expect(devices).toHaveLength(3 + EXPORT_MAX_ENTRIES);
      const other = await call(
        ctx.app,
        endpoints.export.devices.path,
        { siteId },
        { token: otherAdmin.token, lang: 'en' },
      );
      expect(other).toEqual({ code: 3036, msg: 'Site not found', data: null });
    });

    it('export: agent outside scope 6000, site not of the agent 3036, device not on the site 3030', async () => {
      const outside = await call(ctx.app, endpoints.export.xlsx.path, valid(), { token: otherAdmin.token });
      expect(outside.code).toBe(ErrorCode.COMPANY_NOT_FOUND);
      const foreignSite = await call(
        ctx.app,
        endpoints.export.xlsx.path,
        { ...valid(), siteId: otherSiteId },
        {
          token: admin.token,
        },
      );
      expect(foreignSite.code).toBe(ErrorCode.SITE_NOT_FOUND);
      const foreignDevice = await call(
        ctx.app,
        endpoints.export.xlsx.path,
        { ...valid(), deviceIds: [pcs, otherSiteDevice] },
        { token: admin.token },
      );
      expect(foreignDevice).toEqual({ code: 3030, msg: errorMessage(3030, 'zh'), data: null });
      // Existence comes in form order: a missing type after a foreign site still answers 3036.
      const order = await call(
        ctx.app,
        endpoints.export.xlsx.path,
        { ...valid(), siteId: otherSiteId, type: null },
        {
          token: admin.token,
        },
      );
      expect(order.code).toBe(ErrorCode.SITE_NOT_FOUND);
    });
  });

  describe('the xlsx', () => {
    it('raw points: file name, headers, one sheet per device, every row with site-local times', async () => {
      const response = await download(valid(), agentAdmin.token);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe(XLSX_MIME);
      expect(response.headers['content-length']).toBeUndefined();
      // The range ends (exclusive) at midnight: its last day is the day before.
      const name = `${siteCode}_raw_${shanghaiDay(start)}_${shanghaiDay(start + DAY)}.xlsx`;
      expect(response.headers['content-disposition']).toBe(
        `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      );
      expect(response.headers[EXPORT_ROWS_HEADER.toLowerCase()]).toBe(String(PCS_ROWS));
      const workbook = await workbookOf(response.rawPayload);
      expect(workbook.worksheets.map((w) => w.name)).toEqual(['导出信息', `${siteCode}-PCS`]);
      const sheet = workbook.worksheets[1]!;
      expect(values(sheet.getRow(1))).toEqual(['时间 (Asia/Shanghai)', '有功功率 (kW)', '累计充电量 (kWh)']);
      expect(sheet.actualRowCount).toBe(1 + PCS_ROWS);
      expect(values(sheet.getRow(2))).toEqual([`${shanghaiDay(start)} 00:00:00`, 0, 1000]);
      expect(values(sheet.getRow(1 + 61))).toEqual([`${shanghaiDay(start)} 01:00:00`, 60, 1030]);
      expect(values(sheet.getRow(1 + PCS_ROWS))).toEqual([
        `${shanghaiDay(start + DAY)} 23:59:00`,
        (PCS_ROWS - 1) % 100,
        1000 + (PCS_ROWS - 1) * 0.5,
      ]);
      const info = workbook.worksheets[0]!;
      expect(values(info.getRow(1))).toEqual(['导出类型', '原始数据']);
    });

    it('raw points in English; a device without the chosen points has its header only', async () => {
      const response = await download(
        { ...valid(), deviceIds: [pcs, meters[1]!], items: ['q_kvar'] },
        admin.token,
        'en',
      );
      const workbook = await workbookOf(response.rawPayload);
      expect(workbook.worksheets.map((w) => w.name)).toEqual([
        'Export info',
        `${siteCode}-PCS`,
        `${siteCode}-M1`,
      ]);
      expect(values(workbook.worksheets[1]!.getRow(1))).toEqual([
        'Time (Asia/Shanghai)',
        'Reactive power (kvar)',
      ]);
      expect(workbook.worksheets[1]!.actualRowCount).toBe(1 + PCS_ROWS);
      expect(values(workbook.worksheets[2]!.getRow(1))).toEqual(['Time (Asia/Shanghai)']);
      expect(workbook.worksheets[2]!.actualRowCount).toBe(1);
    });

    it('daily energy: a row per device and day, last − previous day’s last', async () => {
      const response = await download(
        {
          ...valid(),
          type: 'dailyEnergy',
          deviceIds: [pcs],
          items: ['e_charge_total_kwh', 'e_discharge_total_kwh'],
        },
        admin.token,
      );
      expect(response.headers['content-disposition']).toContain(`${siteCode}_daily-energy_`);
      const workbook = await workbookOf(response.rawPayload);
      const sheet = workbook.getWorksheet('日电量')!;
      expect(values(sheet.getRow(1))).toEqual(['日期', '设备SN', '设备类型', '充电量 (kWh)', '放电量 (kWh)']);
      expect(sheet.actualRowCount).toBe(3);
      // No discharge register was rolled up: its cells stay empty.
      expect(values(sheet.getRow(2))).toEqual([shanghaiDay(start), `${siteCode}-PCS`, 'PCS', 720]);
      expect(values(sheet.getRow(3))).toEqual([shanghaiDay(start + DAY), `${siteCode}-PCS`, 'PCS', 719.5]);
    });

    it('alarms: the events in the range of the chosen levels, with EMS number and device', async () => {
      const body = { ...valid(), type: 'alarms', deviceIds: [pcs, bms], items: ['warning', 'fault'] };
      const response = await download(body, admin.token, 'en');
      expect(response.headers[EXPORT_ROWS_HEADER.toLowerCase()]).toBe('3');
      const sheet = (await workbookOf(response.rawPayload)).getWorksheet('Alarms')!;
      expect(values(sheet.getRow(1))).toEqual([
        'Time (Asia/Shanghai)',
        'EMS number',
        'Device SN',
        'Device type',
        'Event type',
        'Alarm type',
        'Level',
        'Content',
        'Value',
      ]);
      expect(sheet.actualRowCount).toBe(4);
      expect(values(sheet.getRow(2))).toEqual([
        `${shanghaiDay(start)} 01:00:00`,
        `${siteCode}-EMS`,
        `${siteCode}-BMS`,
        'BMS',
        'Produced',
        'bms.cell_overvoltage',
        'Warning',
        '内容 0',
        0,
      ]);
      const faults = await download({ ...body, items: ['fault'] }, admin.token);
      const faultSheet = (await workbookOf(faults.rawPayload)).getWorksheet('告警记录')!;
      expect(faultSheet.actualRowCount).toBe(2);
      expect(values(faultSheet.getRow(2))[6]).toBe('故障');
    });

    it('the file name’s last day holds the range’s last millisecond', async () => {
      const service = new ExportService(db);
      const plan = (endMs: number) => service.plan({ all: true }, exportRequest.parse({ ...valid(), endMs }));
      expect((await plan(start + DAY)).endDay).toBe(shanghaiDay(start));
      expect((await plan(start + DAY + 1)).endDay).toBe(shanghaiDay(start + DAY));
      expect((await plan(start + DAY - MINUTE)).endDay).toBe(shanghaiDay(start));
    });

    it('non-ASCII names get an ASCII fallback and an RFC 5987 filename*', () => {
      expect(attachmentHeader('西湖站_raw_2026-11-14_2026-11-21.xlsx')).toBe(
        `attachment; filename="____raw_2026-11-14_2026-11-21.xlsx"; filename*=UTF-8''${encodeURIComponent('西湖站')}_raw_2026-11-14_2026-11-21.xlsx`,
      );
    });
  });

  describe('large exports stream', () => {
    it(`${BMS_ROWS} rows: read in batches while the file already flows out, every row in the file`, async () => {
      const service = new ExportService(db);
      const plan = await service.plan(
        { all: true },
        exportRequest.parse({ ...valid(), deviceIds: [bms], items: ['soc_pct'], endMs: start + 4 * DAY }),
      );
      expect(plan.rows).toBe(BMS_ROWS);
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      let bytes = 0;
      out.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        bytes += chunk.length;
      });
      const bytesAtBatch: number[] = [];
      const written = await service.write(plan, out, {
        lang: 'zh',
        batchRows: 2000,
        onBatch: () => {
          bytesAtBatch.push(bytes);
        },
      });
      await new Promise((resolve) => (out.readableEnded ? resolve(null) : out.on('end', resolve)));
      expect(written).toBe(BMS_ROWS);
      // 15 full batches and an empty one that ends the device.
      expect(bytesAtBatch.length).toBe(BMS_ROWS / 2000 + 1);
      // Bytes left before the last batch was read, and kept growing: nothing waits for the end.
      expect(bytesAtBatch[bytesAtBatch.length - 2]!).toBeGreaterThan(0);
      expect(bytesAtBatch[10]!).toBeGreaterThan(bytesAtBatch[2]!);
      expect(bytesAtBatch[bytesAtBatch.length - 1]!).toBeLessThan(bytes);
      const sheet = (await workbookOf(Buffer.concat(chunks))).worksheets[1]!;
      expect(sheet.actualRowCount).toBe(1 + BMS_ROWS);
      expect(values(sheet.getRow(1 + BMS_ROWS))).toEqual([
        expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        50 + ((BMS_ROWS - 1) % 40),
      ]);
    }, 120_000);

    it('a client that stalls and goes away: the writer stops reading and settles', async () => {
      const service = new ExportService(db);
      const plan = await service.plan(
        { all: true },
        exportRequest.parse({ ...valid(), deviceIds: [bms], items: ['soc_pct'], endMs: start + 4 * DAY }),
      );
      // Nobody reads `out` (a stalled client; small buffers so it is full after a batch or two);
      // then it is destroyed without an error, as Fastify does with the payload stream when the
      // client aborts.
      const out = new PassThrough({ highWaterMark: 1024 });
      let batches = 0;
      let destroyedAfter: number | null = null;
      const writing = service.write(plan, out, {
        lang: 'zh',
        batchRows: 500,
        onBatch: () => {
          batches += 1;
          if (destroyedAfter === null && out.writableNeedDrain) {
            destroyedAfter = batches;
            setTimeout(() => out.destroy(), 20);
          }
        },
      });
      const outcome = await Promise.race([
        writing,
        new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 10_000)),
      ]);
      expect(destroyedAfter).not.toBeNull();
      expect(outcome).not.toBe('pending');
      expect(outcome).toBeLessThan(BMS_ROWS);
      // No batch was read after the stream went away.
      expect(batches).toBe(destroyedAfter);
    }, 60_000);

    it('the same export over HTTP: the row header and every row', async () => {
      const response = await download({
        ...valid(),
        deviceIds: [bms],
        items: ['soc_pct'],
        endMs: start + 4 * DAY,
      });
      expect(response.headers[EXPORT_ROWS_HEADER.toLowerCase()]).toBe(String(BMS_ROWS));
      const sheet = (await workbookOf(response.rawPayload)).worksheets[1]!;
      expect(sheet.actualRowCount).toBe(1 + BMS_ROWS);
    }, 120_000);
  });
});

function rowsOfPlatform(result: unknown): { id: number }[] {
  return (Array.isArray(result) ? result : (result as { rows: { id: number }[] }).rows).map((r) => ({
    id: Number(r.id),
  }));
}
