/**
 * Small live-push status: a dot and "实时 / Live", "连接中… / Connecting…", "重新连接中… /
 * Reconnecting…", "实时推送不可用 / Live updates unavailable", with the time of the data shown.
 * Test hook: `live-indicator` (its `data-status` is the connection status).
 */
import { useTranslation } from 'react-i18next';
import { formatTime } from '../format';
import { useTimeBase } from '../format/time-base';
import type { LiveStatus } from './connection';
import './live.css';

/** The indicator; `updatedAt` (UTC ms) is the time of the data on screen, shown in the screen's time base. */
export function LiveIndicator({ status, updatedAt }: { status: LiveStatus; updatedAt?: number | null }) {
  const { t } = useTranslation();
  const timeZone = useTimeBase();
  return (
    <span
      className={`live-indicator live-indicator--${status}`}
      data-testid="live-indicator"
      data-status={status}
    >
      <span className="live-indicator__dot" aria-hidden="true" />
      <span className="live-indicator__text" role="status">
        {t(`live.${status}`)}
      </span>
      {updatedAt ? (
        <span className="live-indicator__time">
          {t('live.updatedAt', { time: formatTime(updatedAt, timeZone) })}
        </span>
      ) : null}
    </span>
  );
}
