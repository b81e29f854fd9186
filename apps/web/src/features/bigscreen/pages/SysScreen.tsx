/**
 * /screen/sys — one site's system overview: energy flow (grid, PV, load, battery with SOC),
 * today's energy and revenue estimate, site figures, today's 15-minute power curve and the
 * active alarms; live points over the `device:<id>` channels.
 * Test hooks: `sys-figures`, `sys-battery-kw`, `sys-soc`, `flow-*`, `sys-curve`, `screen-alarms`.
 */
import { siteFigures } from '@ess/contract';
import { useTranslation } from 'react-i18next';
import { formatCny, formatNumber } from '@/shared/format';
import { Figure, Panel, ScreenChart } from '@/shared/screen';
import { AlarmList } from '../components/common';
import { PowerFlow } from '../components/PowerFlow';
import { SiteScreenFrame } from '../components/SiteScreenFrame';

export default function SysScreen() {
  const { t } = useTranslation();
  return (
    <SiteScreenFrame screen="sys">
      {({ data, devices }) => {
        // SOC and power by the site-figure rule (BMS, PCS, meter, PV; else the gateway's own points).
        const figures = siteFigures(devices);
        const battery = figures.batteryKw;
        const soc = figures.socPct;
        const hasPv = devices.some((d) => d.type === 'pv') || figures.pvKw !== null;
        const c = data.curve;
        return (
          <div className="screen-grid screen-grid--sys">
            <Panel title={data.site.name} className="area-a" testId="sys-figures">
              <div className="figures figures--2">
                <Figure
                  label={t('bigscreen.capacity')}
                  value={formatNumber(data.site.capacityKwh, 0)}
                  unit="kWh"
                />
                <Figure
                  label={t('bigscreen.ratedPower')}
                  value={formatNumber(data.site.ratedPowerKw, 0)}
                  unit="kW"
                />
                <Figure label="SOC" value={formatNumber(soc, 1)} unit="%" tone="info" testId="sys-soc" />
                <Figure
                  label={t('bigscreen.batteryPower')}
                  value={formatNumber(battery, 1)}
                  unit="kW"
                  testId="sys-battery-kw"
                />
                <Figure label={t('bigscreen.gridPower')} value={formatNumber(figures.gridKw, 1)} unit="kW" />
                <Figure label={t('bigscreen.pvPower')} value={formatNumber(figures.pvKw, 1)} unit="kW" />
              </div>
            </Panel>
            <Panel title={t('bigscreen.today')} className="area-b" testId="sys-today">
              <div className="figures figures--2">
                <Figure
                  label={t('bigscreen.charged')}
                  value={formatNumber(data.today.chargeKwh, 1)}
                  unit="kWh"
                />
                <Figure
                  label={t('bigscreen.discharged')}
                  value={formatNumber(data.today.dischargeKwh, 1)}
                  unit="kWh"
                />
                <Figure
                  label={t('bigscreen.imported')}
                  value={formatNumber(data.today.importKwh, 1)}
                  unit="kWh"
                />
                <Figure
                  label={t('bigscreen.exported')}
                  value={formatNumber(data.today.exportKwh, 1)}
                  unit="kWh"
                />
                <Figure label={t('bigscreen.pvYield')} value={formatNumber(data.today.pvKwh, 1)} unit="kWh" />
                <Figure
                  label={t('bigscreen.revenueToday')}
                  value={formatCny(data.today.revenueCny)}
                  unit={t('bigscreen.cny')}
                  tone="good"
                />
              </div>
            </Panel>
            <Panel title={t('bigscreen.flow.title')} className="area-c">
              <PowerFlow
                gridKw={figures.gridKw}
                pvKw={figures.pvKw}
                batteryKw={battery}
                loadKw={figures.loadKw}
                socPct={soc}
                hasPv={hasPv}
              />
            </Panel>
            <Panel title={t('bigscreen.powerCurve')} className="area-d">
              <ScreenChart
                testId="sys-curve"
                timeZone={data.site.timezone}
                ts={c.ts}
                series={[
                  {
                    name: t('bigscreen.flow.battery'),
                    unit: 'kW',
                    values: c.batteryKw,
                    color: '#36cfc9',
                    area: true,
                  },
                  { name: t('bigscreen.flow.grid'), unit: 'kW', values: c.gridKw, color: '#9254de' },
                  { name: t('bigscreen.flow.pv'), unit: 'kW', values: c.pvKw, color: '#fadb14' },
                  {
                    name: t('bigscreen.flow.load'),
                    unit: 'kW',
                    values: c.loadKw,
                    color: '#bfbfbf',
                    dashed: true,
                  },
                ]}
              />
            </Panel>
            <Panel
              title={t('bigscreen.activeAlarms')}
              className="area-e"
              extra={<span className="screen-note">{data.alarms.length}</span>}
            >
              <AlarmList alarms={data.alarms} max={9} />
            </Panel>
          </div>
        );
      }}
    </SiteScreenFrame>
  );
}
