/**
 * The site list of the monitoring page: status, SOC, battery power (+ discharging, − charging),
 * today's charged/discharged energy and active alarms; search by name, code or company; sort
 * by any column. A click on a row (or its name) opens the site. Below 768 px today's energy
 * columns are hidden (the detail shows them).
 * Test hooks: `monitor-site-list`, `monitor-search`, rows `monitor-site-<siteId>`.
 */

import { CloseCircleFilled, SearchOutlined } from '@ant-design/icons';
import type { SiteMonitorSite, SiteMonitorStatus } from '@ess/contract';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber, formatQuantity } from '@/shared/format';
import { SITE_STATUS_COLORS } from '@/shared/map';

const STATUS_ORDER: Record<SiteMonitorStatus, number> = { alarm: 0, online: 1, offline: 2 };

/** A coloured dot and the translated status (colours as on the map). */
export function StatusBadge({ status }: { status: SiteMonitorStatus }) {
  const { t } = useTranslation();
  return (
    <span className="status-badge">
      <span
        className="status-badge__dot"
        style={{ background: SITE_STATUS_COLORS[status] }}
        aria-hidden="true"
      />
      {t(`siteMonitor.status.${status}`)}
    </span>
  );
}

type SortKey = 'name' | 'status' | 'soc' | 'power' | 'charge' | 'discharge' | 'alarms';

const SORTERS: Record<SortKey, (a: SiteMonitorSite, b: SiteMonitorSite) => number> = {
  name: (a, b) => a.name.localeCompare(b.name),
  status: (a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status],
  soc: (a, b) => (a.socPct ?? Number.NEGATIVE_INFINITY) - (b.socPct ?? Number.NEGATIVE_INFINITY),
  power: (a, b) =>
    (a.batteryPowerKw ?? Number.NEGATIVE_INFINITY) - (b.batteryPowerKw ?? Number.NEGATIVE_INFINITY),
  charge: (a, b) => a.todayChargeKwh - b.todayChargeKwh,
  discharge: (a, b) => a.todayDischargeKwh - b.todayDischargeKwh,
  alarms: (a, b) => a.activeAlarms - b.activeAlarms,
};

/**
 * The list; `onOpen` is called with the site id of a clicked row. A plain table (no antd Table,
 * whose chunk with pagination and select would double the page's own code): a click on a
 * column head sorts by it, ascending, then descending, then back to the server's order.
 */
export function SiteList({ sites, onOpen }: { sites: SiteMonitorSite[]; onOpen: (siteId: number) => void }) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 } | null>(null);
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const found = needle
      ? sites.filter((s) =>
          [s.name, s.code, s.companyName, s.address ?? ''].some((v) => v.toLowerCase().includes(needle)),
        )
      : sites;
    if (!sort) return found;
    const compare = SORTERS[sort.key];
    return [...found].sort((a, b) => compare(a, b) * sort.dir);
  }, [sites, search, sort]);
  const toggle = (key: SortKey) =>
    setSort((cur) => (cur?.key !== key ? { key, dir: 1 } : cur.dir === 1 ? { key, dir: -1 } : null));
  const head = (key: SortKey, label: string, className?: string) => {
    const dir = sort?.key === key ? sort.dir : 0;
    return (
      <th
        className={className}
        aria-sort={dir === 1 ? 'ascending' : dir === -1 ? 'descending' : 'none'}
        data-testid={`monitor-sort-${key}`}
      >
        <button type="button" className="monitor-list__sort" onClick={() => toggle(key)}>
          {label}
          <span className="monitor-list__sort-mark" aria-hidden="true">
            {dir === 1 ? '▲' : dir === -1 ? '▼' : '↕'}
          </span>
        </button>
      </th>
    );
  };
  return (
    <section className="panel monitor-list" data-testid="monitor-site-list">
      <header className="panel__head">
        <div>
          <h2 className="panel__title">{t('siteMonitor.list.title')}</h2>
          <span className="panel__note">{t('siteMonitor.list.energyNote')}</span>
        </div>
        {/* A plain field styled as antd's Input: antd's Input would add ~17 KB to the first load. */}
        <span className="monitor-list__search">
          <SearchOutlined className="monitor-list__search-icon" />
          <input
            type="text"
            placeholder={t('siteMonitor.list.search')}
            aria-label={t('siteMonitor.list.search')}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            data-testid="monitor-search"
          />
          {search && (
            <button
              type="button"
              className="monitor-list__search-clear"
              tabIndex={-1}
              onClick={() => setSearch('')}
            >
              <CloseCircleFilled />
            </button>
          )}
        </span>
      </header>
      <div className="monitor-list__scroll">
        <table className="monitor-table">
          <thead>
            <tr>
              {head('name', t('siteMonitor.list.name'))}
              {head('status', t('siteMonitor.list.status'))}
              {head('soc', 'SOC', 'num')}
              {head('power', t('siteMonitor.list.power'), 'num')}
              {head('charge', t('siteMonitor.list.chargeShort'), 'num wide-only')}
              {head('discharge', t('siteMonitor.list.dischargeShort'), 'num wide-only')}
              {head('alarms', t('siteMonitor.list.alarms'), 'num')}
            </tr>
          </thead>
          <tbody>
            {shown.map((s) => (
              <tr
                key={s.siteId}
                className="monitor-list__row"
                data-testid={`monitor-site-${s.siteId}`}
                onClick={() => onOpen(s.siteId)}
              >
                <td>
                  <div className="monitor-list__name">
                    <button
                      type="button"
                      className="link-button"
                      onClick={(e) => {
                        e.stopPropagation();
                        onOpen(s.siteId);
                      }}
                    >
                      {s.name}
                    </button>
                    <span className="muted">{s.code}</span>
                  </div>
                </td>
                <td className="nowrap">
                  <StatusBadge status={s.status} />
                </td>
                <td className="num">{formatQuantity(s.socPct, '%')}</td>
                <td className="num">{formatQuantity(s.batteryPowerKw, 'kW')}</td>
                <td className="num wide-only">{formatQuantity(s.todayChargeKwh, 'kWh')}</td>
                <td className="num wide-only">{formatQuantity(s.todayDischargeKwh, 'kWh')}</td>
                <td className="num">
                  <span className={s.activeAlarms > 0 ? 'monitor-list__alarms' : undefined}>
                    {formatNumber(s.activeAlarms, 0)}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {shown.length === 0 && (
          <p className="monitor-list__empty muted">
            {search ? t('siteMonitor.list.noMatch') : t('siteMonitor.empty')}
          </p>
        )}
      </div>
    </section>
  );
}
