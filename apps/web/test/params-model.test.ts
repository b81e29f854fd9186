/**
 * What the parameter form computes (features/params/model.ts) from a device's shadow and the
 * operator's edits: which edits are changes to send, which issues show at which field (the
 * contract's messages, spec §5 wording), which of them keep the changes from being sent, how a
 * refusal reads, and which devices a copy may go to.
 */
import {
  type DeviceType,
  defaultParams,
  type ParamRow,
  type ParamsDeviceResponse,
  type ParamsTreeSite,
  paramDefs,
  paramIssueText,
} from '@ess/contract';
import { describe, expect, it } from 'vitest';
import {
  blockingIssues,
  changesOf,
  copyTargets,
  formatParamValue,
  formIssues,
  nestDevices,
  refusalText,
} from '../src/features/params/model';

/** A device of `type` whose every parameter is wanted and reported at its default (`over` changes rows). */
function device(
  type: DeviceType,
  over: Record<string, Partial<ParamRow>> = {},
): Pick<ParamsDeviceResponse, 'params' | 'type'> {
  const defaults = defaultParams(type);
  return {
    type,
    params: paramDefs(type).map((d) => ({
      key: d.key,
      desired: defaults[d.key] ?? null,
      reported: defaults[d.key] ?? null,
      state: 'in_sync',
      reason: null,
      messageKey: null,
      messageParams: null,
      changedAt: null,
      ...over[d.key],
    })),
  };
}

const ac = () => device('air_conditioner', { ac_type: { desired: 'cabinet', reported: 'cabinet' } });

describe('parameter form', () => {
  it('an edit of the cooling start is one change, old → new with the unit', () => {
    const d = ac();
    const changes = changesOf('air_conditioner', d, { cooling_start_c: 30 });
    expect(changes.map((c) => [c.key, c.from, c.to])).toEqual([['cooling_start_c', 28, 30]]);
    expect(formatParamValue(changes[0]!.def, changes[0]!.to, 'zh')).toBe('30.0 °C');
    expect(formIssues('air_conditioner', d, { cooling_start_c: 30 }).size).toBe(0);
  });

  it('an edit back to the value in force is no change', () => {
    expect(changesOf('air_conditioner', ac(), { cooling_start_c: 28 })).toEqual([]);
  });

  it('a cooling start of 45 shows the spec’s range at the field, in zh and en, and blocks sending', () => {
    const d = ac();
    const draft = { cooling_start_c: 45 };
    const issues = formIssues('air_conditioner', d, draft);
    const issue = issues.get('cooling_start_c')!;
    expect(paramIssueText('air_conditioner', issue, 'zh')).toBe('制冷开启温度应在25.0到40.0之间');
    expect(paramIssueText('air_conditioner', issue, 'en')).toBe(
      'Cooling start temperature must be between 25.0 and 40.0',
    );
    expect(blockingIssues(issues, d, draft)).toHaveLength(1);
  });

  it('a cooling start at or below the cooling stop marks the cooling stop (rule between the two) and blocks', () => {
    const d = ac();
    const draft = { cooling_start_c: 25 };
    const issues = formIssues('air_conditioner', d, draft);
    expect([...issues.keys()]).toEqual(['cooling_stop_c']);
    expect(paramIssueText('air_conditioner', issues.get('cooling_stop_c')!, 'en')).toBe(
      'Cooling stop temperature must be below the cooling start temperature',
    );
    expect(blockingIssues(issues, d, draft)).toHaveLength(1);
  });

  it('an emptied required field says it cannot be empty and sends nothing', () => {
    const d = ac();
    const draft = { high_temp_alarm_c: null };
    expect(changesOf('air_conditioner', d, draft)).toEqual([]);
    const issue = formIssues('air_conditioner', d, draft).get('high_temp_alarm_c')!;
    expect(paramIssueText('air_conditioner', issue, 'zh')).toBe('高温告警值不能为空');
  });

  it('an issue of a value the device runs that no edit touches is shown but does not block', () => {
    const d = device('air_conditioner', {
      ac_type: { desired: 'cabinet', reported: 'cabinet' },
      low_temp_alarm_c: { desired: null, reported: 50 },
    });
    const draft = { cooling_start_c: 30 };
    const issues = formIssues('air_conditioner', d, draft);
    expect([...issues.keys()]).toEqual(['high_temp_alarm_c']);
    expect(blockingIssues(issues, d, draft)).toEqual([]);
  });

  it('a static IP brings its fields in: empty ones say so, a wrong address gets the spec’s text', () => {
    const d = device('ems');
    const issues = formIssues('ems', d, { ip_mode: 'static', ip_address: '192.168.1.300' });
    expect(paramIssueText('ems', issues.get('ip_address')!, 'en')).toBe(
      'Please enter the correct Ip address',
    );
    expect(paramIssueText('ems', issues.get('subnet_mask')!, 'zh')).toBe('子网掩码不能为空');
    // Under DHCP the same fields do not apply: no issue, nothing sent.
    const dhcp = { ip_address: '192.168.1.300' };
    expect(formIssues('ems', d, dhcp).has('ip_address')).toBe(false);
    expect(changesOf('ems', d, dhcp)).toEqual([]);
  });

  it('a wrong SIM number gets the spec’s phone text', () => {
    const issue = formIssues('ems', device('ems'), { sim_number: '12345' }).get('sim_number')!;
    expect(paramIssueText('ems', issue, 'zh')).toBe('请输入正确的手机号码');
  });

  it('a refusal reads in the operator’s language when the device named the rule, else the device’s reason', () => {
    const row = {
      key: 'cooling_stop_c',
      reason: 'Cooling stop temperature must be below the cooling start temperature',
      messageKey: 'paramMustBeBelow',
      messageParams: { other: 'cooling_start_c' },
    };
    expect(refusalText('air_conditioner', row, 'zh')).toBe('制冷停止温度必须低于制冷开启温度');
    expect(refusalText('air_conditioner', { ...row, messageKey: 'vendor_lock' }, 'zh')).toBe(row.reason);
  });
});

describe('device tree', () => {
  const site = (siteId: number, devices: ParamsTreeSite['devices']): ParamsTreeSite => ({
    siteId,
    siteName: `S${siteId}`,
    companyName: 'C',
    timezone: 'Asia/Shanghai',
    initializedAt: null,
    devices,
  });
  const dev = (deviceId: number, type: DeviceType, model: string | null, gatewayId: number | null) => ({
    deviceId,
    sn: `SN${deviceId}`,
    type,
    model,
    gatewayId,
    online: true,
    outOfSync: 0,
    drift: false,
  });
  const sites = [
    site(1, [
      dev(1, 'ems', 'E1', null),
      dev(2, 'air_conditioner', 'AC-5', 1),
      dev(3, 'air_conditioner', 'AC-7', 1),
    ]),
    site(2, [dev(4, 'ems', 'E1', null), dev(5, 'air_conditioner', 'AC-5', 4)]),
  ];

  it('a copy goes to devices of the same type and model on any site, never to the source', () => {
    expect(copyTargets(sites, dev(2, 'air_conditioner', 'AC-5', 1)).map((d) => d.deviceId)).toEqual([5]);
    expect(copyTargets(sites, dev(1, 'ems', 'E1', null)).map((d) => [d.deviceId, d.site.siteId])).toEqual([
      [4, 2],
    ]);
  });

  it('devices hang under their gateway', () => {
    expect(
      nestDevices(sites[0]!.devices).map((n) => [n.device.deviceId, n.children.map((c) => c.deviceId)]),
    ).toEqual([[1, [2, 3]]]);
  });
});
