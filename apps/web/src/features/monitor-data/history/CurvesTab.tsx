/**
 * History tab "curves": any points of the site's devices over a range, with the resolution
 * that answered, min/max bands and per-series statistics.
 * Test hooks: `history-series`, `history-preset`, `history-range-*`, `history-query`,
 * `history-range-error`, `history-resolution`, `history-empty`, `history-stats`.
 */
import {
  MAX_SERIES_PER_REQUEST,
  type PickDevice,
  pointUnit,
  type SeriesKey,
  type TimeRange,
  type TimeRangeIssue,
} from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Empty, Select, Skeleton, Table, Tag } from 'antd';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';
import { catalogueText } from '@/shared/i18n';
import { fetchHistory } from '../api';
import type { ChartSeries } from '../components/SeriesChart';
import { seriesTitle } from '../model';
import { RANGE_KINDS } from '../ranges';
import { RangeField } from './RangeField';
import { keyOf, parseKey, powerAndSoc, resolutionText, seriesOptions } from './series';

const SeriesChart = lazy(() => import('../components/SeriesChart'));

export function CurvesTab({ devices }: { devices: PickDevice[] }) {
  const { t } = useTranslation();
  const timeZone = useTimeBase();
  const [selected, setSelected] = useState<string[]>([]);
  const [range, setRange] = useState<TimeRange | null>(null);
  const [rangeError, setRangeError] = useState<TimeRangeIssue | null>(null);
  const [query, setQuery] = useState<{ keys: SeriesKey[]; range: TimeRange } | null>(null);
  const onRange = useMemo(
    () => (r: TimeRange | null, e: TimeRangeIssue | null) => {
      setRange(r);
      setRangeError(e);
    },
    [],
  );
  // A site's first view: its power and SOC over today.
  useEffect(() => {
    const preset = powerAndSoc(devices).map(keyOf);
    setSelected(preset);
    setQuery(null);
  }, [devices]);
  useEffect(() => {
    if (!query && range && !rangeError && selected.length > 0)
      setQuery({ keys: selected.map(parseKey), range });
  }, [query, range, rangeError, selected]);

  const history = useQuery({
    queryKey: ['monitor', 'history', query],
    queryFn: () => fetchHistory(query!.keys, query!.range),
    enabled: query !== null,
  });
  const byId = new Map(devices.map((d) => [d.id, d]));
  const series: ChartSeries[] = (history.data?.series ?? []).map((s) => ({
    name: seriesTitle(byId.get(s.deviceId) ?? s, s.point),
    unit: pointUnit(s.point, s.type),
    x: s.ts,
    avg: s.avg,
    min: s.min,
    max: s.max,
  }));
  const empty = history.data?.series.every((s) => s.ts.length === 0);

  return (
    <div className="md-tab">
      <div className="md-toolbar">
        <Select
          mode="multiple"
          className="md-select md-select--series"
          data-testid="history-series"
          placeholder={t('monitorData.history.series')}
          value={selected}
          maxCount={MAX_SERIES_PER_REQUEST}
          options={seriesOptions(t, devices)}
          onChange={setSelected}
          showSearch={{ optionFilterProp: 'label' }}
          maxTagCount="responsive"
        />
        <Button data-testid="history-preset" onClick={() => setSelected(powerAndSoc(devices).map(keyOf))}>
          {t('monitorData.history.presetPowerSoc')}
        </Button>
      </div>
      <div className="md-toolbar">
        <RangeField kinds={RANGE_KINDS} onChange={onRange} testId="history-range" />
        <Button
          type="primary"
          data-testid="history-query"
          disabled={!range || !!rangeError || selected.length === 0}
          onClick={() => range && setQuery({ keys: selected.map(parseKey), range })}
        >
          {t('monitorData.query')}
        </Button>
      </div>
      {rangeError && (
        // The rule's code is kept, so the text follows a language switch.
        <Alert
          type="error"
          showIcon
          title={catalogueText(rangeError.code, rangeError.params)}
          data-testid="history-range-error"
        />
      )}
      {history.data && (
        <div className="md-summary">
          <Tag color="blue" data-testid="history-resolution" data-resolution={history.data.resolution}>
            {resolutionText(t, history.data.resolution)}
          </Tag>
          {history.data.resolution !== 'raw' && (
            <span className="md-note">{t('monitorData.history.bandNote')}</span>
          )}
        </div>
      )}
      {history.isFetching && !history.data ? (
        <Skeleton active />
      ) : empty ? (
        <Empty
          data-testid="history-empty"
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={t('monitorData.noData')}
        />
      ) : history.data ? (
        <>
          <Suspense fallback={<div className="series-chart" style={{ height: 360 }} />}>
            <SeriesChart series={series} timeZone={timeZone} />
          </Suspense>
          <Table
            className="md-stats"
            data-testid="history-stats"
            size="small"
            scroll={{ x: 'max-content' }}
            pagination={false}
            rowKey="name"
            dataSource={history.data.series.map((s, i) => ({
              name: series[i]!.name,
              unit: series[i]!.unit,
              ...s.stats,
            }))}
            columns={[
              { title: t('monitorData.history.series'), dataIndex: 'name' },
              { title: t('monitorData.history.readings'), dataIndex: 'n', align: 'right' },
              ...(['avg', 'min', 'max'] as const).map((k) => ({
                title: t(`monitorData.history.${k}`),
                dataIndex: k,
                align: 'right' as const,
                render: (v: number | null, row: { unit: string }) =>
                  v === null ? t('monitorData.noData') : `${formatNumber(v, 2)} ${row.unit}`.trim(),
              })),
            ]}
          />
        </>
      ) : null}
    </div>
  );
}
