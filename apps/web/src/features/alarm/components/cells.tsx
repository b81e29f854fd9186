/**
 * Cells of the alarm tables: level tag, alarm type (label and code), acknowledgement (who and
 * when, in the site's time zone), the event colours, and the one-alarm "Acknowledge" button
 * behind its confirmation.
 * Test hooks: `alarm-ackinfo-<id>`, `alarm-ack-<id>`.
 */
import { CheckOutlined } from '@ant-design/icons';
import { type AlarmEventType, alarmCodeLabel } from '@ess/contract';
import { Button, Popconfirm, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime, NO_VALUE } from '@/shared/format';
import { currentLang } from '@/shared/i18n';

/** Tag colour per history event. */
export const EVENT_COLOR: Record<AlarmEventType, string> = {
  produce: 'red',
  disappear: 'green',
  online: 'blue',
  offline: 'default',
};

export function LevelTag({ level }: { level: 'warning' | 'fault' | null }) {
  const { t } = useTranslation();
  if (!level) return <>{NO_VALUE}</>;
  return (
    <Tag color={level === 'fault' ? 'red' : 'orange'} data-level={level}>
      {t(`alarm.level.${level}`)}
    </Tag>
  );
}

export function AlarmType({ code }: { code: string | null }) {
  if (!code) return <>{NO_VALUE}</>;
  return (
    <span className="alarm-type">
      <span>{alarmCodeLabel(code, currentLang())}</span>
      <code className="alarm-type__code">{code}</code>
    </span>
  );
}

export function AckInfo({
  id,
  ackAt,
  ackBy,
  tz,
}: {
  id: number;
  ackAt: number | null;
  ackBy: string | null;
  tz: string;
}) {
  const { t } = useTranslation();
  if (ackAt === null) return <span className="alarm-ack alarm-ack--none">{t('alarm.notAcked')}</span>;
  return (
    <span className="alarm-ack" data-testid={`alarm-ackinfo-${id}`}>
      <span className="alarm-ack__who">{ackBy}</span>
      <span className="alarm-ack__when">{formatDateTime(ackAt, tz)}</span>
    </span>
  );
}

/** "Acknowledge" for one alarm, after a confirmation. */
export function AckButton({ id, onAck }: { id: number; onAck: (ids: number[]) => Promise<void> }) {
  const { t } = useTranslation();
  return (
    <Popconfirm
      title={t('alarm.ackConfirm', { n: 1 })}
      okText={t('alarm.ack')}
      cancelText={t('common.cancel')}
      onConfirm={() => onAck([id])}
    >
      <Button size="small" icon={<CheckOutlined />} data-testid={`alarm-ack-${id}`}>
        {t('alarm.ack')}
      </Button>
    </Popconfirm>
  );
}
