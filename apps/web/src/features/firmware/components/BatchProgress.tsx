/**
 * A batch's progress: a stacked bar (upgraded green, failed red, cancelled grey, working blue,
 * waiting light) with the share of final devices, and the counts per group under it (the
 * groups with none left out). The counts are the server's (`counts` of the batch row).
 * Test hooks: `testId` on the whole (`data-success`, `data-failed`, `data-active`,
 * `data-waiting`, `data-cancelled`, `data-total`, `data-done-pct`).
 */
import { UPGRADE_DEVICE_STATE_LABELS, type UpgradeBatchRow } from '@ess/contract';
import { Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { currentLang } from '@/shared/i18n';
import { batchProgress } from '../model';

const GROUPS = ['success', 'failed', 'cancelled', 'active', 'waiting'] as const;

export function BatchProgress({
  batch,
  testId,
  compact = false,
}: {
  batch: UpgradeBatchRow;
  testId: string;
  compact?: boolean;
}) {
  const { t } = useTranslation();
  const lang = currentLang();
  const p = batchProgress(batch.counts, batch.deviceCount);
  const label = (g: (typeof GROUPS)[number]) =>
    g === 'active' ? t('firmware.batch.active') : UPGRADE_DEVICE_STATE_LABELS[g][lang];
  const counts = GROUPS.filter((g) => p[g] > 0).map((g) => `${label(g)} ${p[g]}`);
  return (
    <div
      className={`fw-bprogress${compact ? ' fw-bprogress--compact' : ''}`}
      data-testid={testId}
      data-success={p.success}
      data-failed={p.failed}
      data-active={p.active}
      data-waiting={p.waiting}
      data-cancelled={p.cancelled}
      data-total={p.total}
      data-done-pct={p.donePct}
    >
      <div className="fw-bprogress__line">
        <Tooltip title={counts.join(' · ')}>
          <div
            className="fw-bprogress__bar"
            role="progressbar"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={p.donePct}
            aria-label={t('firmware.batch.progress')}
          >
            {GROUPS.map((g) =>
              p.shares[g] > 0 ? (
                <span
                  key={g}
                  className={`fw-bprogress__seg fw-bprogress__seg--${g}`}
                  style={{ width: `${p.shares[g]}%` }}
                />
              ) : null,
            )}
          </div>
        </Tooltip>
        <span className="fw-bprogress__pct">{p.donePct}%</span>
      </div>
      <div className="fw-bprogress__counts">
        {GROUPS.filter((g) => p[g] > 0).map((g) => (
          <span key={g} className="fw-bprogress__count">
            <span className={`fw-bprogress__dot fw-bprogress__seg--${g}`} aria-hidden="true" />
            {label(g)} {p[g]}
          </span>
        ))}
        <span className="fw-bprogress__count fw-muted">
          {t('firmware.batch.ofTotal', { count: p.total })}
        </span>
      </div>
    </div>
  );
}
