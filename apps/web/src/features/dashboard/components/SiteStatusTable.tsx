/**
 * Sites at a glance: connection (online / offline with reason and last seen), SOC with a bar,
 * battery power (+ discharging, − charging) and grid power (+ import) in kW, today's charged
 * and discharged energy in kWh, active alarms. Below 576 px each row becomes a card.
 * Test hooks: `site-status-table`, rows `site-status-<siteId>`.
 */
import type { SiteStatus } from '@ess/contract';
import { Empty, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatNumber, formatQuantity, formatRelative } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';

/** Below this |power| (kW) the battery counts as idle. */
const IDLE_KW = 0.5;

function BatteryPower({ kw }: { kw: number | null }) {
  const { t } = useTranslation();
  if (kw === null) return <span className="muted">{formatQuantity(null, 'kW')}</span>;
  const state = Math.abs(kw) < IDLE_KW ? 'idle' : kw > 0 ? 'discharge' : 'charge';
  return (
    <span className={`battery-power battery-power--${state}`}>
      <span className="battery-power__value">{formatQuantity(kw, 'kW')}</span>
      <span className="battery-power__state">{t(`dashboard.sites.battery_${state}`)}</span>
    </span>
  );
}

function Soc({ pct }: { pct: number | null }) {
  if (pct === null) return <span className="muted">{formatQuantity(null, '%')}</span>;
  const tone = pct < 15 ? 'low' : pct > 90 ? 'high' : 'mid';
  return (
    <span className="soc">
      <span className="soc-bar soc-bar--small" aria-hidden="true">
        <span
          className={`soc-bar__fill soc-bar__fill--${tone}`}
          style={{ width: `${Math.max(0, Math.min(100, pct))}%` }}
        />
      </span>
      <span className="soc__value">{formatQuantity(pct, '%')}</span>
    </span>
  );
}

/** The table of `sites`. */
export function SiteStatusTable({ sites }: { sites: SiteStatus[] }) {
  const { t } = useTranslation();
  const timeZone = useTimeBase();
  const col = {
    site: t('dashboard.sites.name'),
    status: t('dashboard.sites.status'),
    soc: t('dashboard.sites.soc'),
    battery: t('dashboard.sites.battery'),
    grid: t('dashboard.sites.grid'),
    charge: t('dashboard.sites.todayCharge'),
    discharge: t('dashboard.sites.todayDischarge'),
    alarms: t('dashboard.sites.alarms'),
  };
  const online = sites.filter((s) => s.online).length;
  return (
    <section className="panel" data-testid="site-status-table">
      <header className="panel__head">
        <h2 className="panel__title">{t('dashboard.sites.title')}</h2>
        {sites.length > 0 && (
          <span className="panel__note">{t('dashboard.sites.summary', { online, total: sites.length })}</span>
        )}
      </header>
      {sites.length === 0 ? (
        <Empty
          className="panel__empty"
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={t('dashboard.sites.empty')}
        />
      ) : (
        <div className="status-table__scroll">
          <table className="status-table">
            <thead>
              <tr>
                <th>{col.site}</th>
                <th>{col.status}</th>
                <th>{col.soc}</th>
                <th className="num">{col.battery}</th>
                <th className="num">{col.grid}</th>
                <th className="num">{col.charge}</th>
                <th className="num">{col.discharge}</th>
                <th className="num">{col.alarms}</th>
              </tr>
            </thead>
            <tbody>
              {sites.map((s) => (
                <tr key={s.siteId} data-testid={`site-status-${s.siteId}`}>
                  <td data-label={col.site} className="status-table__site">
                    <div className="status-table__site-inner">
                      <span className="status-table__name">{s.name}</span>
                      <span className="status-table__sub">
                        {s.code} · {s.companyName}
                      </span>
                    </div>
                  </td>
                  <td data-label={col.status}>
                    <Tooltip
                      title={
                        s.lastSeenAt
                          ? t('dashboard.sites.lastSeenAt', { time: formatDateTime(s.lastSeenAt, timeZone) })
                          : t('dashboard.sites.neverSeen')
                      }
                    >
                      <span className={s.online ? 'conn conn--online' : 'conn conn--offline'}>
                        <span className="conn__dot" aria-hidden="true" />
                        <span>
                          {s.online ? t('dashboard.sites.online') : t('dashboard.sites.offline')}
                          {!s.online && s.offlineReason && (
                            <span className="conn__reason">
                              {' '}
                              · {t(`devices.offlineReason.${s.offlineReason}`)}
                            </span>
                          )}
                        </span>
                        {!s.online && (
                          <span className="conn__seen">
                            {s.lastSeenAt
                              ? t('devices.lastSeen', { time: formatRelative(s.lastSeenAt) })
                              : t('dashboard.sites.neverSeen')}
                          </span>
                        )}
                      </span>
                    </Tooltip>
                  </td>
                  <td data-label={col.soc}>
                    <Soc pct={s.socPct} />
                  </td>
                  <td data-label={col.battery} className="num">
                    <BatteryPower kw={s.batteryPowerKw} />
                  </td>
                  <td data-label={col.grid} className="num">
                    {formatQuantity(s.gridPowerKw, 'kW')}
                  </td>
                  <td data-label={col.charge} className="num">
                    {formatQuantity(s.todayChargeKwh, 'kWh')}
                  </td>
                  <td data-label={col.discharge} className="num">
                    {formatQuantity(s.todayDischargeKwh, 'kWh')}
                  </td>
                  <td data-label={col.alarms} className="num">
                    <span className={s.activeAlarms > 0 ? 'alarm-count alarm-count--active' : 'alarm-count'}>
                      {formatNumber(s.activeAlarms, 0)}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
