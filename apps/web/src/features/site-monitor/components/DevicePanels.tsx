/**
 * The device panels of a site: the gateway (EMS), PCS, BMS, meter, PV, environment ("moving
 * ring") and air conditioner, one card per device, each reading with its unit; a reading the
 * device did not report shows "—". The EMS card lists the gateway's own points (a gateway-only
 * site has only this card) labelled by the contract's point table (`pointLabel`, `pointUnit`).
 * Values come from the site detail (device_latest) and follow the live `device:<id>` channels.
 * A meter a project declares as its storage meter is tagged so (it is no source of the site's
 * grid power: contract site-figure rule).
 * Test hooks: `panel-<ems|pcs|bms|meter|pv|env|ac>-<deviceId>`, readings `reading-<key>` (the
 * EMS card's keys are point names), `storage-meter-<deviceId>`.
 */
import {
  type AirConditionerPanel,
  type BmsPanel,
  CELL_SPREAD_WARN_MV,
  type EmsPanel,
  type EnvPanel,
  type MeterPanel,
  type PcsPanel,
  type PvPanel,
  pointLabel,
  pointUnit,
  type SiteDetailDevice,
  type SitePanels,
} from '@ess/contract';
import { Tag, Tooltip } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber, formatTime, NO_VALUE } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';
import { currentLang } from '@/shared/i18n';

/** `12.3 V`; "—" for no value. */
function q(value: number | null, unit: string, digits = 1): string {
  const text = formatNumber(value, digits);
  return text === NO_VALUE || unit === '' ? text : `${text} ${unit}`;
}

/** Three phases: `230.1 / 229.8 / 231.2 V`. */
function phases(values: (number | null)[], unit: string, digits = 1): string {
  if (values.every((v) => v === null)) return NO_VALUE;
  return `${values.map((v) => formatNumber(v, digits)).join(' / ')} ${unit}`;
}

type PanelKind = 'ems' | 'pcs' | 'bms' | 'meter' | 'pv' | 'env' | 'ac';

/** PCS `state` codes 0…3 (docs/device-protocol.md) → keys of the translated names. */
const PCS_STATES = ['standby', 'charging', 'discharging', 'fault'] as const;
/** Air-conditioner `state` codes 0…3 → keys of the translated names. */
const AC_STATES = ['off', 'cooling', 'heating', 'fan'] as const;

/** The name key of a state code, or undefined for a code outside the list. */
function stateKey<K extends string>(names: readonly K[], value: number | null): K | undefined {
  return value !== null && Number.isInteger(value) ? names[value] : undefined;
}

interface Reading {
  key: string;
  label: string;
  value: ReactNode;
  tone?: 'warn' | 'bad';
}

function Readings({ items }: { items: Reading[] }) {
  return (
    <dl className="readings">
      {items.map((r) => (
        <div key={r.key} className="readings__item" data-testid={`reading-${r.key}`}>
          <dt>{r.label}</dt>
          <dd className={r.tone ? `readings__value--${r.tone}` : undefined}>{r.value}</dd>
        </div>
      ))}
    </dl>
  );
}

function DeviceCard({
  kind,
  panel,
  device,
  children,
}: {
  kind: PanelKind;
  panel: { deviceId: number; sn: string; ts: number | null };
  device: SiteDetailDevice | undefined;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const timeZone = useTimeBase();
  return (
    <section className="panel monitor-card" data-testid={`panel-${kind}-${panel.deviceId}`}>
      <header className="panel__head">
        <h3 className="panel__title">
          {t(`siteMonitor.panels.${kind}`)} <span className="monitor-card__sn">{panel.sn}</span>
          {device?.storageMeter && (
            <Tooltip title={t('siteMonitor.panels.storageMeterHint')}>
              <Tag
                color="purple"
                className="monitor-card__role"
                data-testid={`storage-meter-${panel.deviceId}`}
              >
                {t('siteMonitor.panels.storageMeter')}
              </Tag>
            </Tooltip>
          )}
        </h3>
        <span className="panel__note">
          {device && !device.online && <Tag color="default">{t('siteMonitor.status.offline')}</Tag>}
          {panel.ts === null ? t('siteMonitor.panels.noData') : formatTime(panel.ts, timeZone)}
        </span>
      </header>
      {children}
    </section>
  );
}

/** Decimals of an EMS point by its unit: SOC, power and energy 1, flags and modes none. */
function emsDigits(unit: string): number {
  return unit === '' ? 0 : 1;
}

/** The gateway's own points, SOC always (— until reported), labelled by the contract's table. */
function EmsReadings({ p }: { p: EmsPanel }) {
  useTranslation(); // re-render on a language switch (labels come from the contract)
  const lang = currentLang();
  const points = p.points.some((x) => x.name === 'soc_pct')
    ? p.points
    : [{ name: 'soc_pct', value: null as number | null }, ...p.points];
  return (
    <Readings
      items={points.map(({ name, value }) => {
        const unit = pointUnit(name, 'ems');
        return { key: name, label: pointLabel(name, 'ems', lang), value: q(value, unit, emsDigits(unit)) };
      })}
    />
  );
}

function PcsReadings({ p }: { p: PcsPanel }) {
  const { t } = useTranslation();
  const key = stateKey(PCS_STATES, p.state);
  const state = p.state === null ? NO_VALUE : key ? t(`siteMonitor.pcs.states.${key}`) : String(p.state);
  return (
    <Readings
      items={[
        {
          key: 'state',
          label: t('siteMonitor.pcs.state'),
          value: state,
          tone: p.state === 3 ? 'bad' : undefined,
        },
        { key: 'p_kw', label: t('siteMonitor.pcs.power'), value: q(p.pKw, 'kW') },
        { key: 'q_kvar', label: t('siteMonitor.pcs.reactive'), value: q(p.qKvar, 'kvar') },
        { key: 'pf', label: t('siteMonitor.pcs.pf'), value: q(p.pf, '', 3) },
        { key: 'freq_hz', label: t('siteMonitor.pcs.freq'), value: q(p.freqHz, 'Hz', 2) },
        { key: 'u_v', label: t('siteMonitor.pcs.voltage'), value: phases([p.uAV, p.uBV, p.uCV], 'V') },
        { key: 'i_a', label: t('siteMonitor.pcs.current'), value: phases([p.iAA, p.iBA, p.iCA], 'A') },
        { key: 'dc_u_v', label: t('siteMonitor.pcs.dcVoltage'), value: q(p.dcUV, 'V') },
        { key: 'dc_i_a', label: t('siteMonitor.pcs.dcCurrent'), value: q(p.dcIA, 'A') },
        { key: 't_igbt_c', label: t('siteMonitor.pcs.igbt'), value: q(p.tIgbtC, '°C') },
        { key: 'e_charge', label: t('siteMonitor.pcs.chargeTotal'), value: q(p.eChargeTotalKwh, 'kWh') },
        {
          key: 'e_discharge',
          label: t('siteMonitor.pcs.dischargeTotal'),
          value: q(p.eDischargeTotalKwh, 'kWh'),
        },
      ]}
    />
  );
}

function BmsReadings({ p }: { p: BmsPanel }) {
  const { t } = useTranslation();
  const at = (no: number | null) => (no === null ? '' : ` · ${t('siteMonitor.bms.cellNo', { no })}`);
  return (
    <Readings
      items={[
        { key: 'soc_pct', label: 'SOC', value: q(p.socPct, '%') },
        { key: 'soh_pct', label: 'SOH', value: q(p.sohPct, '%') },
        { key: 'u_pack_v', label: t('siteMonitor.bms.packVoltage'), value: q(p.uPackV, 'V') },
        { key: 'i_pack_a', label: t('siteMonitor.bms.packCurrent'), value: q(p.iPackA, 'A') },
        {
          key: 'u_cell_max',
          label: t('siteMonitor.bms.cellMax'),
          value: `${q(p.uCellMaxV, 'V', 3)}${at(p.uCellMaxNo)}`,
        },
        {
          key: 'u_cell_min',
          label: t('siteMonitor.bms.cellMin'),
          value: `${q(p.uCellMinV, 'V', 3)}${at(p.uCellMinNo)}`,
        },
        {
          key: 'u_cell_diff',
          label: t('siteMonitor.bms.cellSpread'),
          value: q(p.uCellDiffMv, 'mV', 0),
          tone: p.uCellDiffMv !== null && p.uCellDiffMv > CELL_SPREAD_WARN_MV ? 'warn' : undefined,
        },
        {
          key: 't_cell_max',
          label: t('siteMonitor.bms.tempMax'),
          value: `${q(p.tCellMaxC, '°C')}${at(p.tCellMaxNo)}`,
        },
        {
          key: 't_cell_min',
          label: t('siteMonitor.bms.tempMin'),
          value: `${q(p.tCellMinC, '°C')}${at(p.tCellMinNo)}`,
        },
        { key: 'charge_limit', label: t('siteMonitor.bms.chargeLimit'), value: q(p.chargeLimitKw, 'kW') },
        {
          key: 'discharge_limit',
          label: t('siteMonitor.bms.dischargeLimit'),
          value: q(p.dischargeLimitKw, 'kW'),
        },
        { key: 'insulation', label: t('siteMonitor.bms.insulation'), value: q(p.insulationKohm, 'kΩ', 0) },
      ]}
    />
  );
}

function MeterReadings({ p }: { p: MeterPanel }) {
  const { t } = useTranslation();
  return (
    <Readings
      items={[
        { key: 'p_kw', label: t('siteMonitor.meter.power'), value: q(p.pKw, 'kW') },
        { key: 'pf', label: t('siteMonitor.meter.pf'), value: q(p.pf, '', 3) },
        { key: 'freq_hz', label: t('siteMonitor.meter.freq'), value: q(p.freqHz, 'Hz', 2) },
        { key: 'u_v', label: t('siteMonitor.meter.voltage'), value: phases([p.uAV, p.uBV, p.uCV], 'V') },
        { key: 'i_a', label: t('siteMonitor.meter.current'), value: phases([p.iAA, p.iBA, p.iCA], 'A') },
        { key: 'e_import', label: t('siteMonitor.meter.importTotal'), value: q(p.eImportTotalKwh, 'kWh') },
        { key: 'e_export', label: t('siteMonitor.meter.exportTotal'), value: q(p.eExportTotalKwh, 'kWh') },
      ]}
    />
  );
}

function PvReadings({ p }: { p: PvPanel }) {
  const { t } = useTranslation();
  return (
    <Readings
      items={[
        { key: 'p_kw', label: t('siteMonitor.pv.power'), value: q(p.pKw, 'kW') },
        { key: 'e_total', label: t('siteMonitor.pv.total'), value: q(p.eTotalKwh, 'kWh') },
      ]}
    />
  );
}

function EnvReadings({ p }: { p: EnvPanel }) {
  const { t } = useTranslation();
  const alarm = (v: number | null) =>
    v === null ? NO_VALUE : v === 0 ? t('siteMonitor.env.normal') : t('siteMonitor.env.detected');
  return (
    <Readings
      items={[
        { key: 't_c', label: t('siteMonitor.env.temperature'), value: q(p.tC, '°C') },
        { key: 'rh_pct', label: t('siteMonitor.env.humidity'), value: q(p.rhPct, '%') },
        {
          key: 'smoke',
          label: t('siteMonitor.env.smoke'),
          value: alarm(p.smoke),
          tone: p.smoke ? 'bad' : undefined,
        },
        {
          key: 'water',
          label: t('siteMonitor.env.water'),
          value: alarm(p.water),
          tone: p.water ? 'bad' : undefined,
        },
        {
          key: 'door',
          label: t('siteMonitor.env.door'),
          value:
            p.door === null ? NO_VALUE : t(p.door === 0 ? 'siteMonitor.env.closed' : 'siteMonitor.env.open'),
          tone: p.door ? 'warn' : undefined,
        },
      ]}
    />
  );
}

function AcReadings({ p }: { p: AirConditionerPanel }) {
  const { t } = useTranslation();
  return (
    <Readings
      items={[
        {
          key: 'state',
          label: t('siteMonitor.ac.state'),
          value:
            p.state === null
              ? NO_VALUE
              : stateKey(AC_STATES, p.state)
                ? t(`siteMonitor.ac.states.${stateKey(AC_STATES, p.state)!}`)
                : String(p.state),
        },
        { key: 't_supply_c', label: t('siteMonitor.ac.supply'), value: q(p.tSupplyC, '°C') },
        { key: 't_return_c', label: t('siteMonitor.ac.return'), value: q(p.tReturnC, '°C') },
        { key: 'cooling_start_c', label: t('siteMonitor.ac.coolingStart'), value: q(p.coolingStartC, '°C') },
        { key: 'heating_start_c', label: t('siteMonitor.ac.heatingStart'), value: q(p.heatingStartC, '°C') },
        {
          key: 'fault',
          label: t('siteMonitor.ac.fault'),
          value: p.fault === null ? NO_VALUE : p.fault === 0 ? t('siteMonitor.ac.noFault') : String(p.fault),
          tone: p.fault ? 'bad' : undefined,
        },
      ]}
    />
  );
}

/** Every panel of the site, grouped by kind (EMS, PCS, BMS, meter, PV, environment, air conditioner). */
export function DevicePanels({ panels, devices }: { panels: SitePanels; devices: SiteDetailDevice[] }) {
  const { t } = useTranslation();
  const byId = new Map(devices.map((d) => [d.id, d]));
  const cards: ReactNode[] = [
    ...panels.ems.map((p) => (
      <DeviceCard key={`ems-${p.deviceId}`} kind="ems" panel={p} device={byId.get(p.deviceId)}>
        <EmsReadings p={p} />
      </DeviceCard>
    )),
    ...panels.pcs.map((p) => (
      <DeviceCard key={`pcs-${p.deviceId}`} kind="pcs" panel={p} device={byId.get(p.deviceId)}>
        <PcsReadings p={p} />
      </DeviceCard>
    )),
    ...panels.bms.map((p) => (
      <DeviceCard key={`bms-${p.deviceId}`} kind="bms" panel={p} device={byId.get(p.deviceId)}>
        <BmsReadings p={p} />
      </DeviceCard>
    )),
    ...panels.meter.map((p) => (
      <DeviceCard key={`meter-${p.deviceId}`} kind="meter" panel={p} device={byId.get(p.deviceId)}>
        <MeterReadings p={p} />
      </DeviceCard>
    )),
    ...panels.pv.map((p) => (
      <DeviceCard key={`pv-${p.deviceId}`} kind="pv" panel={p} device={byId.get(p.deviceId)}>
        <PvReadings p={p} />
      </DeviceCard>
    )),
    ...panels.env.map((p) => (
      <DeviceCard key={`env-${p.deviceId}`} kind="env" panel={p} device={byId.get(p.deviceId)}>
        <EnvReadings p={p} />
      </DeviceCard>
    )),
    ...panels.airConditioner.map((p) => (
      <DeviceCard key={`ac-${p.deviceId}`} kind="ac" panel={p} device={byId.get(p.deviceId)}>
        <AcReadings p={p} />
      </DeviceCard>
    )),
  ];
  if (cards.length === 0) return <p className="muted">{t('siteMonitor.panels.noDevices')}</p>;
  return <div className="monitor-panels">{cards}</div>;
}
