/**
 * History tab "compare": one point over two periods (day, week or month) of the site's calendar
 * (the screen's time base) overlaid on a common time axis (offset from each period's start).
 * Test hooks: `compare-series`, `compare-kind`, `compare-a`, `compare-b`, `compare-resolution`.
 */
import { checkTimeRange, HISTORY_MAX_DAYS, type PickDevice, pointUnit } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Alert, DatePicker, Empty, Segmented, Select, Skeleton, Tag } from 'antd';
import type { Dayjs } from 'dayjs';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';
import { catalogueText } from '@/shared/i18n';
import { dayjs } from '@/shared/i18n/dayjs';
import { fetchCompare } from '../api';
import type { ChartSeries } from '../components/SeriesChart';
import { presetRange, siteToday } from '../ranges';
import { keyOf, parseKey, powerAndSoc, resolutionText, seriesOptions } from './series';

const SeriesChart = lazy(() => import('../components/SeriesChart'));

export function CompareTab({ devices }: { devices: PickDevice[] }) {
  const { t } = useTranslation();
  const [key, setKey] = useState<string | undefined>();
  const [kind, setKind] = useState<'day' | 'week' | 'month'>('day');
  const timeZone = useTimeBase() ?? browserTimeZone();
  const [a, setA] = useState<Dayjs>(() => dayjs(siteToday(timeZone)));
  const [b, setB] = useState<Dayjs>(() => dayjs(siteToday(timeZone)).subtract(1, 'day'));
  useEffect(() => {
    setKey(powerAndSoc(devices).map(keyOf)[0]);
  }, [devices]);
  const ra = presetRange(kind, a.format('YYYY-MM-DD'), timeZone);
  const rb = presetRange(kind, b.format('YYYY-MM-DD'), timeZone);
  const issue =
    checkTimeRange(ra, { maxDays: HISTORY_MAX_DAYS, nowMs: Date.now() }) ??
    checkTimeRange(rb, { maxDays: HISTORY_MAX_DAYS, nowMs: Date.now() });
  const compare = useQuery({
    queryKey: ['monitor', 'compare', key, ra, rb],
    queryFn: () => fetchCompare(parseKey(key!), ra, rb),
    enabled: key !== undefined && !issue,
  });
  const device = key ? devices.find((d) => d.id === parseKey(key).deviceId) : undefined;
  const point = key ? parseKey(key).point : '';
  const label = (p: 'a' | 'b', d: Dayjs) =>
    `${p.toUpperCase()}: ${kind === 'month' ? d.format('YYYY-MM') : kind === 'week' ? `${d.subtract(6, 'day').format('MM-DD')}–${d.format('MM-DD')}` : d.format('YYYY-MM-DD')}`;
  const data = compare.data;
  const series: ChartSeries[] = data
    ? (['a', 'b'] as const).map((p) => ({
        name: label(p, p === 'a' ? a : b),
        unit: device ? pointUnit(point, device.type) : '',
        x: data[p].series.ts.map((ts) => ts - data[p].startMs),
        avg: data[p].series.avg,
        min: data[p].series.min,
        max: data[p].series.max,
      }))
    : [];
  const picker = kind === 'month' ? 'month' : 'date';
  return (
    <div className="md-tab">
      <div className="md-toolbar">
        <Select
          className="md-select md-select--series"
          data-testid="compare-series"
          value={key}
          options={seriesOptions(t, devices)}
          onChange={setKey}
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t('monitorData.history.series')}
        />
        <Segmented
          data-testid="compare-kind"
          value={kind}
          onChange={(v) => setKind(v as typeof kind)}
          options={(['day', 'week', 'month'] as const).map((k) => ({
            value: k,
            label: t(`monitorData.range.${k}`),
          }))}
        />
      </div>
      <div className="md-toolbar">
        <span className="md-label">{t('monitorData.compare.periodA')}</span>
        <DatePicker
          data-testid="compare-a"
          allowClear={false}
          picker={picker}
          value={a}
          onChange={(v) => v && setA(v)}
        />
        <span className="md-label">{t('monitorData.compare.periodB')}</span>
        <DatePicker
          data-testid="compare-b"
          allowClear={false}
          picker={picker}
          value={b}
          onChange={(v) => v && setB(v)}
        />
      </div>
      {issue && <Alert type="error" showIcon title={catalogueText(issue.code, issue.params)} />}
      {data && (
        <div className="md-summary">
          <Tag color="blue" data-testid="compare-resolution">
            {resolutionText(t, data.resolution)}
          </Tag>
          <span className="md-note">{t('monitorData.compare.note')}</span>
        </div>
      )}
      {compare.isFetching && !data ? (
        <Skeleton active />
      ) : data && series.every((s) => s.x.length === 0) ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('monitorData.noData')} />
      ) : data ? (
        <Suspense fallback={<div className="series-chart" style={{ height: 360 }} />}>
          <SeriesChart series={series} x="offset" />
        </Suspense>
      ) : null}
    </div>
  );
}
