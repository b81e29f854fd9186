/**
 * /screen/pcs — converter detail of the site's PCS: state, active/reactive power, power
 * factor, frequency, per-phase voltages and currents, DC side, IGBT temperature, energy
 * registers, and today's power and IGBT temperature curves; live.
 * Test hooks: `pcs-state`, `pcs-p-kw`, `pcs-phases`, `pcs-igbt`, `pcs-curve`.
 */
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatNumber } from '@/shared/format';
import { Figure, Panel, ScreenChart } from '@/shared/screen';
import { AlarmList, OnlineTag, pointText } from '../components/common';
import { SiteScreenFrame } from '../components/SiteScreenFrame';
import { deviceOf } from '../useSiteScreen';

/** `state` point of a PCS: 0 standby, 1 charging, 2 discharging, 3 fault. */
const STATES = ['standby', 'charging', 'discharging', 'fault'] as const;

export default function PcsScreen() {
  const { t } = useTranslation();
  return (
    <SiteScreenFrame screen="pcs">
      {({ data, devices }) => {
        const pcs = deviceOf(devices, 'pcs');
        if (!pcs) return <div className="screen-empty">{t('bigscreen.noDevice', { type: 'PCS' })}</div>;
        const state = STATES[pcs.points.state ?? -1];
        const igbt = pcs.points.t_igbt_c ?? null;
        return (
          <div className="screen-grid screen-grid--detail">
            <Panel title={`PCS · ${pcs.sn}`} className="area-a" extra={<OnlineTag device={pcs} />}>
              <div className="figures figures--4">
                <Figure
                  label={t('bigscreen.pcs.state')}
                  value={state ? t(`bigscreen.pcs.${state}`) : '—'}
                  tone={state === 'fault' ? 'bad' : state === 'standby' ? undefined : 'good'}
                  testId="pcs-state"
                />
                <Figure
                  label={t('bigscreen.pcs.p')}
                  value={pointText(pcs, 'p_kw')}
                  unit="kW"
                  testId="pcs-p-kw"
                />
                <Figure label={t('bigscreen.pcs.q')} value={pointText(pcs, 'q_kvar')} unit="kvar" />
                <Figure label={t('bigscreen.pcs.pf')} value={pointText(pcs, 'pf', 3)} />
                <Figure label={t('bigscreen.pcs.freq')} value={pointText(pcs, 'freq_hz', 2)} unit="Hz" />
                <Figure
                  label={t('bigscreen.pcs.igbt')}
                  value={formatNumber(igbt, 1)}
                  unit="°C"
                  tone={igbt !== null && igbt >= 85 ? 'bad' : 'info'}
                  testId="pcs-igbt"
                />
                <Figure label={t('bigscreen.pcs.dcU')} value={pointText(pcs, 'dc_u_v')} unit="V" />
                <Figure label={t('bigscreen.pcs.dcI')} value={pointText(pcs, 'dc_i_a')} unit="A" />
              </div>
            </Panel>
            <Panel title={t('bigscreen.pcs.phases')} className="area-b">
              <table className="screen-table screen-table--big" data-testid="pcs-phases">
                <thead>
                  <tr>
                    <th>{t('bigscreen.pcs.phase')}</th>
                    <th className="num">{t('bigscreen.pcs.voltage')} (V)</th>
                    <th className="num">{t('bigscreen.pcs.current')} (A)</th>
                  </tr>
                </thead>
                <tbody>
                  {(['a', 'b', 'c'] as const).map((ph) => (
                    <tr key={ph}>
                      <td>{ph.toUpperCase()}</td>
                      <td className="num">{pointText(pcs, `u_${ph}_v`)}</td>
                      <td className="num">{pointText(pcs, `i_${ph}_a`)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div className="figures figures--2 figures--gap">
                <Figure
                  label={t('bigscreen.pcs.chargeTotal')}
                  value={pointText(pcs, 'e_charge_total_kwh', 0)}
                  unit="kWh"
                />
                <Figure
                  label={t('bigscreen.pcs.dischargeTotal')}
                  value={pointText(pcs, 'e_discharge_total_kwh', 0)}
                  unit="kWh"
                />
              </div>
              <div className="screen-note">
                {t('bigscreen.updatedAt', { time: formatDateTime(pcs.ts, data.site.timezone) })} ·{' '}
                {t('bigscreen.ratedPower')} {formatNumber(pcs.ratedPowerKw, 0)} kW · {pcs.model ?? '—'}
              </div>
            </Panel>
            <Panel title={t('bigscreen.pcs.curve')} className="area-c">
              <ScreenChart
                testId="pcs-curve"
                timeZone={data.site.timezone}
                ts={data.curve.ts}
                series={[
                  {
                    name: t('bigscreen.pcs.p'),
                    unit: 'kW',
                    values: data.curve.batteryKw,
                    color: '#36cfc9',
                    area: true,
                  },
                  { name: t('bigscreen.pcs.igbt'), unit: '°C', values: data.curve.igbtC, color: '#ff7a45' },
                ]}
              />
            </Panel>
            <Panel title={t('bigscreen.activeAlarms')} className="area-d">
              <AlarmList alarms={data.alarms.filter((a) => a.deviceType === 'pcs')} max={6} />
            </Panel>
          </div>
        );
      }}
    </SiteScreenFrame>
  );
}
