/**
 * /screen/bms — battery detail: SOC, SOH, pack voltage and current, limits, insulation; heat
 * maps of the cell voltages and temperatures (BMS `cells.u_v`, `cells.t_c` from the latest
 * reading, re-read every 10 s since the live channel carries points only), the extremes with
 * their cell numbers and the spread; today's SOC curve. Points live.
 * Test hooks: `bms-soc`, `bms-heat-u`, `bms-heat-t`, `bms-extremes`.
 */
import type { ScreenDevice } from '@ess/contract';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatNumber } from '@/shared/format';
import { Figure, Panel, ScreenChart } from '@/shared/screen';
import CellHeatMap from '../components/CellHeatMap';
import { OnlineTag, pointText } from '../components/common';
import { SiteScreenFrame } from '../components/SiteScreenFrame';
import { deviceOf } from '../useSiteScreen';

/** BMS cells are re-read this often (they are not on the live channel). */
const CELLS_REFRESH_MS = 10_000;

interface Extremes {
  max: number;
  maxNo: number;
  min: number;
  minNo: number;
}

/** Highest and lowest cell of an array with their numbers (1-based). */
export function extremesOf(values: number[] | undefined): Extremes | null {
  if (!values?.length) return null;
  let maxNo = 0;
  let minNo = 0;
  values.forEach((v, i) => {
    if (v > values[maxNo]!) maxNo = i;
    if (v < values[minNo]!) minNo = i;
  });
  return { max: values[maxNo]!, maxNo: maxNo + 1, min: values[minNo]!, minNo: minNo + 1 };
}

function ExtremeRows({ bms }: { bms: ScreenDevice }) {
  const { t } = useTranslation();
  const u = extremesOf(bms.cells?.u_v);
  const temp = extremesOf(bms.cells?.t_c);
  // The arrays when present (same reading); else the BMS's own extreme points.
  const uMax = u?.max ?? bms.points.u_cell_max_v ?? null;
  const uMin = u?.min ?? bms.points.u_cell_min_v ?? null;
  const tMax = temp?.max ?? bms.points.t_cell_max_c ?? null;
  const tMin = temp?.min ?? bms.points.t_cell_min_c ?? null;
  const no = (v: number | undefined | null) => (v === undefined || v === null ? '—' : `#${v}`);
  return (
    <table className="screen-table" data-testid="bms-extremes">
      <thead>
        <tr>
          <th />
          <th className="num">{t('bigscreen.bms.max')}</th>
          <th>{t('bigscreen.bms.cellNo')}</th>
          <th className="num">{t('bigscreen.bms.min')}</th>
          <th>{t('bigscreen.bms.cellNo')}</th>
          <th className="num">{t('bigscreen.bms.spread')}</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <td>{t('bigscreen.bms.cellVoltage')}</td>
          <td className="num">{formatNumber(uMax, 3)} V</td>
          <td>{no(u?.maxNo ?? bms.points.u_cell_max_no)}</td>
          <td className="num">{formatNumber(uMin, 3)} V</td>
          <td>{no(u?.minNo ?? bms.points.u_cell_min_no)}</td>
          <td className="num" data-testid="bms-spread-mv">
            {formatNumber(uMax !== null && uMin !== null ? (uMax - uMin) * 1000 : null, 0)} mV
          </td>
        </tr>
        <tr>
          <td>{t('bigscreen.bms.cellTemp')}</td>
          <td className="num">{formatNumber(tMax, 1)} °C</td>
          <td>{no(temp?.maxNo ?? bms.points.t_cell_max_no)}</td>
          <td className="num">{formatNumber(tMin, 1)} °C</td>
          <td>{no(temp?.minNo ?? bms.points.t_cell_min_no)}</td>
          <td className="num">{formatNumber(tMax !== null && tMin !== null ? tMax - tMin : null, 1)} °C</td>
        </tr>
      </tbody>
    </table>
  );
}

export default function BmsScreen() {
  const { t } = useTranslation();
  const cellLabel = (n: number) => t('bigscreen.bms.cell', { n });
  return (
    <SiteScreenFrame screen="bms" refreshMs={CELLS_REFRESH_MS}>
      {({ data, devices }) => {
        const bms = deviceOf(devices, 'bms');
        if (!bms) return <div className="screen-empty">{t('bigscreen.noDevice', { type: 'BMS' })}</div>;
        const u = bms.cells?.u_v ?? [];
        const temp = bms.cells?.t_c ?? [];
        return (
          <div className="screen-grid screen-grid--bms">
            <Panel title={`BMS · ${bms.sn}`} className="area-a" extra={<OnlineTag device={bms} />}>
              <div className="figures figures--8">
                <Figure label="SOC" value={pointText(bms, 'soc_pct')} unit="%" tone="info" testId="bms-soc" />
                <Figure label="SOH" value={pointText(bms, 'soh_pct')} unit="%" />
                <Figure
                  label={t('bigscreen.bms.packU')}
                  value={pointText(bms, 'u_pack_v')}
                  unit="V"
                  testId="bms-pack-u"
                />
                <Figure
                  label={t('bigscreen.bms.packI')}
                  value={pointText(bms, 'i_pack_a')}
                  unit="A"
                  testId="bms-pack-i"
                />
                <Figure
                  label={t('bigscreen.bms.chargeLimit')}
                  value={pointText(bms, 'charge_limit_kw')}
                  unit="kW"
                />
                <Figure
                  label={t('bigscreen.bms.dischargeLimit')}
                  value={pointText(bms, 'discharge_limit_kw')}
                  unit="kW"
                />
                <Figure
                  label={t('bigscreen.bms.insulation')}
                  value={pointText(bms, 'insulation_kohm', 0)}
                  unit="kΩ"
                />
                <Figure label={t('bigscreen.capacity')} value={formatNumber(bms.capacityKwh, 0)} unit="kWh" />
              </div>
            </Panel>
            <Panel
              title={`${t('bigscreen.bms.heatU')} (${u.length})`}
              className="area-b"
              extra={<span className="screen-note">{formatDateTime(bms.cellsTs, data.site.timezone)}</span>}
            >
              {u.length ? (
                <CellHeatMap
                  values={u}
                  unit="V"
                  digits={3}
                  cellLabel={cellLabel}
                  colors={['#0050b3', '#13c2c2', '#fadb14', '#ff4d4f']}
                  testId="bms-heat-u"
                />
              ) : (
                <div className="screen-empty">{t('bigscreen.bms.noCells')}</div>
              )}
            </Panel>
            <Panel title={`${t('bigscreen.bms.heatT')} (${temp.length})`} className="area-c">
              {temp.length ? (
                <CellHeatMap
                  values={temp}
                  unit="°C"
                  digits={1}
                  cellLabel={cellLabel}
                  colors={['#1d39c4', '#36cfc9', '#ffc53d', '#f5222d']}
                  testId="bms-heat-t"
                />
              ) : (
                <div className="screen-empty">{t('bigscreen.bms.noCells')}</div>
              )}
            </Panel>
            <Panel title={t('bigscreen.bms.extremes')} className="area-d">
              <ExtremeRows bms={bms} />
            </Panel>
            <Panel title={t('bigscreen.bms.socCurve')} className="area-e">
              <ScreenChart
                testId="bms-curve"
                timeZone={data.site.timezone}
                ts={data.curve.ts}
                series={[{ name: 'SOC', unit: '%', values: data.curve.socPct, color: '#36cfc9', area: true }]}
              />
            </Panel>
          </div>
        );
      }}
    </SiteScreenFrame>
  );
}
