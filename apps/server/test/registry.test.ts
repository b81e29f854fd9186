import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type SignedIn, signIn } from './support/client';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('sites and devices on %s', (engine) => {
  let ctx: TestContext;
  let admin: SignedIn;
  beforeAll(async () => {
    ctx = await createTestApp(engine, {}, { devices: { mqttPort: 0, mqttHost: '127.0.0.1' } });
    admin = await signIn(ctx.app);
  });
  afterAll(async () => ctx?.close());

  const api = (path: string, body: object) => call(ctx.app, `/api-bms/${path}`, body, { token: admin.token });

  it('creates a site and a gateway whose secret is answered once, then lists them', async () => {
    const created = await api('site/save', {
      code: 'SH-001',
      name: '上海一号站',
      latitude: 31.23,
      longitude: 121.47,
    });
    expect(created.code).toBe(0);
    const siteId = created.data.id;
    expect((await api('site/save', { code: 'SH-001', name: 'dup' })).code).toBe(3039);

    const ems = await api('device/save', { siteId, sn: 'EMS-SH001-01', type: 'ems', model: 'EMS-215' });
    expect(ems.code).toBe(0);
    expect(ems.data.secret.username).toBe('EMS-SH001-01');
    expect(ems.data.secret.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const pcs = await api('device/save', {
      siteId,
      sn: 'PCS-SH001-01',
      type: 'pcs',
      gatewayId: ems.data.id,
      ratedPowerKw: 100,
      connAddress: '192.168.1.20',
      connPort: 502,
    });
    expect(pcs.code).toBe(0);
    expect(pcs.data.secret).toBeNull();
    expect((await api('device/save', { siteId, sn: 'PCS-SH001-01', type: 'pcs' })).code).toBe(3032);
    expect(
      (await api('device/save', { siteId, sn: 'BAD-IP-01', type: 'pcs', connAddress: '300.1.1.1' })).code,
    ).toBe(-100);
    expect((await api('device/save', { siteId, sn: 'NEG-01', type: 'pcs', ratedPowerKw: -5 })).code).toBe(
      -100,
    );

    const sites = await api('site/pageList', { pageNum: 1, pageSize: 10 });
    const row = sites.data.list.find((s: { id: number }) => s.id === siteId);
    expect(row).toMatchObject({ code: 'SH-001', deviceCount: 2, gateways: 1, ratedPowerKw: 100 });

    const devices = await api('device/pageList', { siteId });
    expect(devices.data.total).toBe(2);
    expect(devices.data.list.map((d: { sn: string }) => d.sn)).toEqual(['EMS-SH001-01', 'PCS-SH001-01']);
    expect(devices.data.list[1].gatewaySn).toBe('EMS-SH001-01');

    expect((await api('device/delete', { id: ems.data.id })).code).toBe(3038);
    expect((await api('site/delete', { id: siteId })).code).toBe(3037);
    expect((await api('device/resetSecret', { id: pcs.data.id })).code).toBe(3031);
    const reissued = await api('device/resetSecret', { id: ems.data.id });
    expect(reissued.data.secret).not.toBe(ems.data.secret.secret);
    expect((await api('device/delete', { id: 999999 })).code).toBe(3030);
    expect((await api('site/update', { id: 999999, code: 'X-1', name: 'x' })).code).toBe(3036);
  });

  it('a gateway is known to the ingest and the broker the moment its registration is answered', async () => {
    const directory = ctx.app.devices!.directory;
    const site = await api('site/save', { code: 'SH-DIR', name: '目录站' });
    // A fresh cache: a miss now is not reloaded (it is less than a second old).
    await directory.refresh();
    const ems = await api('device/save', { siteId: site.data.id, sn: 'EMS-SHDIR-01', type: 'ems' });
    expect(ems.code).toBe(0);
    expect(await directory.lookup('EMS-SHDIR-01')).toMatchObject({ isGateway: true, siteId: site.data.id });
  });
});
