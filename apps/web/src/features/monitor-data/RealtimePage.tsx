/**
 * Real-time data (spec §2 `/realTimeShow`): pick a site, then one of its
 * devices; every point the device reports with its translated name, value, unit and report
 * time, updated live over the `device:<id>` channel. A value is marked stale when it is older
 * than 3 reporting intervals of the gateway, or the gateway is offline (the server answers
 * the interval and the state; the page re-reads them every 30 s). Clicking a point opens its
 * last hour as a line chart. Report times and the chart are in the site's zone (the page's time
 * base), named by a tag when it is not the browser's. The picked site and device are kept in the
 * address (`?siteId=&deviceId=`): a shared link and the language switch's reload open the same device.
 * Test hooks: `realtime-site`, `realtime-device`, `realtime-table`, rows `point-<name>` with
 * `data-stale`, `point-value-<name>`, `point-time-<name>`, `realtime-trend`, `zone-tag`.
 */
import { isStale, type PickDevice, pointUnit, REALTIME_TREND_MS } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Empty, Modal, Select, Skeleton, Table, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { TFunction } from 'i18next';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { typeLabel } from '@/shared/devices';
import { formatDateTime, formatNumber } from '@/shared/format';
import { TimeBaseProvider, useTimeBase, ZoneTag } from '@/shared/format/time-base';
import { LiveIndicator, overlayPoints, useLiveDevices, useLiveStatus } from '@/shared/live';
import { idParam, useSearchPicks } from '@/shared/routing';
import { fetchOptions, fetchRealtime, fetchTrend } from './api';
import { pointTitle } from './model';
import './monitor-data.css';

const SeriesChart = lazy(() => import('./components/SeriesChart'));

/** How often the device's state and stale threshold are read again over HTTP. */
const REFETCH_MS = 30_000;

const NO_POINTS: { name: string; value: number; ts: number }[] = [];

interface Row {
  name: string;
  value: number;
  ts: number;
  stale: boolean;
}

/** Re-renders every `ms` with the current time. */
function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return now;
}

function deviceOption(t: TFunction, d: PickDevice) {
  return {
    value: d.id,
    label: (
      <span className="md-device-option">
        <span className={`status-dot status-dot--${d.online ? 'online' : 'offline'}`} aria-hidden="true" />
        {typeLabel(t, d.type)} · {d.sn}
      </span>
    ),
    title: `${typeLabel(t, d.type)} ${d.sn}`,
  };
}

function Trend({
  deviceId,
  point,
  title,
  onClose,
}: {
  deviceId: number;
  point: string;
  title: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const timeZone = useTimeBase();
  const trend = useQuery({
    queryKey: ['monitor', 'trend', deviceId, point],
    queryFn: () => fetchTrend(deviceId, point),
    refetchInterval: REFETCH_MS,
  });
  const s = trend.data?.series[0];
  return (
    <Modal open title={title} onCancel={onClose} footer={null} width={880} destroyOnHidden>
      <p className="md-note">
        {t('monitorData.realtime.trendNote', { minutes: REALTIME_TREND_MS / 60_000 })}
      </p>
      <div data-testid="realtime-trend" data-state={!s ? 'loading' : s.ts.length ? 'chart' : 'empty'}>
        {!s ? (
          <Skeleton active />
        ) : s.ts.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('monitorData.noData')} />
        ) : (
          <Suspense fallback={<div className="series-chart" style={{ height: 320 }} />}>
            <SeriesChart
              height={320}
              timeZone={timeZone}
              series={[
                { name: title, unit: pointUnit(point, s.type), x: s.ts, avg: s.avg, min: s.min, max: s.max },
              ]}
            />
          </Suspense>
        )}
      </div>
    </Modal>
  );
}

/** Search parameters of the picked site and device. */
const SITE_PARAM = 'siteId';
const DEVICE_PARAM = 'deviceId';

export default function RealtimePage() {
  const { t, i18n } = useTranslation();
  // The picked site and device live in the address (?siteId=&deviceId=), so the reload of a
  // language switch and a shared link open the same device.
  const [params, setPicks] = useSearchPicks();
  const siteId = idParam(params.get(SITE_PARAM));
  const deviceId = idParam(params.get(DEVICE_PARAM));
  const pick = useCallback(
    (site: number | undefined, device: number | undefined) =>
      setPicks({ [SITE_PARAM]: site, [DEVICE_PARAM]: device }),
    [setPicks],
  );
  const [trendPoint, setTrendPoint] = useState<string | null>(null);

  const sites = useQuery({
    queryKey: ['monitor', 'options', 'realtime'],
    queryFn: () => fetchOptions('realtime'),
  });
  // No site in the address, or one the caller does not see: the first of the list.
  useEffect(() => {
    const list = sites.data?.sites;
    if (list?.[0] && (siteId === undefined || !list.some((s) => s.id === siteId)))
      pick(list[0].id, undefined);
  }, [sites.data, siteId, pick]);
  const devices = useQuery({
    queryKey: ['monitor', 'options', 'realtime', siteId],
    queryFn: () => fetchOptions('realtime', siteId),
    enabled: siteId !== undefined,
  });
  useEffect(() => {
    const list = devices.data?.devices;
    if (list && (deviceId === undefined || !list.some((d) => d.id === deviceId))) pick(siteId, list[0]?.id);
  }, [devices.data, deviceId, siteId, pick]);

  const realtime = useQuery({
    queryKey: ['monitor', 'realtime', deviceId],
    queryFn: () => fetchRealtime(deviceId!),
    enabled: deviceId !== undefined,
    refetchInterval: REFETCH_MS,
  });
  const status = useLiveStatus();
  const liveIds = useMemo(() => (deviceId === undefined ? [] : [deviceId]), [deviceId]);
  const live = useLiveDevices(liveIds);

  // The HTTP answer with the newer live values laid over it, per point (each point keeps its
  // own report time; shared/live "newest value wins").
  const http = realtime.data && realtime.data.device.id === deviceId ? realtime.data.points : NO_POINTS;
  const points = useMemo(
    () => overlayPoints(http, deviceId === undefined ? undefined : live.get(deviceId)),
    [http, live, deviceId],
  );

  const now = useNow(1000);
  const data = realtime.data;
  const timeZone = sites.data?.sites.find((s) => s.id === siteId)?.timezone;
  const skew = data ? data.serverNow - (realtime.dataUpdatedAt || Date.now()) : 0;
  const device = devices.data?.devices.find((d) => d.id === deviceId);
  const type = data?.device.type ?? device?.type;
  const order = data?.device.points ?? [];
  const rows: Row[] = [...points.entries()]
    .sort(([a], [b]) => {
      const ia = order.indexOf(a);
      const ib = order.indexOf(b);
      return (ia < 0 ? 1e9 : ia) - (ib < 0 ? 1e9 : ib) || a.localeCompare(b);
    })
    .map(([name, p]) => ({
      name,
      value: p.value,
      ts: p.ts,
      stale: data ? isStale(p.ts, now + skew, data.staleAfterMs, data.online) : false,
    }));
  const staleCount = rows.filter((r) => r.stale).length;

  // biome-ignore lint/correctness/useExhaustiveDependencies: labels follow the language
  const columns = useMemo<ColumnsType<Row>>(
    () => [
      {
        title: t('monitorData.realtime.point'),
        dataIndex: 'name',
        render: (name: string) => (
          <span className="md-point">
            <span className="md-point__label">
              {type ? pointTitle(name, type).replace(/ \([^)]*\)$/, '') : name}
            </span>
            <span className="md-point__name">{name}</span>
          </span>
        ),
      },
      {
        title: t('monitorData.realtime.value'),
        dataIndex: 'value',
        align: 'right',
        render: (value: number, row) => (
          <span className="md-value" data-testid={`point-value-${row.name}`}>
            {formatNumber(value, 3)}
          </span>
        ),
      },
      {
        title: t('monitorData.realtime.unit'),
        key: 'unit',
        width: 80,
        render: (_: unknown, row) => pointUnit(row.name, type) || '—',
      },
      {
        title: t('monitorData.realtime.time'),
        dataIndex: 'ts',
        responsive: ['sm'],
        render: (ts: number, row) => (
          <span data-testid={`point-time-${row.name}`}>{formatDateTime(ts, timeZone)}</span>
        ),
      },
      {
        title: t('monitorData.realtime.state'),
        key: 'state',
        width: 110,
        render: (_: unknown, row) =>
          row.stale ? (
            <Tooltip
              title={t(
                data?.online === false
                  ? 'monitorData.realtime.staleOffline'
                  : 'monitorData.realtime.staleOld',
              )}
            >
              <Tag color="orange">{t('monitorData.realtime.stale')}</Tag>
            </Tooltip>
          ) : (
            <Tag color="green">{t('monitorData.realtime.fresh')}</Tag>
          ),
      },
    ],
    [i18n.language, type, data?.online, timeZone],
  );

  return (
    <TimeBaseProvider timeZone={timeZone}>
      <div className="md-page" data-testid="realtime-page">
        <div className="md-toolbar">
          <Select
            className="md-select"
            data-testid="realtime-site"
            placeholder={t('monitorData.site')}
            value={siteId}
            loading={sites.isLoading}
            showSearch={{ optionFilterProp: 'label' }}
            options={sites.data?.sites.map((s) => ({ value: s.id, label: s.name }))}
            onChange={(id: number) => {
              pick(id, undefined);
            }}
          />
          <Select
            className="md-select md-select--wide"
            data-testid="realtime-device"
            placeholder={t('monitorData.device')}
            value={deviceId}
            loading={devices.isLoading}
            options={devices.data?.devices.map((d) => deviceOption(t, d))}
            optionLabelProp="label"
            onChange={(id: number) => pick(siteId, id)}
          />
          <span className="md-toolbar__spacer" />
          <ZoneTag site={timeZone} />
          <LiveIndicator status={status} />
        </div>
        {data && (
          <div className="md-summary" data-testid="realtime-summary">
            <Tag color={data.online ? 'green' : 'red'}>
              {data.online
                ? t('monitorData.realtime.gatewayOnline')
                : t('monitorData.realtime.gatewayOffline')}
            </Tag>
            <span>
              {t('monitorData.realtime.staleRule', {
                interval: formatNumber(data.intervalMs / 1000, 0),
                threshold: formatNumber(data.staleAfterMs / 1000, 0),
              })}
            </span>
            {staleCount > 0 && (
              <Tag color="orange">{t('monitorData.realtime.staleCount', { count: staleCount })}</Tag>
            )}
          </div>
        )}
        {sites.data && sites.data.sites.length === 0 ? (
          <Empty description={t('monitorData.noSites')} />
        ) : (
          <Table<Row>
            className="md-table"
            data-testid="realtime-table"
            rowKey="name"
            size="middle"
            loading={realtime.isLoading && deviceId !== undefined}
            columns={columns}
            dataSource={rows}
            pagination={false}
            locale={{
              emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('monitorData.noData')} />,
            }}
            rowClassName={(row) => (row.stale ? 'md-row md-row--stale' : 'md-row')}
            onRow={(row) =>
              ({
                onClick: () => setTrendPoint(row.name),
                'data-testid': `point-${row.name}`,
                'data-stale': row.stale ? 'true' : 'false',
                title: t('monitorData.realtime.clickForTrend'),
              }) as React.HTMLAttributes<HTMLTableRowElement>
            }
          />
        )}
        {trendPoint && deviceId !== undefined && type && (
          <Trend
            deviceId={deviceId}
            point={trendPoint}
            title={`${device?.sn ?? ''} · ${pointTitle(trendPoint, type)}`}
            onClose={() => setTrendPoint(null)}
          />
        )}
      </div>
    </TimeBaseProvider>
  );
}
