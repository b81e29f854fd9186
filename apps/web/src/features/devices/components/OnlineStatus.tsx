/**
 * Online / offline of a device (a gateway's own connection, or its gateway's for the devices
 * behind it), when it was last heard from, and why it went offline (lwt, clean, timeout).
 */
import type { OfflineReason } from '@ess/contract';
import { Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatRelative } from '@/shared/format';

interface Props {
  online: boolean;
  lastSeenAt: number | null;
  offlineReason: OfflineReason | null;
  /** IANA zone the absolute time is shown in (the site's). */
  timeZone?: string;
  /** SN of the gateway this device reports through (its state is the gateway's). */
  viaSn?: string | null;
}

/** Coloured dot with 在线/离线, the last-seen time and the offline reason. */
export function OnlineStatus({ online, lastSeenAt, offlineReason, timeZone, viaSn }: Props) {
  const { t } = useTranslation();
  const seen =
    lastSeenAt === null
      ? t('devices.neverSeen')
      : t('devices.lastSeen', { time: formatRelative(lastSeenAt) });
  const tip = [
    lastSeenAt === null
      ? t('devices.neverSeen')
      : `${formatDateTime(lastSeenAt, timeZone)}${timeZone ? ` (${timeZone})` : ''}`,
    !online && offlineReason ? t(`devices.offlineReasonLong.${offlineReason}`) : null,
    viaSn ? t('devices.stateOfGateway', { sn: viaSn }) : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <Tooltip title={tip}>
      <span className="online-status">
        <span className={online ? 'status-dot status-dot--online' : 'status-dot status-dot--offline'} />
        <span className="online-status__text">
          <span className={online ? 'online-status__state--online' : 'online-status__state--offline'}>
            {online ? t('devices.online') : t('devices.offline')}
          </span>
          {!online && offlineReason && (
            <span className="online-status__reason">{t(`devices.offlineReason.${offlineReason}`)}</span>
          )}
          <span className="online-status__seen">{seen}</span>
        </span>
      </span>
    </Tooltip>
  );
}
