/**
 * Expected daily arbitrage of an assigned site under the scheme being edited: choose the site
 * (its storage capacity kWh and PCS rated power kW), the round-trip efficiency (default 90 %)
 * and a date (its local "today" by default); `resolveDay` picks the daily plan of that date
 * and the contract's `previewArbitrage` runs the day: charged and discharged kWh, cost, revenue
 * and net CNY per day, cycles, a per-period table and the SOC curve.
 * Below it, the strategy comparison of that day's tariff (StrategyComparison.tsx): time order,
 * price-aware and optimal, and "use the optimal plan" (`onApplyPlan`).
 * Test hooks: `arbitrage-preview`, `preview-site`, `preview-date`, `preview-efficiency`,
 * `preview-plan`, `preview-net`, `preview-charged`, `preview-discharged`, `preview-cycles`,
 * `preview-periods`.
 */
import {
  localTimeOf,
  previewArbitrage,
  resolveDay,
  type TouAssignedSite,
  type TouPeriod,
  type TouSchemeDocument,
} from '@ess/contract';
import { DatePicker, Empty, InputNumber, Select, Skeleton, Table, Tag } from 'antd';
import type { Dayjs } from 'dayjs';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCny, formatNumber, formatPrice, formatQuantity } from '@/shared/format';
import { dayjs } from '@/shared/i18n/dayjs';
import { SOURCE_COLORS, TIER_COLORS } from '../model';
import { StrategyComparison } from './StrategyComparison';

const SocChart = lazy(() => import('./SocChart'));

/** Default round-trip efficiency of the preview, %. */
const DEFAULT_EFFICIENCY_PCT = 90;

export function ArbitragePreview({
  doc,
  sites,
  dirty,
  onApplyPlan,
}: {
  doc: TouSchemeDocument;
  sites: readonly TouAssignedSite[];
  dirty: boolean;
  /** Replace the periods of daily plan `key` in the editor (the optimal plan); absent when read-only. */
  onApplyPlan?: (key: number, periods: TouPeriod[]) => void;
}) {
  const { t } = useTranslation();
  const [siteId, setSiteId] = useState<number | null>(null);
  const [efficiency, setEfficiency] = useState<number>(DEFAULT_EFFICIENCY_PCT);
  const [date, setDate] = useState<string | null>(null);

  const site = sites.find((s) => s.siteId === siteId) ?? sites[0];
  const day = date ?? (site ? localTimeOf(Date.now(), site.timezone).date : dayjs().format('YYYY-MM-DD'));
  const resolved = useMemo(() => (doc.dailyPlans.length > 0 ? resolveDay(doc, day) : null), [doc, day]);
  const usable = site !== undefined && site.capacityKwh > 0 && site.ratedPowerKw > 0;

  const preview = useMemo(
    () =>
      resolved && site && usable
        ? previewArbitrage(resolved.dailyPlan, {
            capacityKwh: site.capacityKwh,
            ratedPowerKw: site.ratedPowerKw,
            roundTripEfficiencyPct: efficiency,
          })
        : null,
    [resolved, site, usable, efficiency],
  );

  const cny = (value: number) => t('tou.preview.cny', { value: formatCny(value) });

  return (
    <section className="tou-panel" data-testid="arbitrage-preview">
      <div className="tou-panel__head">
        <h3 className="tou-panel__title">{t('tou.preview.title')}</h3>
      </div>
      {!site ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tou.preview.noSite')} />
      ) : (
        <>
          <p className="tou-muted">
            {t('tou.preview.hint')}
            {dirty && ` ${t('tou.preview.unsavedNote')}`}
          </p>
          <div className="tou-preview__inputs">
            <div className="tou-inline-field">
              <span>{t('tou.preview.site')}</span>
              <Select<number>
                value={site.siteId}
                options={sites.map((s) => ({ value: s.siteId, label: s.siteName }))}
                onChange={setSiteId}
                data-testid="preview-site"
              />
            </div>
            <div className="tou-inline-field">
              <span>{t('tou.preview.date')}</span>
              <DatePicker
                value={dayjs(day)}
                allowClear={false}
                onChange={(d: Dayjs | null) => d && setDate(d.format('YYYY-MM-DD'))}
                data-testid="preview-date"
              />
            </div>
            <div className="tou-inline-field">
              <span>{t('tou.preview.efficiency')}</span>
              <InputNumber
                value={efficiency}
                min={1}
                max={100}
                onChange={(v) => typeof v === 'number' && setEfficiency(v)}
                data-testid="preview-efficiency"
              />
            </div>
          </div>
          <p className="tou-muted">
            {t('tou.preview.battery', {
              capacity: formatQuantity(site.capacityKwh, 'kWh'),
              power: formatQuantity(site.ratedPowerKw, 'kW'),
            })}
          </p>
          {resolved && (
            <p data-testid="preview-plan">
              {t('tou.preview.plan')}: <strong>{resolved.dailyPlan.name}</strong>{' '}
              <Tag color={SOURCE_COLORS[resolved.source]}>{t(`tou.sources.${resolved.source}`)}</Tag>
            </p>
          )}
          {!usable ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tou.preview.noBattery')} />
          ) : (
            preview &&
            resolved && (
              <>
                <dl className="tou-preview__figures">
                  <div className="tou-figure">
                    <dt>{t('tou.preview.charged')}</dt>
                    <dd data-testid="preview-charged">{formatQuantity(preview.chargedKwh, 'kWh')}</dd>
                  </div>
                  <div className="tou-figure">
                    <dt>{t('tou.preview.discharged')}</dt>
                    <dd data-testid="preview-discharged">{formatQuantity(preview.dischargedKwh, 'kWh')}</dd>
                  </div>
                  <div className="tou-figure">
                    <dt>{t('tou.preview.cycles')}</dt>
                    <dd data-testid="preview-cycles">{formatNumber(preview.cycles, 2)}</dd>
                  </div>
                  <div className="tou-figure">
                    <dt>{t('tou.preview.cost')}</dt>
                    <dd>{cny(preview.costCny)}</dd>
                  </div>
                  <div className="tou-figure">
                    <dt>{t('tou.preview.revenue')}</dt>
                    <dd>{cny(preview.revenueCny)}</dd>
                  </div>
                  <div className="tou-figure tou-figure--net">
                    <dt>{t('tou.preview.net')}</dt>
                    <dd data-testid="preview-net">{cny(preview.netCny)}</dd>
                  </div>
                </dl>
                <h4>{t('tou.preview.soc')}</h4>
                <Suspense fallback={<Skeleton.Node active className="tou-soc-chart" />}>
                  <SocChart socPct={preview.socPct} periods={resolved.dailyPlan.periods} name="SOC" />
                </Suspense>
                <h4>{t('tou.preview.perPeriod')}</h4>
                <Table
                  size="small"
                  pagination={false}
                  scroll={{ x: 'max-content' }}
                  rowKey="start"
                  dataSource={preview.perPeriod}
                  data-testid="preview-periods"
                  columns={[
                    {
                      key: 'period',
                      title: t('tou.preview.period'),
                      render: (_, p) => `${p.start}–${p.end}`,
                    },
                    {
                      key: 'tier',
                      title: t('tou.period.tier'),
                      render: (_, p) =>
                        p.tier ? <Tag color={TIER_COLORS[p.tier]}>{t(`tou.tiers.${p.tier}`)}</Tag> : '—',
                    },
                    {
                      key: 'price',
                      title: t('tou.period.price'),
                      align: 'right',
                      render: (_, p) => formatPrice(p.priceCnyPerKwh),
                    },
                    {
                      key: 'charged',
                      title: t('tou.preview.chargedKwh'),
                      align: 'right',
                      render: (_, p) => formatNumber(p.chargedKwh, 1),
                    },
                    {
                      key: 'discharged',
                      title: t('tou.preview.dischargedKwh'),
                      align: 'right',
                      render: (_, p) => formatNumber(p.dischargedKwh, 1),
                    },
                    {
                      key: 'net',
                      title: t('tou.preview.periodNet'),
                      align: 'right',
                      render: (_, p) => formatCny(p.netCny),
                    },
                  ]}
                />
                <StrategyComparison
                  plan={resolved.dailyPlan}
                  site={site}
                  efficiencyPct={efficiency}
                  {...(onApplyPlan
                    ? { onApply: (periods: TouPeriod[]) => onApplyPlan(resolved.dailyPlan.key, periods) }
                    : {})}
                />
              </>
            )
          )}
        </>
      )}
    </section>
  );
}
