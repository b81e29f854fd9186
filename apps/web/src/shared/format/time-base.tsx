/**
 * The time base of a screen (issue 14 item 5: one time base per screen, the site's): the IANA
 * zone in which everything the screen shows about time is read — clock, report times, chart
 * axes and tooltips, "today".
 *
 * - A screen about one site (real-time data, history, a site's monitoring detail, the site big
 *   screens) uses the site's zone (`site.timezone`).
 * - A fleet-wide screen (dashboard, site-monitoring list, cockpit) uses the fleet's time base
 *   (contract `fleetTimeBase`): the sites' zone when they all share one, else the browser's;
 *   the server computes its "today" curve in the same zone and says which (`timeBase`).
 *
 * The screen sets it once with {@link TimeBaseProvider}; components below read it with
 * {@link useTimeBase} and pass it to the formatters of ./index.ts and the chart axes of
 * shared/charts/timeAxis.ts. {@link ZoneTag} says which zone the screen is in: always on a fleet
 * view, on a site's view only when the zone differs from the browser's.
 * Test hook: `zone-tag` (`data-zone`, `data-kind` site | fleet).
 */
import type { FleetTimeBase } from '@ess/contract';
import { createContext, type ReactNode, useContext } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone, zoneLabel } from './index';
import './time-base.css';

const TimeBaseContext = createContext<string | undefined>(undefined);

/** Sets the zone of everything below; `timeZone` undefined = the browser's. */
export function TimeBaseProvider({
  timeZone,
  children,
}: {
  timeZone: string | undefined;
  children: ReactNode;
}) {
  return <TimeBaseContext.Provider value={timeZone}>{children}</TimeBaseContext.Provider>;
}

/** The screen's zone (IANA), or undefined for the browser's. */
export function useTimeBase(): string | undefined {
  return useContext(TimeBaseContext);
}

/**
 * 'Site time Asia/Shanghai (UTC+8)' for a site's screen when its zone differs from the
 * browser's (nothing otherwise); 'Time base Asia/Shanghai (UTC+8)' always for a fleet view,
 * with what it means in the tooltip. `className` replaces the console look (the big screens
 * pass their own tag class).
 */
export function ZoneTag({
  site,
  fleet,
  className,
}: {
  /** The site's zone (a site's screen). */
  site?: string;
  /** The fleet's time base (a fleet-wide screen). */
  fleet?: FleetTimeBase;
  className?: string;
}) {
  const { t } = useTranslation();
  const browser = browserTimeZone();
  const zone = fleet?.timezone ?? site;
  if (!zone || (!fleet && zone === browser)) return null;
  const label = zoneLabel(zone);
  const hint = fleet
    ? fleet.basis === 'sites'
      ? t('timeZone.fleetSites')
      : t('timeZone.fleetCaller')
    : t('timeZone.siteHint', { zone: label, browser: zoneLabel(browser) });
  return (
    <span
      className={className ?? 'zone-tag'}
      title={hint}
      data-testid="zone-tag"
      data-zone={zone}
      data-kind={fleet ? 'fleet' : 'site'}
    >
      {fleet ? t('timeZone.fleet', { zone: label }) : t('timeZone.site', { zone: label })}
    </span>
  );
}
