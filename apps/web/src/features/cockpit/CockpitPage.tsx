/**
 * /newscreen (spec §2): the public big-screen cockpit — dark full screen with the system name,
 * a live clock and a link to sign in or to the console. It shows no figures: what the public
 * cockpit may show without a token is decided (and enforced on the server) with the monitoring
 * issue, which adds its data panels.
 * Test hooks: `cockpit`, `cockpit-clock`, `cockpit-link`.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { dayjs, useDayjsLocale } from '@/shared/i18n/dayjs';
import { HOME_PATH, LOGIN_PATH } from '@/shared/routing';
import { useCredentials } from '@/shared/storage/session';
import './cockpit.css';

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
      <main className="cockpit__hero">
        <div className="cockpit__brand">{t('app.name')}</div>
        <h1 className="cockpit__title">{t('cockpit.title')}</h1>
        <Clock />
        <Link className="cockpit__link" to={signedIn ? HOME_PATH : LOGIN_PATH} data-testid="cockpit-link">
          {signedIn ? t('cockpit.toConsole') : t('cockpit.toLogin')}
        </Link>
      </main>
    </div>
  );
}
