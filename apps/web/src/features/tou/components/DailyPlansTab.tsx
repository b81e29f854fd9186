/**
 * Daily plans of a scheme: the plan list (add, delete; a plan that is used or the last one
 * cannot be deleted: `deletionIssue`'s message is shown instead) and the chosen plan's editor:
 * name, the 24-hour timeline (drag boundaries, 15-minute steps), split / delete period, and the
 * period table. Mode `strategy` (/chargestrategy) edits the strategy only and offers the
 * standard strategy (charge in off-peak, discharge in peak and sharp, idle in shoulder).
 * Test hooks: `daily-plan-list`, `daily-plan-<key>`, `daily-plan-add`, `daily-plan-delete`,
 * `daily-plan-name`, `period-split`, `period-delete`, `apply-standard`, `daily-plan-issues`.
 */
import { DeleteOutlined, PlusOutlined, ScissorOutlined, ThunderboltOutlined } from '@ant-design/icons';
import {
  deletionIssue,
  TEXT_LIMITS,
  type TouAssignedSite,
  type TouIssue,
  type TouPeriod,
  type TouSchemeDocument,
} from '@ess/contract';
import { Badge, Button, Input, Popconfirm, Space, Tooltip } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '@/shared/feedback';
import { formatQuantity } from '@/shared/format';
import {
  applyStandardStrategy,
  type IssueIndex,
  issuesAt,
  issuesUnder,
  moveBoundary,
  newDailyPlan,
  removePeriod,
  splitPeriod,
} from '../model';
import { FieldIssues, issueText } from './Issues';
import { PeriodTable } from './PeriodTable';
import { TierLegend, Timeline } from './Timeline';

interface Props {
  doc: TouSchemeDocument;
  update: (change: (doc: TouSchemeDocument) => TouSchemeDocument) => void;
  issues: readonly TouIssue[];
  issueIndex: IssueIndex;
  mode: 'tariff' | 'strategy';
  editable: boolean;
  selectedKey: number | null;
  onSelectKey: (key: number) => void;
  /**
   * Strategy mode: the site whose battery "apply standard strategy" sizes the price-aware strategy
   * for (contract tou/strategy.ts); without one, the time-order rule (which needs no battery).
   */
  batterySite?: TouAssignedSite | undefined;
}

export function DailyPlansTab({
  doc,
  update,
  issues,
  issueIndex,
  mode,
  editable,
  selectedKey,
  onSelectKey,
  batterySite,
}: Props) {
  const { t } = useTranslation();
  const planIndex = Math.max(
    0,
    doc.dailyPlans.findIndex((p) => p.key === selectedKey),
  );
  const plan = doc.dailyPlans[planIndex];
  const [selectedPeriod, setSelectedPeriod] = useState<number | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new plan starts without a selection
  useEffect(() => setSelectedPeriod(null), [plan?.key]);

  const planPath = useMemo(() => ['dailyPlans', planIndex] as const, [planIndex]);
  const faulty = useMemo(
    () =>
      new Set(
        issuesUnder(issues, [...planPath, 'periods'])
          .map((issue) => issue.path[3])
          .filter((x): x is number => typeof x === 'number'),
      ),
    [issues, planPath],
  );

  if (!plan) return null;

  const setPeriods = (change: (periods: TouPeriod[]) => TouPeriod[]) =>
    update((d) => ({
      ...d,
      dailyPlans: d.dailyPlans.map((p, i) => (i === planIndex ? { ...p, periods: change(p.periods) } : p)),
    }));

  const addPlan = () => {
    const created = newDailyPlan(
      doc.dailyPlans,
      t('tou.daily.defaultName', { n: doc.dailyPlans.length + 1 }),
    );
    update((d) => ({ ...d, dailyPlans: [...d.dailyPlans, created] }));
    onSelectKey(created.key);
  };

  const blocked = deletionIssue(doc, 'dailyPlans', plan.key);
  const deletePlan = () => {
    update((d) => ({ ...d, dailyPlans: d.dailyPlans.filter((p) => p.key !== plan.key) }));
    const next = doc.dailyPlans.find((p) => p.key !== plan.key);
    if (next) onSelectKey(next.key);
  };

  const target = selectedPeriod ?? plan.periods.length - 1;
  const split = () => {
    const next = splitPeriod(plan.periods, target);
    if (!next) {
      showError(t('tou.daily.splitTooShort'));
      return;
    }
    setPeriods(() => next);
    setSelectedPeriod(target + 1);
  };
  const deletePeriod = () => {
    if (selectedPeriod === null) {
      showError(t('tou.daily.selectPeriod'));
      return;
    }
    if (plan.periods.length <= 1) {
      showError(t('tou.daily.keepOnePeriod'));
      return;
    }
    setPeriods((periods) => removePeriod(periods, selectedPeriod));
    setSelectedPeriod(null);
  };

  const planIssues = [
    ...issuesAt(issueIndex, [...planPath, 'periods']),
    ...issuesAt(issueIndex, [...planPath, 'key']),
  ];

  return (
    <div className="tou-daily">
      <nav className="tou-plan-list" aria-label={t('tou.daily.plans')}>
        <ul data-testid="daily-plan-list">
          {doc.dailyPlans.map((p, i) => {
            const count = issuesUnder(issues, ['dailyPlans', i]).length;
            return (
              <li key={p.key}>
                <button
                  type="button"
                  className={p.key === plan.key ? 'tou-plan tou-plan--active' : 'tou-plan'}
                  aria-pressed={p.key === plan.key}
                  onClick={() => onSelectKey(p.key)}
                  data-testid={`daily-plan-${p.key}`}
                >
                  <span className="tou-plan__name">{p.name}</span>
                  <span className="tou-plan__meta">
                    {t('tou.daily.periodCount', { count: p.periods.length })}
                    {count > 0 && <Badge count={count} size="small" />}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
        {mode === 'tariff' && editable && (
          <Button block icon={<PlusOutlined />} onClick={addPlan} data-testid="daily-plan-add">
            {t('tou.daily.add')}
          </Button>
        )}
      </nav>

      <section className="tou-daily__editor">
        {mode === 'tariff' ? (
          <div className="tou-daily__head">
            <div className="tou-inline-field">
              <span>{t('tou.daily.name')}</span>
              <Input
                value={plan.name}
                maxLength={TEXT_LIMITS.touPlanName}
                disabled={!editable}
                status={issuesAt(issueIndex, [...planPath, 'name']).length ? 'error' : undefined}
                onChange={(e) =>
                  update((d) => ({
                    ...d,
                    dailyPlans: d.dailyPlans.map((p, i) =>
                      i === planIndex ? { ...p, name: e.target.value } : p,
                    ),
                  }))
                }
                data-testid="daily-plan-name"
              />
            </div>
            {editable &&
              (blocked ? (
                <Button
                  danger
                  icon={<DeleteOutlined />}
                  onClick={() => showError(issueText(blocked))}
                  data-testid="daily-plan-delete"
                >
                  {t('tou.daily.delete')}
                </Button>
              ) : (
                <Popconfirm
                  title={t('tou.daily.delete')}
                  description={t('tou.daily.deleteConfirm', { name: plan.name })}
                  okText={t('common.delete')}
                  okButtonProps={{ danger: true }}
                  cancelText={t('common.cancel')}
                  onConfirm={deletePlan}
                >
                  <Button danger icon={<DeleteOutlined />} data-testid="daily-plan-delete">
                    {t('tou.daily.delete')}
                  </Button>
                </Popconfirm>
              ))}
          </div>
        ) : (
          <div className="tou-daily__head">
            <h3 className="tou-daily__title">{plan.name}</h3>
            {editable && (
              <Tooltip
                title={
                  batterySite
                    ? t('tou.strategy.priceAwareHint', {
                        site: batterySite.siteName,
                        capacity: formatQuantity(batterySite.capacityKwh, 'kWh'),
                        power: formatQuantity(batterySite.ratedPowerKw, 'kW'),
                      })
                    : t('tou.strategy.applyStandardHint')
                }
              >
                <Button
                  icon={<ThunderboltOutlined />}
                  onClick={() => {
                    setPeriods((periods) => applyStandardStrategy(periods, batterySite));
                    showSuccess(t('tou.strategy.standardApplied', { name: plan.name }));
                  }}
                  data-testid="apply-standard"
                >
                  {t('tou.strategy.applyStandard')}
                </Button>
              </Tooltip>
            )}
          </div>
        )}

        <Timeline
          periods={plan.periods}
          selected={selectedPeriod}
          onSelect={setSelectedPeriod}
          onMoveBoundary={
            mode === 'tariff' && editable
              ? (index, minutes) => setPeriods((periods) => moveBoundary(periods, index, minutes))
              : undefined
          }
          faulty={faulty}
        />
        <TierLegend />
        {mode === 'tariff' && <p className="tou-muted tou-hint">{t('tou.timeline.dragHint')}</p>}
        <FieldIssues issues={planIssues} testId="daily-plan-issues" />

        {mode === 'tariff' && editable && (
          <Space wrap className="tou-daily__tools">
            <Tooltip title={t('tou.daily.splitHint')}>
              <Button icon={<ScissorOutlined />} onClick={split} data-testid="period-split">
                {t('tou.daily.split')}
              </Button>
            </Tooltip>
            <Tooltip title={t('tou.daily.deletePeriodHint')}>
              <Button icon={<DeleteOutlined />} onClick={deletePeriod} data-testid="period-delete">
                {t('tou.daily.deletePeriod')}
              </Button>
            </Tooltip>
          </Space>
        )}

        <PeriodTable
          periods={plan.periods}
          planPath={planPath}
          issues={issueIndex}
          mode={mode}
          editable={editable}
          selected={selectedPeriod}
          onSelect={setSelectedPeriod}
          onChange={(index, patch) =>
            setPeriods((periods) => periods.map((p, i) => (i === index ? { ...p, ...patch } : p)))
          }
        />
        {mode === 'tariff' && <p className="tou-muted tou-hint">{t('tou.period.timeHint')}</p>}
      </section>
    </div>
  );
}
