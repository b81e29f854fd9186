/**
 * /newscreen (spec §2): the public big-screen cockpit shell — dark full screen, system name,
 * live clock, and a link to sign in or to the console. Its panels get their data in a later
 * issue; until then they say so and show no figures.
 * Test hooks: `cockpit`, `cockpit-clock`, `cockpit-link`.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { dayjs, useDayjsLocale } from '@/shared/i18n/dayjs';
import { HOME_PATH, LOGIN_PATH } from '@/shared/routing';
import { useCredentials } from '@/shared/storage/session';
import './cockpit.css';

const PANELS = ['fleet', 'power', 'energy', 'map', 'alarms', 'revenue'] as const;

function Clock() {
  const { t } = useTranslation();
  useDayjsLocale();
  const [now, setNow] = useState(() => dayjs());
  useEffect(() => {
    const id = window.setInterval(() => setNow(dayjs()), 1000);
    return () => window.clearInterval(id);
  }, []);
  return (
    <time className="cockpit__clock" dateTime={now.toISOString()} data-testid="cockpit-clock">
      {now.format(t('cockpit.clockFormat'))}
    </time>
  );
}

/** The /newscreen page. */
export default function CockpitPage() {
  const { t } = useTranslation();
  const signedIn = useCredentials((c) => Boolean(c.token));
  return (
    <div className="cockpit" data-testid="cockpit">
      <header className="cockpit__header">
        <div className="cockpit__brand">{t('app.name')}</div>
        <h1 className="cockpit__title">{t('cockpit.title')}</h1>
        <div className="cockpit__side">
          <Clock />
          <Link className="cockpit__link" to={signedIn ? HOME_PATH : LOGIN_PATH} data-testid="cockpit-link">
            {signedIn ? t('cockpit.toConsole') : t('cockpit.toLogin')}
          </Link>
        </div>
      </header>
      <main className="cockpit__grid">
        {PANELS.map((panel) => (
          <section key={panel} className={`cockpit__panel cockpit__panel--${panel}`}>
            <h2 className="cockpit__panel-title">{t(`cockpit.${panel}`)}</h2>
            <p className="cockpit__awaiting">{t('cockpit.awaiting')}</p>
          </section>
        ))}
      </main>
    </div>
  );
}
