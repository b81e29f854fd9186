/**
 * /newscreen (spec §2): the big-screen cockpit, a 1920×1080 dark stage scaled to the window.
 *
 * Without a token it shows what the public route `screen/cockpitPublic` answers and nothing
 * else: installation-wide aggregates (sites, capacity, rated power, power now, SOC, energy
 * today and this month, revenue estimate, active alarms per level, today's power curve) and a
 * map of site counts per 1° cell — no site names, codes or exact positions (decision in
 * docs/api.md "Big screens"). Signed in, `screen/cockpit` adds the caller's own sites on the
 * map (names, status) and the top sites by energy discharged this month (permission
 * `screen:view:list`; without it, the public answer); its power figures
 * follow the live `fleet` channel. Both re-read every 10 s.
 *
 * Test hooks: `cockpit`, `cockpit-clock`, `cockpit-link`, `cockpit-kpis`, `cockpit-<figure>`,
 * `cockpit-alarms`, `cockpit-top` (signed in), `cockpit-top-login` (public), `cockpit-mode`
 * (`data-mode` public | private), `cockpit-updated` (time of the figures shown, HH:mm:ss),
 * `zone-tag` (the time base: the sites' zone, or the browser's when they are in several; the
 * clock, the curve and the times are in it).
 */
import type { CockpitAggregates, CockpitData } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from '@/features/auth';
import { COCKPIT_REFRESH_MS, fetchCockpit, fetchPublicCockpit } from '@/features/bigscreen';
import { browserTimeZone, formatCny, formatNumber, formatTime } from '@/shared/format';
import { TimeBaseProvider, ZoneTag } from '@/shared/format/time-base';
import { liveWins, useLiveChannel } from '@/shared/live';
import { SiteMap, type SiteMapPoint } from '@/shared/map';
import { HOME_PATH, LOGIN_PATH } from '@/shared/routing';
import { Figure, Panel, ScreenChart, Stage } from '@/shared/screen';
import { useCredentials } from '@/shared/storage/session';
import './cockpit.css';

type Data = CockpitAggregates & Partial<Pick<CockpitData, 'siteList' | 'topSiteIds'>>;

function useCockpit(signedIn: boolean): { data: Data | undefined; failed: boolean } {
  const query = useQuery<Data>({
    queryKey: ['cockpit', signedIn ? 'private' : 'public'],
    queryFn: signedIn ? fetchCockpit : fetchPublicCockpit,
    refetchInterval: COCKPIT_REFRESH_MS,
    staleTime: 0,
  });
  // Signed in: the power figures follow the live fleet channel between two reads.
  const { data: live } = useLiveChannel(signedIn ? 'fleet' : null);
  const http = query.data;
  const data = useMemo(() => {
    if (!http || !live || !liveWins(live.overview.updatedAt, http.updatedAt)) return http;
    const o = live.overview;
    return {
      ...http,
      batteryPowerKw: o.batteryPowerKw,
      chargingPowerKw: o.chargingPowerKw,
      dischargingPowerKw: o.dischargingPowerKw,
      fleetSocPct: o.fleetSocPct,
    };
  }, [http, live]);
  return { data, failed: !http && query.isError };
}

/** The /newscreen page. */
export default function CockpitPage() {
  const { t } = useTranslation();
  const signedIn = useCredentials((c) => Boolean(c.token));
  const { data, failed } = useCockpit(signedIn);

  const points = useMemo<SiteMapPoint[]>(() => {
    if (!data) return [];
    if (data.siteList) {
      return data.siteList
        .filter((s) => s.latitude !== null && s.longitude !== null)
        .map((s) => ({
          id: s.siteId,
          name: s.name,
          latitude: s.latitude!,
          longitude: s.longitude!,
          status: s.activeAlarms > 0 ? 'alarm' : s.online ? 'online' : 'offline',
          details: [
            `SOC ${formatNumber(s.socPct, 0)} %`,
            `${t('bigscreen.batteryPower')} ${formatNumber(s.batteryPowerKw, 1)} kW`,
          ],
        }));
    }
    return data.mapCells.map((c, i) => ({
      id: i + 1,
      name: t('bigscreen.cockpit.cellSites', { count: c.sites }),
      latitude: c.latitude,
      longitude: c.longitude,
      status: 'online' as const,
    }));
  }, [data, t]);

  const top =
    data?.siteList && data.topSiteIds
      ? data.topSiteIds.map((id) => data.siteList!.find((s) => s.siteId === id)!).filter(Boolean)
      : null;
  // Private only when the answer carries the caller's sites (signed in with screen:view).
  const own = signedIn && Boolean(data?.siteList);
  const timeZone = data?.timeBase.timezone;
  const mode = (
    <>
      <span className="screen-note" data-testid="cockpit-mode" data-mode={own ? 'private' : 'public'}>
        {own ? t('bigscreen.cockpit.privateMode') : t('bigscreen.cockpit.publicMode')}
      </span>
      {data && (
        <span className="screen-note" data-testid="cockpit-updated">
          {t('bigscreen.updatedAt', { time: formatTime(data.updatedAt, timeZone) })}
        </span>
      )}
    </>
  );

  return (
    <TimeBaseProvider timeZone={timeZone}>
      <Stage
        title={t('cockpit.title')}
        controls={mode}
        zone={<ZoneTag fleet={data?.timeBase} className="stage__zone" />}
        language={<LanguageSwitch className="stage__icon" />}
        clockTestId="cockpit-clock"
        backTestId="cockpit-link"
        back={{
          to: signedIn ? HOME_PATH : LOGIN_PATH,
          label: signedIn ? t('cockpit.toConsole') : t('cockpit.toLogin'),
        }}
        testId="cockpit"
      >
        {!data ? (
          <div className="screen-empty">{failed ? t('bigscreen.loadFailed') : t('bigscreen.loading')}</div>
        ) : (
          <div className="screen-grid cockpit-grid">
            <Panel title={t('bigscreen.cockpit.fleet')} className="area-a" testId="cockpit-kpis">
              <div className="figures figures--2">
                <Figure
                  label={t('bigscreen.cockpit.sitesOnline')}
                  value={`${data.sitesOnline} / ${data.sites}`}
                  testId="cockpit-sites"
                />
                <Figure
                  label={t('bigscreen.capacity')}
                  value={formatNumber(data.capacityKwh, 0)}
                  unit="kWh"
                  testId="cockpit-capacity"
                />
                <Figure
                  label={t('bigscreen.ratedPower')}
                  value={formatNumber(data.ratedPowerKw, 0)}
                  unit="kW"
                  testId="cockpit-rated"
                />
                <Figure
                  label={t('bigscreen.cockpit.fleetSoc')}
                  value={formatNumber(data.fleetSocPct, 1)}
                  unit="%"
                  tone="info"
                  testId="cockpit-soc"
                />
                <Figure
                  label={t('bigscreen.cockpit.charging')}
                  value={formatNumber(data.chargingPowerKw, 1)}
                  unit="kW"
                  tone="info"
                  testId="cockpit-charging"
                />
                <Figure
                  label={t('bigscreen.cockpit.discharging')}
                  value={formatNumber(data.dischargingPowerKw, 1)}
                  unit="kW"
                  tone="good"
                  testId="cockpit-discharging"
                />
              </div>
            </Panel>
            <Panel title={t('bigscreen.cockpit.energy')} className="area-b" testId="cockpit-energy">
              <div className="figures figures--2">
                <Figure
                  label={t('bigscreen.cockpit.todayCharge')}
                  value={formatNumber(data.todayChargeKwh, 1)}
                  unit="kWh"
                  testId="cockpit-today-charge"
                />
                <Figure
                  label={t('bigscreen.cockpit.todayDischarge')}
                  value={formatNumber(data.todayDischargeKwh, 1)}
                  unit="kWh"
                  testId="cockpit-today-discharge"
                />
                <Figure
                  label={t('bigscreen.cockpit.monthCharge')}
                  value={formatNumber(data.monthChargeKwh, 0)}
                  unit="kWh"
                />
                <Figure
                  label={t('bigscreen.cockpit.monthDischarge')}
                  value={formatNumber(data.monthDischargeKwh, 0)}
                  unit="kWh"
                />
              </div>
            </Panel>
            <Panel
              title={own ? t('bigscreen.cockpit.mapSites') : t('bigscreen.cockpit.mapCells')}
              className="area-c"
            >
              <div className="cockpit__headline">
                <Figure
                  label={t('bigscreen.cockpit.batteryNow')}
                  value={formatNumber(data.batteryPowerKw, 1)}
                  unit="kW"
                  testId="cockpit-battery-kw"
                />
                <Figure
                  label={t('bigscreen.revenueToday')}
                  value={formatCny(data.revenue.todayCny)}
                  unit={t('bigscreen.cny')}
                  tone="good"
                  testId="cockpit-revenue-today"
                />
                <Figure
                  label={t('bigscreen.cockpit.revenueMonth')}
                  value={formatCny(data.revenue.monthCny)}
                  unit={t('bigscreen.cny')}
                  tone="good"
                  testId="cockpit-revenue-month"
                />
              </div>
              <div className="cockpit__map" data-testid="cockpit-map" data-points={points.length}>
                <Suspense fallback={<div className="screen-empty">{t('bigscreen.loading')}</div>}>
                  <SiteMap
                    sites={points}
                    theme="dark"
                    height={600}
                    statusLabels={{
                      online: t('bigscreen.online'),
                      offline: t('bigscreen.offline'),
                      alarm: t('bigscreen.cockpit.withAlarm'),
                    }}
                    loadFailedText={t('bigscreen.loadFailed')}
                    ariaLabel={t('bigscreen.cockpit.mapSites')}
                  />
                </Suspense>
              </div>
              <div className="screen-note">
                {t('bigscreen.cockpit.revenueNote', {
                  scheme: data.revenue.sitesByScheme,
                  fallback: data.revenue.sitesByDefault,
                })}
              </div>
            </Panel>
            <Panel title={t('bigscreen.activeAlarms')} className="area-d" testId="cockpit-alarms">
              <div className="figures figures--2">
                <Figure
                  label={t('bigscreen.level.warning')}
                  value={String(data.alarms.warning)}
                  tone="warn"
                  testId="cockpit-alarm-warning"
                />
                <Figure
                  label={t('bigscreen.level.fault')}
                  value={String(data.alarms.fault)}
                  tone="bad"
                  testId="cockpit-alarm-fault"
                />
              </div>
            </Panel>
            <Panel title={t('bigscreen.powerCurve')} className="area-e">
              <ScreenChart
                testId="cockpit-curve"
                timeZone={timeZone ?? browserTimeZone()}
                ts={data.powerCurve.ts}
                series={[
                  {
                    name: t('bigscreen.flow.battery'),
                    unit: 'kW',
                    values: data.powerCurve.batteryKw,
                    color: '#36cfc9',
                    area: true,
                  },
                  {
                    name: t('bigscreen.flow.grid'),
                    unit: 'kW',
                    values: data.powerCurve.gridKw,
                    color: '#9254de',
                  },
                  {
                    name: t('bigscreen.flow.pv'),
                    unit: 'kW',
                    values: data.powerCurve.pvKw,
                    color: '#fadb14',
                  },
                ]}
              />
            </Panel>
            <Panel title={t('bigscreen.cockpit.top')} className="area-f">
              {top ? (
                top.length ? (
                  <ol className="screen-list cockpit__top" data-testid="cockpit-top">
                    {top.slice(0, 6).map((s, i) => (
                      <li key={s.siteId}>
                        <span className="cockpit__rank">{i + 1}</span>
                        <span className="grow">{s.name}</span>
                        <span className="screen-note">{formatNumber(s.monthDischargeKwh, 0)} kWh</span>
                      </li>
                    ))}
                  </ol>
                ) : (
                  <div className="screen-empty" data-testid="cockpit-top">
                    {t('bigscreen.cockpit.noTop')}
                  </div>
                )
              ) : (
                <div className="screen-empty" data-testid="cockpit-top-login">
                  {t('bigscreen.cockpit.topNeedsLogin')}
                </div>
              )}
            </Panel>
          </div>
        )}
      </Stage>
    </TimeBaseProvider>
  );
}
