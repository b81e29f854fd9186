/**
 * Pieces shared by the site screens: number text, the active-alarm list, the device state tag.
 */
import type { ScreenAlarm, ScreenDevice } from '@ess/contract';
import { useTranslation } from 'react-i18next';
import { formatNumber, formatTime } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';

/** A point's value as text ('—' when the device has not reported it). */
export function pointText(device: ScreenDevice | undefined, point: string, digits = 1): string {
  return formatNumber(device?.points[point] ?? null, digits);
}

/** Active alarms, newest first. Test hook: `screen-alarms` (`data-count`). */
export function AlarmList({ alarms, max = 8 }: { alarms: ScreenAlarm[]; max?: number }) {
  const { t } = useTranslation();
  const timeZone = useTimeBase();
  if (alarms.length === 0) {
    return (
      <div className="screen-empty" data-testid="screen-alarms" data-count={0}>
        {t('bigscreen.noAlarms')}
      </div>
    );
  }
  return (
    <ul className="screen-list" data-testid="screen-alarms" data-count={alarms.length}>
      {alarms.slice(0, max).map((a) => (
        <li key={a.id}>
          <span className={`tag ${a.level === 'fault' ? 'tag--bad' : 'tag--warn'}`}>
            {t(`bigscreen.level.${a.level}`)}
          </span>
          <span className="grow" title={`${a.deviceSn} ${a.content}`}>
            {a.deviceSn} · {a.content}
          </span>
          <span className="screen-note">{formatTime(a.ts, timeZone, false)}</span>
        </li>
      ))}
    </ul>
  );
}

/** Online / offline tag of a device (its gateway's connection). */
export function OnlineTag({ device }: { device: Pick<ScreenDevice, 'online'> | undefined }) {
  const { t } = useTranslation();
  const online = Boolean(device?.online);
  return (
    <span className={`tag ${online ? 'tag--good' : 'tag--off'}`}>
      {online ? t('bigscreen.online') : t('bigscreen.offline')}
    </span>
  );
}
