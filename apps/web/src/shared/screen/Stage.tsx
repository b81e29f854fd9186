/**
 * The big-screen stage: a 1920×1080 canvas (design size) scaled to the window with a CSS
 * transform, kept centred with its aspect ratio (letterboxed on other ratios), dark. Its
 * header holds the system name, the screen title, optional tabs to the other screens, the site
 * picker, a live clock in the screen's time base (shared/format/time-base.tsx: the site's zone
 * on a site screen, the fleet's on the cockpit), the language switch (passed in as `language`:
 * it belongs to the auth feature) and a link back to the console / sign-in.
 * Test hooks: `screen-stage` (`data-scale`), `screen-title`, `screen-clock`, `screen-tab-<key>`.
 */
import { type ReactNode, useEffect, useLayoutEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useTimeBase } from '@/shared/format/time-base';
import { useDayjsLocale, wallClock } from '@/shared/i18n/dayjs';
import './screen.css';

export const STAGE_WIDTH = 1920;
export const STAGE_HEIGHT = 1080;

/** Scale that fits the design size into the window. */
function fitScale(): number {
  return Math.min(window.innerWidth / STAGE_WIDTH, window.innerHeight / STAGE_HEIGHT);
}

function useStageScale(): number {
  const [scale, setScale] = useState(fitScale);
  useLayoutEffect(() => {
    const onResize = () => setScale(fitScale());
    window.addEventListener('resize', onResize);
    onResize();
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return scale;
}

/** The live clock of the header, in the screen's time base. */
export function StageClock({ testId = 'screen-clock' }: { testId?: string }) {
  const { t } = useTranslation();
  const locale = useDayjsLocale();
  const timeZone = useTimeBase();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(id);
  }, []);
  return (
    <time className="stage__clock" dateTime={new Date(now).toISOString()} data-testid={testId}>
      {wallClock(now, timeZone).locale(locale).format(t('cockpit.clockFormat'))}
    </time>
  );
}

export interface StageTab {
  key: string;
  label: string;
  to: string;
  active: boolean;
}

export interface StageProps {
  title: string;
  /** Tabs to sibling screens (left of the title). */
  tabs?: StageTab[];
  /** Controls right of the title (e.g. the site picker), before the clock. */
  controls?: ReactNode;
  /** Under the clock: the screen's time zone (`ZoneTag` with the class `stage__zone`). */
  zone?: ReactNode;
  /** The language switch, after the clock (give it the class `stage__icon`). */
  language?: ReactNode;
  /** The link back: to the console (signed in) or to sign in. */
  back: { to: string; label: string };
  children: ReactNode;
  testId?: string;
  clockTestId?: string;
  backTestId?: string;
}

/** The scaled 1920×1080 stage with its header; `children` fill the body (1920×990). */
export function Stage({
  title,
  tabs,
  controls,
  zone,
  language,
  back,
  children,
  testId,
  clockTestId,
  backTestId,
}: StageProps) {
  const { t } = useTranslation();
  const scale = useStageScale();
  const left = (window.innerWidth - STAGE_WIDTH * scale) / 2;
  const top = (window.innerHeight - STAGE_HEIGHT * scale) / 2;
  return (
    <div className="stage-viewport">
      <div
        className="stage"
        data-testid={testId ?? 'screen-stage'}
        data-scale={scale.toFixed(3)}
        style={{ transform: `translate(${Math.max(0, left)}px, ${Math.max(0, top)}px) scale(${scale})` }}
      >
        <header className="stage__header">
          <div className="stage__side stage__side--left">
            {tabs?.length ? null : <span className="stage__brand">{t('app.name')}</span>}
            {tabs?.length ? (
              <nav className="stage__tabs" aria-label={t('bigscreen.screens')}>
                {tabs.map((tab) => (
                  <Link
                    key={tab.key}
                    to={tab.to}
                    className={tab.active ? 'stage__tab stage__tab--active' : 'stage__tab'}
                    aria-current={tab.active ? 'page' : undefined}
                    data-testid={`screen-tab-${tab.key}`}
                  >
                    {tab.label}
                  </Link>
                ))}
              </nav>
            ) : null}
          </div>
          <h1 className="stage__title" data-testid="screen-title">
            {title}
          </h1>
          <div className="stage__side stage__side--right">
            {controls}
            <span className="stage__time">
              <StageClock testId={clockTestId} />
              {zone}
            </span>
            {language}
            <Link className="stage__back" to={back.to} data-testid={backTestId ?? 'screen-back'}>
              {back.label}
            </Link>
          </div>
        </header>
        <div className="stage__body">{children}</div>
      </div>
    </div>
  );
}

/** A titled dark panel of a screen. */
export function Panel({
  title,
  children,
  className,
  testId,
  extra,
}: {
  title: string;
  children: ReactNode;
  className?: string;
  testId?: string;
  extra?: ReactNode;
}) {
  return (
    <section className={className ? `panel ${className}` : 'panel'} data-testid={testId}>
      <h2 className="panel__title">
        <span>{title}</span>
        {extra}
      </h2>
      <div className="panel__body">{children}</div>
    </section>
  );
}

/** A figure with its label and unit (units in the label or after the value). */
export function Figure({
  label,
  value,
  unit,
  testId,
  tone,
  small,
}: {
  label: string;
  value: string;
  unit?: string;
  testId?: string;
  tone?: 'good' | 'warn' | 'bad' | 'info';
  /** Smaller digits (dates, long texts). */
  small?: boolean;
}) {
  const className = ['figure', tone ? `figure--${tone}` : '', small ? 'figure--small' : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className={className} data-testid={testId}>
      <div className="figure__value">
        <span className="figure__number">{value}</span>
        {unit ? <span className="figure__unit">{unit}</span> : null}
      </div>
      <div className="figure__label">{label}</div>
    </div>
  );
}
