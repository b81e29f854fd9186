/**
 * Today's power curve card: the chart (lazy ECharts chunk) or "no data yet" while no bucket
 * of the day has a reading. Test hook: `power-curve` (`data-state` = empty | chart | loading).
 */
import type { PowerCurve as Curve } from '@ess/contract';
import { Empty } from 'antd';
import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';
import type { SeriesLabels } from './PowerChart';

const PowerChart = lazy(() => import('./PowerChart'));

function hasReadings(curve: Curve): boolean {
  return [curve.batteryKw, curve.gridKw, curve.pvKw, curve.loadKw].some((s) => s.some((v) => v !== null));
}

/** The card; `curve` undefined while the first answer is on its way. Drawn in the screen's time base. */
export function PowerCurve({ curve }: { curve: Curve | undefined }) {
  const { t, i18n } = useTranslation();
  const timeZone = useTimeBase() ?? browserTimeZone();
  // biome-ignore lint/correctness/useExhaustiveDependencies: labels follow the language
  const labels = useMemo<SeriesLabels>(
    () => ({
      battery: t('dashboard.curve.battery'),
      grid: t('dashboard.curve.grid'),
      pv: t('dashboard.curve.pv'),
      load: t('dashboard.curve.load'),
    }),
    [i18n.language],
  );
  const state = curve === undefined ? 'loading' : hasReadings(curve) ? 'chart' : 'empty';
  return (
    <section className="panel power-curve" data-testid="power-curve" data-state={state}>
      <header className="panel__head">
        <h2 className="panel__title">{t('dashboard.curve.title')}</h2>
        <span className="panel__note">{t('dashboard.curve.sign')}</span>
      </header>
      <div className="power-curve__body">
        {state === 'chart' && curve ? (
          <Suspense fallback={<div className="power-chart power-chart--loading" />}>
            <PowerChart curve={curve} labels={labels} timeZone={timeZone} />
          </Suspense>
        ) : state === 'empty' ? (
          <Empty
            className="panel__empty"
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            description={t('dashboard.curve.empty')}
          />
        ) : (
          <div className="power-chart power-chart--loading" />
        )}
      </div>
    </section>
  );
}
