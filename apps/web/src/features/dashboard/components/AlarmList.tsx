/**
 * Latest alarms (spec §3: EMS number, report time, event type produce / disappear, alarm type
 * and content): level (warning orange, fault red), produced or cleared, content, site, device
 * SN and time. Test hooks: `alarm-list`, items `alarm-<id>` with `data-level` and `data-kind`.
 */
import type { AlarmRow } from '@ess/contract';
import { Empty, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatShortDateTime } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';

/** The list of `alarms` (newest first as the server sends them). */
export function AlarmList({ alarms }: { alarms: AlarmRow[] }) {
  const { t } = useTranslation();
  const timeZone = useTimeBase();
  return (
    <section className="panel alarms" data-testid="alarm-list">
      <header className="panel__head">
        <h2 className="panel__title">{t('dashboard.alarms.title')}</h2>
      </header>
      {alarms.length === 0 ? (
        <Empty
          className="panel__empty"
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={t('dashboard.alarms.empty')}
        />
      ) : (
        <ul className="alarms__list">
          {alarms.map((a) => (
            <li
              key={a.id}
              className={`alarm alarm--${a.level} alarm--${a.kind}`}
              data-testid={`alarm-${a.id}`}
              data-level={a.level}
              data-kind={a.kind}
            >
              <div className="alarm__line">
                <span className={`alarm__level alarm__level--${a.level}`}>
                  {t(`dashboard.alarms.level.${a.level}`)}
                </span>
                <span className={`alarm__kind alarm__kind--${a.kind}`}>
                  {t(`dashboard.alarms.kind.${a.kind}`)}
                </span>
                <Tooltip title={formatDateTime(a.ts, timeZone)}>
                  <time className="alarm__time" dateTime={new Date(a.ts).toISOString()}>
                    {formatShortDateTime(a.ts, timeZone)}
                  </time>
                </Tooltip>
              </div>
              <div className="alarm__content" title={a.code}>
                {a.content}
              </div>
              <div className="alarm__where">
                <span>{a.siteName}</span>
                <span className="alarm__sn">{a.deviceSn}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
