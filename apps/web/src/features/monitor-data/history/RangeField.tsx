/**
 * Range field of the history tabs: a preset kind (day, week, month, year) with its anchor day,
 * or a custom span of days, all days of the site's calendar (the screen's time base; the anchor
 * starts at the site's today); the range is checked with the server's rule (contract
 * `checkTimeRange`) before anything is sent.
 */
import { checkTimeRange, HISTORY_MAX_DAYS, type TimeRange, type TimeRangeIssue } from '@ess/contract';
import { DatePicker, Segmented } from 'antd';
import type { Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';
import { dayjs } from '@/shared/i18n/dayjs';
import { customRange, presetRange, type RangeKind, siteToday } from '../ranges';

/** Range picker: preset kind + anchor day, or a custom span of days. Reports the range, and the rule it breaks (3120–3122) if any. */
export function RangeField({
  kinds,
  onChange,
  testId,
}: {
  kinds: readonly RangeKind[];
  onChange: (range: TimeRange | null, issue: TimeRangeIssue | null) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  const timeZone = useTimeBase() ?? browserTimeZone();
  const [kind, setKind] = useState<RangeKind>('day');
  const [anchor, setAnchor] = useState<Dayjs>(() => dayjs(siteToday(timeZone)));
  const [custom, setCustom] = useState<[Dayjs, Dayjs] | null>(null);
  useEffect(() => {
    const day = (d: Dayjs) => d.format('YYYY-MM-DD');
    const range =
      kind === 'custom'
        ? custom
          ? customRange(day(custom[0]), day(custom[1]), timeZone)
          : null
        : presetRange(kind, day(anchor), timeZone);
    if (!range) return onChange(null, null);
    const issue = checkTimeRange(range, { maxDays: HISTORY_MAX_DAYS, nowMs: Date.now() });
    onChange(range, issue);
  }, [kind, anchor, custom, timeZone, onChange]);
  return (
    <span className="md-range">
      <Segmented<RangeKind>
        data-testid={`${testId}-kind`}
        value={kind}
        onChange={setKind}
        options={kinds.map((k) => ({ value: k, label: t(`monitorData.range.${k}`) }))}
      />
      {kind === 'custom' ? (
        <DatePicker.RangePicker
          data-testid={`${testId}-custom`}
          value={custom}
          onChange={(v) => setCustom(v?.[0] && v[1] ? [v[0], v[1]] : null)}
        />
      ) : (
        <DatePicker
          data-testid={`${testId}-anchor`}
          allowClear={false}
          value={anchor}
          picker={kind === 'month' ? 'month' : kind === 'year' ? 'year' : 'date'}
          onChange={(v) => v && setAnchor(v)}
        />
      )}
    </span>
  );
}
