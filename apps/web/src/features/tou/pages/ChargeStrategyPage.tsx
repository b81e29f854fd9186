/**
 * Charge strategy `/chargestrategy` (view `strategy/chargestrategy/index`): for the
 * chosen ToU scheme, per daily plan the timeline with its tiers and the strategy table (charge /
 * discharge / idle, power kW, SOC floor and ceiling %; "apply standard strategy", price-aware for
 * the first assigned site's battery); the sites
 * using the scheme with the delivery to their EMS (assign, push state, push now); and the
 * expected daily arbitrage of a site with the strategy comparison (time order, price-aware,
 * optimal LP) and "use the optimal plan". Saving validates the whole scheme as on /timetariff.
 * Test hooks: `chargestrategy`, `strategy-empty` (and those of the components).
 */
import { Perm, type TouIssue, type TouPeriod } from '@ess/contract';
import { Empty, Skeleton } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { useDayjsLocale } from '@/shared/i18n/dayjs';
import { ArbitragePreview } from '../components/ArbitragePreview';
import { DailyPlansTab } from '../components/DailyPlansTab';
import { IssueSummary } from '../components/Issues';
import { SchemeBar } from '../components/SchemeBar';
import { SitesPanel } from '../components/SitesPanel';
import { indexIssues } from '../model';
import { useSchemeEditor } from '../useSchemeEditor';
import '../tou.css';

export default function ChargeStrategyPage() {
  const { t } = useTranslation();
  useDayjsLocale();
  const editable = usePermission(Perm.touSave);
  const editor = useSchemeEditor();
  const { draft, issues, update } = editor;
  const [dailyKey, setDailyKey] = useState<number | null>(null);
  const issueIndex = useMemo(() => indexIssues(issues), [issues]);

  const firstKey = draft?.document.dailyPlans[0]?.key ?? null;
  const hasDaily = draft?.document.dailyPlans.some((p) => p.key === dailyKey) ?? false;
  useEffect(() => {
    if (!hasDaily) setDailyKey(firstKey);
  }, [hasDaily, firstKey]);

  // The battery "apply standard strategy" sizes the price-aware strategy for: the first assigned
  // site with storage capacity and PCS rating (without one, the time-order rule applies).
  const sized = editor.detail?.sites.find((s) => s.capacityKwh > 0 && s.ratedPowerKw > 0);

  /** The optimal plan of the preview into daily plan `key` (saved and pushed with the usual flows). */
  const applyPlan = (key: number, periods: TouPeriod[]) => {
    const plan = draft?.document.dailyPlans.find((p) => p.key === key);
    update((d) => ({ ...d, dailyPlans: d.dailyPlans.map((p) => (p.key === key ? { ...p, periods } : p)) }));
    setDailyKey(key);
    if (plan) showSuccess(t('tou.optimal.applied', { name: plan.name }));
  };

  const go = (issue: TouIssue) => {
    if (issue.path[0] === 'dailyPlans' && typeof issue.path[1] === 'number' && draft) {
      const plan = draft.document.dailyPlans[issue.path[1]];
      if (plan) setDailyKey(plan.key);
    }
  };

  return (
    <div className="tou-page" data-testid="chargestrategy">
      <SchemeBar editor={editor} />
      {!draft ? (
        editor.schemesLoading || editor.detailLoading ? (
          <Skeleton active paragraph={{ rows: 8 }} />
        ) : (
          <Empty className="tou-empty" description={t('tou.scheme.none')} data-testid="strategy-empty" />
        )
      ) : (
        <>
          <div className="tou-editor">
            <IssueSummary doc={draft.document} issues={issues} onGo={go} />
            <DailyPlansTab
              doc={draft.document}
              update={update}
              issues={issues}
              issueIndex={issueIndex}
              mode="strategy"
              editable={editable}
              selectedKey={dailyKey}
              onSelectKey={setDailyKey}
              batterySite={sized}
            />
          </div>
          <div className="tou-strategy-grid">
            <SitesPanel scheme={draft.id !== null ? editor.detail : undefined} />
            <ArbitragePreview
              doc={draft.document}
              sites={editor.detail?.sites ?? []}
              dirty={editor.dirty}
              {...(editable ? { onApplyPlan: applyPlan } : {})}
            />
          </div>
        </>
      )}
    </div>
  );
}
