/**
 * /zdjkshow — site monitoring (spec §2, kept alive; permission `monitor:site:list`): every
 * site the user may see on an offline map of China (points by status: online, alarm, offline)
 * and in a list (status, SOC, power, today's energy, active alarms; search and sort), live over
 * the `fleet` channel. A click on a point or a row drills into the site: energy flow and the
 * PCS, BMS, meter, PV, environment and air-conditioner panels, live over `device:<id>`.
 * The open site survives a reload of the tab (session storage). Nothing is invented: missing readings show "—"; sites without coordinates are listed but
 * not drawn (a note says how many). The list's times are in the fleet's time base (contract
 * `fleetTimeBase`, stated by the zone tag); a drilled-into site's are in its own zone.
 * Test hooks: `site-monitor`, `monitor-summary-<status>`, `site-map` (`data-points`,
 * `data-ready`), `monitor-site-list`, `monitor-site-detail`.
 */
import { fleetTimeBase } from '@ess/contract';
import { Alert, Button, Skeleton } from 'antd';
import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone, formatQuantity } from '@/shared/format';
import { TimeBaseProvider, ZoneTag } from '@/shared/format/time-base';
import { LiveIndicator } from '@/shared/live';
import { SiteMap, type SiteMapPoint } from '@/shared/map';
import { SiteList } from './components/SiteList';
import { useMonitorSites } from './useMonitorData';
import './site-monitor.css';

/**
 * The site drilled into survives a reload of the tab (the language switch reloads the page),
 * kept in session storage under this key.
 */
const OPEN_SITE_KEY = 'ess.zdjkshow.site';

/** The drill-down (energy flow, device panels) is its own chunk: the first paint is the map and list. */
const SiteDetail = lazy(() => import('./components/SiteDetail').then((m) => ({ default: m.SiteDetail })));

function readOpenSite(): number | null {
  try {
    const value = Number(sessionStorage.getItem(OPEN_SITE_KEY));
    return Number.isInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

/** The /zdjkshow view. */
export default function SiteMonitorPage() {
  const { t } = useTranslation();
  const data = useMonitorSites();
  const [openSiteId, setOpenSiteIdState] = useState<number | null>(readOpenSite);
  const setOpenSiteId = useCallback((siteId: number | null) => {
    setOpenSiteIdState(siteId);
    try {
      if (siteId === null) sessionStorage.removeItem(OPEN_SITE_KEY);
      else sessionStorage.setItem(OPEN_SITE_KEY, String(siteId));
    } catch {
      // storage unavailable: the choice just does not survive a reload
    }
  }, []);
  const sites = data.sites;
  const timeBase = useMemo(
    () =>
      sites
        ? fleetTimeBase(
            sites.map((s) => s.timezone),
            browserTimeZone(),
          )
        : undefined,
    [sites],
  );

  const points = useMemo(
    (): SiteMapPoint[] =>
      (sites ?? [])
        .filter((s) => s.latitude !== null && s.longitude !== null)
        .map((s) => ({
          id: s.siteId,
          name: s.name,
          latitude: s.latitude!,
          longitude: s.longitude!,
          status: s.status,
          details: [
            `SOC ${formatQuantity(s.socPct, '%')}`,
            `${t('siteMonitor.list.power')} ${formatQuantity(s.batteryPowerKw, 'kW')}`,
            `${t('siteMonitor.list.alarms')} ${s.activeAlarms}`,
          ],
        })),
    [sites, t],
  );
  const statusLabels = useMemo(
    () => ({
      online: t('siteMonitor.status.online'),
      offline: t('siteMonitor.status.offline'),
      alarm: t('siteMonitor.status.alarm'),
    }),
    [t],
  );

  if (openSiteId !== null) {
    return (
      <div className="site-monitor" data-testid="site-monitor">
        <Suspense
          fallback={
            <div className="panel">
              <Skeleton active paragraph={{ rows: 8 }} />
            </div>
          }
        >
          <SiteDetail
            siteId={openSiteId}
            site={sites?.find((s) => s.siteId === openSiteId)}
            onBack={() => setOpenSiteId(null)}
          />
        </Suspense>
      </div>
    );
  }

  const count = (status: string) => (sites ?? []).filter((s) => s.status === status).length;
  const unplaced = (sites?.length ?? 0) - points.length;
  return (
    <TimeBaseProvider timeZone={timeBase?.timezone}>
      <div className="site-monitor" data-testid="site-monitor">
        <div className="site-monitor__top">
          <div className="monitor-summary">
            <span className="monitor-summary__item" data-testid="monitor-summary-total">
              {t('siteMonitor.summary.total')} <b>{sites?.length ?? '—'}</b>
            </span>
            {(['online', 'alarm', 'offline'] as const).map((status) => (
              <span
                key={status}
                className={`monitor-summary__item monitor-summary__item--${status}`}
                data-testid={`monitor-summary-${status}`}
              >
                {t(`siteMonitor.status.${status}`)} <b>{sites ? count(status) : '—'}</b>
              </span>
            ))}
          </div>
          <span className="site-monitor__status">
            <ZoneTag fleet={timeBase} />
            <LiveIndicator status={data.live} updatedAt={data.updatedAt} />
          </span>
        </div>

        {data.failed && (
          <Alert
            type="error"
            showIcon
            title={t('siteMonitor.loadFailed')}
            action={
              <Button size="small" onClick={data.retry}>
                {t('siteMonitor.retry')}
              </Button>
            }
            data-testid="monitor-error"
          />
        )}
        {data.loading && (
          <div className="panel">
            <Skeleton active paragraph={{ rows: 8 }} />
          </div>
        )}

        {sites && (
          <div className="site-monitor__body">
            <section className="panel site-monitor__map">
              <header className="panel__head">
                <h2 className="panel__title">{t('siteMonitor.mapTitle')}</h2>
                {unplaced > 0 && (
                  <span className="panel__note">{t('siteMonitor.unplaced', { count: unplaced })}</span>
                )}
              </header>
              <Suspense fallback={<div className="site-monitor__map-loading" aria-busy="true" />}>
                <div data-testid="site-map-wrap">
                  <SiteMap
                    className="site-map"
                    sites={points}
                    statusLabels={statusLabels}
                    onSelect={setOpenSiteId}
                    ariaLabel={t('siteMonitor.mapLabel', { count: points.length })}
                    loadFailedText={t('siteMonitor.mapFailed')}
                    height="var(--site-map-height)"
                  />
                </div>
              </Suspense>
            </section>
            <SiteList sites={sites} onOpen={setOpenSiteId} />
          </div>
        )}
      </div>
    </TimeBaseProvider>
  );
}
