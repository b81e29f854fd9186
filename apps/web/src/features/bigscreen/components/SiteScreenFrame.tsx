/**
 * Frame of the site screens (/screen/sys|pcs|bms|dhxx, /syfscreen/syfsys): the stage with the
 * screen tabs, the site picker (choice kept in `?siteId=`), the live status, and the body once
 * the site's data is there; otherwise a loading, "no site", "site not found" or failure notice.
 * The site's zone is the screen's time base (clock, curves, times; shared/format/time-base.tsx),
 * with a tag naming it when it is not the browser's.
 * Test hooks: `screen-site-picker`, `screen-site-name`, `screen-live` (`data-status`), `zone-tag`.
 */

import { ErrorCode } from '@ess/contract';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from '@/features/auth';
import { TimeBaseProvider, ZoneTag } from '@/shared/format/time-base';
import { catalogueText } from '@/shared/i18n';
import { BIG_SCREEN_PATHS, HOME_PATH } from '@/shared/routing';
import { Stage } from '@/shared/screen';
import { SCREEN_KEYS, type ScreenKey, SITE_PARAM } from '../paths';
import { type SiteScreen, useSiteScreen } from '../useSiteScreen';
import '../bigscreen.css';

export function SiteScreenFrame({
  screen,
  refreshMs,
  children,
}: {
  screen: ScreenKey;
  refreshMs?: number;
  children: (state: SiteScreen & { data: NonNullable<SiteScreen['data']> }) => ReactNode;
}) {
  const { t } = useTranslation();
  const state = useSiteScreen(refreshMs);
  const query = state.siteId ? `?${SITE_PARAM}=${state.siteId}` : '';
  const tabs = SCREEN_KEYS.map((key) => ({
    key,
    label: t(`bigscreen.tab.${key}`),
    to: `${BIG_SCREEN_PATHS[key]}${query}`,
    active: key === screen,
  }));
  const timeZone = state.data?.site.timezone;
  const picker = (
    <>
      <span
        className={`tag ${state.live === 'live' ? 'tag--good' : 'tag--off'}`}
        data-testid="screen-live"
        data-status={state.live}
      >
        {t(`live.${state.live}`)}
      </span>
      <label className="stage__picker">
        <span className="visually-hidden">{t('bigscreen.site')}</span>
        <select
          className="stage__site-picker"
          value={state.siteId ?? ''}
          onChange={(e) => state.chooseSite(Number(e.target.value))}
          data-testid="screen-site-picker"
          aria-label={t('bigscreen.site')}
          disabled={!state.sites?.length}
        >
          {state.siteId !== null && !state.sites?.some((s) => s.siteId === state.siteId) ? (
            <option value={state.siteId}>{t('bigscreen.unknownSite')}</option>
          ) : null}
          {(state.sites ?? []).map((s) => (
            <option key={s.siteId} value={s.siteId}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
    </>
  );
  let body: ReactNode;
  if (state.error === ErrorCode.SITE_NOT_FOUND) {
    body = <div className="screen-empty">{catalogueText(ErrorCode.SITE_NOT_FOUND)}</div>;
  } else if (typeof state.error === 'number') {
    body = <div className="screen-empty">{catalogueText(state.error)}</div>;
  } else if (state.error) {
    body = <div className="screen-empty">{t('bigscreen.loadFailed')}</div>;
  } else if (state.sites && state.sites.length === 0) {
    body = <div className="screen-empty">{t('bigscreen.noSites')}</div>;
  } else if (!state.data) {
    body = <div className="screen-empty">{t('bigscreen.loading')}</div>;
  } else {
    body = children({ ...state, data: state.data });
  }
  return (
    <TimeBaseProvider timeZone={timeZone}>
      <Stage
        title={t(`bigscreen.title.${screen}`)}
        tabs={tabs}
        controls={picker}
        zone={<ZoneTag site={timeZone} className="stage__zone" />}
        language={<LanguageSwitch className="stage__icon" />}
        back={{ to: HOME_PATH, label: t('cockpit.toConsole') }}
        testId={`screen-${screen}`}
      >
        {body}
      </Stage>
    </TimeBaseProvider>
  );
}
