/**
 * History (issue 4 item 3): curves of any point or group of points over a day, week, month,
 * year or custom range; two periods of one point overlaid; charged/discharged energy per day
 * or month as bars. The server chooses raw rows or 15-min / hourly / daily rollups (at most
 * 3000 points per series) and answers min/max per bucket, drawn as a band; the page shows
 * which resolution answered. Ranges are checked here with the server's rule (inverted, over
 * 400 days, in the future) before anything is sent.
 * Test hooks: `history-site`, `history-series`, `history-preset`, `history-range-kind`,
 * `history-query`, `history-resolution`, `history-range-error`, `history-empty`,
 * `history-stats`, tabs `history-tab-*`, `compare-*`, `energy-*`.
 */
import {
  checkTimeRange,
  HISTORY_MAX_DAYS,
  type HistoryResolution,
  MAX_SERIES_PER_REQUEST,
  type PickDevice,
  pointUnit,
  type SeriesKey,
  type TimeRange,
  type TimeRangeIssue,
} from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, DatePicker, Empty, Segmented, Select, Skeleton, Table, Tabs, Tag } from 'antd';
import type { Dayjs } from 'dayjs';
import type { TFunction } from 'i18next';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { typeLabel } from '@/features/devices/labels';
import { formatNumber } from '@/shared/format';
import { catalogueText } from '@/shared/i18n';
import { dayjs, useDayjsLocale } from '@/shared/i18n/dayjs';
import { fetchCompare, fetchEnergy, fetchHistory, fetchOptions } from './api';
import type { ChartSeries } from './components/SeriesChart';
import { customRange, presetRange, RANGE_KINDS, type RangeKind, seriesTitle } from './model';
import './monitor-data.css';

const SeriesChart = lazy(() => import('./components/SeriesChart'));
const EnergyChart = lazy(() => import('./components/EnergyChart'));

type T = TFunction;

const keyOf = (k: SeriesKey) => `${k.deviceId}:${k.point}`;
const parseKey = (v: string): SeriesKey => {
  const i = v.indexOf(':');
  return { deviceId: Number(v.slice(0, i)), point: v.slice(i + 1) };
};

/** The series picker's options: each device of the site with its points. */
function seriesOptions(t: T, devices: PickDevice[]) {
  return devices
    .filter((d) => d.points.length > 0)
    .map((d) => ({
      label: `${typeLabel(t, d.type)} · ${d.sn}`,
      title: d.sn,
      options: d.points.map((p) => ({
        value: keyOf({ deviceId: d.id, point: p }),
        label: seriesTitle(d, p),
      })),
    }));
}

/** "Power + SOC": the first PCS's power and the first BMS's SOC (else the EMS's SOC). */
function powerAndSoc(devices: PickDevice[]): SeriesKey[] {
  const out: SeriesKey[] = [];
  const pcs = devices.find((d) => d.type === 'pcs' && d.points.includes('p_kw'));
  if (pcs) out.push({ deviceId: pcs.id, point: 'p_kw' });
  const soc =
    devices.find((d) => d.type === 'bms' && d.points.includes('soc_pct')) ??
    devices.find((d) => d.points.includes('soc_pct'));
  if (soc) out.push({ deviceId: soc.id, point: 'soc_pct' });
  return out;
}

function resolutionText(t: T, r: HistoryResolution): string {
  const key = {
    raw: 'monitorData.history.resolution.raw',
    '900': 'monitorData.history.resolution.900',
    '3600': 'monitorData.history.resolution.3600',
    '86400': 'monitorData.history.resolution.86400',
  } as const;
  return t(key[r]);
}

/** Range picker: preset kind + anchor day, or a custom span of days. Reports the range, and the rule it breaks (3120–3122) if any. */
function RangeField({
  kinds,
  onChange,
  testId,
}: {
  kinds: readonly RangeKind[];
  onChange: (range: TimeRange | null, issue: TimeRangeIssue | null) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<RangeKind>('day');
  const [anchor, setAnchor] = useState<Dayjs>(dayjs());
  const [custom, setCustom] = useState<[Dayjs, Dayjs] | null>(null);
  useEffect(() => {
    const range =
      kind === 'custom' ? (custom ? customRange(custom[0], custom[1]) : null) : presetRange(kind, anchor);
    if (!range) return onChange(null, null);
    const issue = checkTimeRange(range, { maxDays: HISTORY_MAX_DAYS, nowMs: Date.now() });
    onChange(range, issue);
  }, [kind, anchor, custom, onChange]);
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

function CurvesTab({ devices, timeZone }: { devices: PickDevice[]; timeZone?: string }) {
  const { t } = useTranslation();
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

function CompareTab({ devices }: { devices: PickDevice[] }) {
  const { t } = useTranslation();
  const [key, setKey] = useState<string | undefined>();
  const [kind, setKind] = useState<'day' | 'week' | 'month'>('day');
  const [a, setA] = useState<Dayjs>(dayjs());
  const [b, setB] = useState<Dayjs>(dayjs().subtract(1, 'day'));
  useEffect(() => {
    setKey(powerAndSoc(devices).map(keyOf)[0]);
  }, [devices]);
  const ra = presetRange(kind, a);
  const rb = presetRange(kind, b);
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

function EnergyTab({ siteId, devices }: { siteId: number; devices: PickDevice[] }) {
  const { t, i18n } = useTranslation();
  const [pcs, setPcs] = useState<number | 0>(0);
  const [granularity, setGranularity] = useState<'day' | 'month'>('day');
  const [anchor, setAnchor] = useState<Dayjs>(dayjs());
  const range: TimeRange = granularity === 'day' ? presetRange('month', anchor) : presetRange('year', anchor);
  const energy = useQuery({
    queryKey: ['monitor', 'energy', siteId, pcs, granularity, range],
    queryFn: () => fetchEnergy(siteId, pcs || undefined, granularity, range),
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: labels follow the language
  const labels = useMemo(
    () => ({ charge: t('monitorData.energy.charge'), discharge: t('monitorData.energy.discharge') }),
    [i18n.language],
  );
  const bars = energy.data?.bars ?? [];
  const total = (k: 'chargeKwh' | 'dischargeKwh') => bars.reduce((n, b) => n + (b[k] ?? 0), 0);
  const hasData = bars.some((b) => b.chargeKwh !== null || b.dischargeKwh !== null);
  return (
    <div className="md-tab">
      <div className="md-toolbar">
        <Select
          className="md-select"
          data-testid="energy-pcs"
          value={pcs}
          onChange={setPcs}
          options={[
            { value: 0, label: t('monitorData.energy.allPcs') },
            ...devices.filter((d) => d.type === 'pcs').map((d) => ({ value: d.id, label: `PCS · ${d.sn}` })),
          ]}
        />
        <Segmented
          data-testid="energy-granularity"
          value={granularity}
          onChange={(v) => setGranularity(v as typeof granularity)}
          options={[
            { value: 'day', label: t('monitorData.energy.perDay') },
            { value: 'month', label: t('monitorData.energy.perMonth') },
          ]}
        />
        <DatePicker
          data-testid="energy-anchor"
          allowClear={false}
          picker={granularity === 'day' ? 'month' : 'year'}
          value={anchor}
          onChange={(v) => v && setAnchor(v)}
        />
      </div>
      {energy.data && hasData && (
        <div className="md-summary" data-testid="energy-totals">
          <span>
            {t('monitorData.energy.charge')}: <b>{formatNumber(total('chargeKwh'), 1)} kWh</b>
          </span>
          <span>
            {t('monitorData.energy.discharge')}: <b>{formatNumber(total('dischargeKwh'), 1)} kWh</b>
          </span>
        </div>
      )}
      {energy.isLoading ? (
        <Skeleton active />
      ) : !hasData ? (
        <Empty
          data-testid="energy-empty"
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={t('monitorData.noData')}
        />
      ) : (
        <Suspense fallback={<div className="energy-chart" />}>
          <EnergyChart bars={bars} labels={labels} />
        </Suspense>
      )}
    </div>
  );
}

export default function HistoryPage() {
  const { t } = useTranslation();
  useDayjsLocale();
  const [siteId, setSiteId] = useState<number>();
  const [tab, setTab] = useState('curves');
  const sites = useQuery({
    queryKey: ['monitor', 'options', 'history'],
    queryFn: () => fetchOptions('history'),
  });
  useEffect(() => {
    if (siteId === undefined && sites.data?.sites[0]) setSiteId(sites.data.sites[0].id);
  }, [sites.data, siteId]);
  const devices = useQuery({
    queryKey: ['monitor', 'options', 'history', siteId],
    queryFn: () => fetchOptions('history', siteId),
    enabled: siteId !== undefined,
  });
  const list = devices.data?.devices;
  const site = sites.data?.sites.find((s) => s.id === siteId);
  return (
    <div className="md-page" data-testid="history-page">
      <div className="md-toolbar">
        <Select
          className="md-select"
          data-testid="history-site"
          placeholder={t('monitorData.site')}
          value={siteId}
          loading={sites.isLoading}
          showSearch={{ optionFilterProp: 'label' }}
          options={sites.data?.sites.map((s) => ({ value: s.id, label: s.name }))}
          onChange={setSiteId}
        />
      </div>
      {sites.data && sites.data.sites.length === 0 ? (
        <Empty description={t('monitorData.noSites')} />
      ) : !list || siteId === undefined ? (
        <Skeleton active />
      ) : (
        <Tabs
          activeKey={tab}
          onChange={setTab}
          items={[
            {
              key: 'curves',
              label: <span data-testid="history-tab-curves">{t('monitorData.history.curves')}</span>,
              children: <CurvesTab devices={list} timeZone={site?.timezone} />,
            },
            {
              key: 'compare',
              label: <span data-testid="history-tab-compare">{t('monitorData.compare.title')}</span>,
              children: <CompareTab devices={list} />,
            },
            {
              key: 'energy',
              label: <span data-testid="history-tab-energy">{t('monitorData.energy.title')}</span>,
              children: <EnergyTab siteId={siteId} devices={list} />,
            },
          ]}
        />
      )}
    </div>
  );
}
