/**
 * A gateway-only site (issue 14, item 4): a site whose only device is its gateway, reporting its
 * own points as README's "Connect a device" example does (`mosquitto_pub` of an EMS entry with
 * `soc_pct`), shows that SOC in site monitoring, on the site list and on the dashboard, and the
 * gateway on the device panels (the EMS panel); its own power and energy registers make the
 * site's figures. A site with a BMS and a PCS takes SOC and power from them even when its
 * gateway reports some too — the one site-figure rule (contract device/site-figures.ts) on the
 * server and in the contract's `siteFigures` give the same figures.
 */
import {
  deviceTopic,
  endpoints,
  siteFigures,
  siteMonitorDetailResponse,
  siteMonitorListResponse,
} from '@ess/contract';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type SignedIn, signIn } from './support/client';
import { conforms } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('a gateway-only site on %s', (engine) => {
  let ctx: TestContext;
  let admin: SignedIn;
  let client: mqtt.MqttClient;
  let siteId: number;
  let gateway: { id: number; sn: string };
  let msg = 0;
  const api = (path: string, body: object) => call(ctx.app, path, body, { token: admin.token });

  /** A telemetry message of the gateway about itself, QoS 1 (acknowledged once stored). */
  const report = (points: Record<string, number>, ts = Date.now()) =>
    client.publishAsync(
      deviceTopic(gateway.sn, 'telemetry'),
      JSON.stringify({ v: 1, id: String(++msg), ts, devices: [{ sn: gateway.sn, type: 'ems', points }] }),
      { qos: 1 },
    );
  const detail = async () => {
    const answer = await api(endpoints.siteMonitor.site.path, { siteId });
    expect(answer.code, answer.msg).toBe(0);
    return conforms(siteMonitorDetailResponse, answer.data);
  };

  beforeAll(async () => {
    ctx = await createTestApp(engine, {}, { devices: { mqttPort: 0, mqttHost: '127.0.0.1' } });
    admin = await signIn(ctx.app);
    const site = await api(endpoints.site.save.path, { code: `GW-ONLY-${engine}`, name: '网关直报站' });
    expect(site.code, site.msg).toBe(0);
    siteId = site.data.id;
    const saved = await api(endpoints.device.save.path, {
      siteId,
      sn: `EMS-GWO-${engine}`,
      type: 'ems',
      capacityKwh: 50,
      ratedPowerKw: 25,
    });
    expect(saved.code, saved.msg).toBe(0);
    gateway = { id: saved.data.id, sn: saved.data.secret.sn };
    client = await mqtt.connectAsync(`mqtt://127.0.0.1:${saved.data.secret.mqttPort}`, {
      clientId: gateway.sn,
      username: gateway.sn,
      password: saved.data.secret.secret,
      reconnectPeriod: 0,
    });
  });
  afterAll(async () => {
    await client?.endAsync();
    await ctx?.close();
  });

  it('README example: the SOC the gateway reports is the site SOC; the gateway is on the panels', async () => {
    // As README "Connect a device": a retained birth, then the EMS's own telemetry.
    await client.publishAsync(
      deviceTopic(gateway.sn, 'status'),
      JSON.stringify({ v: 1, ts: Date.now(), online: true }),
      { qos: 1, retain: true },
    );
    await report({ soc_pct: 57 });

    const d = await detail();
    // Capacity and rated power: the gateway's, as the site has no BMS or PCS.
    expect(d.site).toMatchObject({
      siteId,
      online: true,
      socPct: 57,
      status: 'online',
      capacityKwh: 50,
      ratedPowerKw: 25,
    });
    expect(d.devices.map((x) => x.sn)).toEqual([gateway.sn]);
    expect(d.panels.ems).toEqual([
      expect.objectContaining({
        deviceId: gateway.id,
        sn: gateway.sn,
        points: [{ name: 'soc_pct', value: 57 }],
      }),
    ]);

    // The site list and the dashboard carry the same figure.
    const list = conforms(siteMonitorListResponse, (await api(endpoints.siteMonitor.sites.path, {})).data);
    expect(list.sites.find((s) => s.siteId === siteId)).toMatchObject({ socPct: 57, online: true });
    const dash = await api(endpoints.dashboard.overview.path, {});
    expect(dash.code, dash.msg).toBe(0);
    expect(dash.data.sites.find((s: { siteId: number }) => s.siteId === siteId)).toMatchObject({
      socPct: 57,
    });
    const registry = await api(endpoints.site.pageList.path, { pageNum: 1, pageSize: 50 });
    expect(registry.data.list.find((s: { id: number }) => s.id === siteId)).toMatchObject({
      capacityKwh: 50,
      ratedPowerKw: 25,
    });
  });

  it("the gateway's own power and energy registers make the site's power, energy flow and today's kWh", async () => {
    const now = Date.now();
    await report(
      {
        soc_pct: 56,
        p_kw: -12.5,
        grid_kw: 20,
        pv_kw: 3,
        load_kw: 10.5,
        e_charge_total_kwh: 100,
        e_discharge_total_kwh: 40,
      },
      now - 2,
    );
    await report(
      {
        soc_pct: 55.5,
        p_kw: -12,
        grid_kw: 19.5,
        pv_kw: 3,
        load_kw: 10.5,
        e_charge_total_kwh: 104.5,
        e_discharge_total_kwh: 41,
      },
      now - 1,
    );

    const d = await detail();
    expect(d.site).toMatchObject({
      socPct: 55.5,
      batteryPowerKw: -12,
      gridPowerKw: 19.5,
      todayChargeKwh: 4.5,
      todayDischargeKwh: 1,
    });
    // Grid measured: load = grid + PV + battery (the reported load_kw is shown on the EMS panel).
    expect(d.panels.energyFlow).toMatchObject({
      batteryKw: -12,
      gridKw: 19.5,
      pvKw: 3,
      loadKw: 10.5,
      batteryDirection: 'in',
      gridDirection: 'in',
    });
    expect(d.panels.ems[0]!.points.map((p) => p.name)).toEqual([
      'soc_pct',
      'p_kw',
      'grid_kw',
      'pv_kw',
      'load_kw',
      'e_charge_total_kwh',
      'e_discharge_total_kwh',
    ]);
  });

  it('a BMS and a PCS, once registered, provide SOC and power instead of the gateway; server and contract agree', async () => {
    const bms = await api(endpoints.device.save.path, {
      siteId,
      sn: `BMS-GWO-${engine}`,
      type: 'bms',
      gatewayId: gateway.id,
      capacityKwh: 200,
    });
    const pcs = await api(endpoints.device.save.path, {
      siteId,
      sn: `PCS-GWO-${engine}`,
      type: 'pcs',
      gatewayId: gateway.id,
      ratedPowerKw: 100,
    });
    expect([bms.code, pcs.code]).toEqual([0, 0]);
    // The registry reloads the broker's directory after answering (onResponse): wait for it, so
    // the telemetry below is not read against the directory of before the two new devices.
    await ctx.app.devices!.directory.refresh();
    await client.publishAsync(
      deviceTopic(gateway.sn, 'telemetry'),
      JSON.stringify({
        v: 1,
        id: String(++msg),
        ts: Date.now(),
        devices: [
          { sn: gateway.sn, type: 'ems', points: { soc_pct: 50, p_kw: -5 } },
          { sn: `BMS-GWO-${engine}`, type: 'bms', points: { soc_pct: 61.5 } },
          { sn: `PCS-GWO-${engine}`, type: 'pcs', points: { p_kw: 30 } },
        ],
      }),
      { qos: 1 },
    );
    const d = await detail();
    expect(d.site).toMatchObject({ socPct: 61.5, batteryPowerKw: 30, capacityKwh: 200, ratedPowerKw: 100 });
    expect(d.panels.energyFlow.batteryKw).toBe(30);
    expect(d.panels.ems).toHaveLength(1);
    expect(d.panels.bms).toHaveLength(1);
    const sameRule = siteFigures(
      d.devices.map((x) => ({ ...x, capacityKwh: x.type === 'bms' ? 200 : null })),
    );
    expect({ socPct: sameRule.socPct, batteryKw: sameRule.batteryKw, gridKw: sameRule.gridKw }).toEqual({
      socPct: d.site.socPct,
      batteryKw: d.site.batteryPowerKw,
      gridKw: d.site.gridPowerKw,
    });
  });
});
