/**
 * Time tariffs `/timetariff` (view `strategy/timetariff/index`): choose or create a
 * ToU scheme, then edit it: default daily plan and weekly cycle, and the tabs daily plans (24-hour
 * timeline and period table), weekly cycles, yearly settings, exceptions, and the calendar of
 * which plan runs each day. Every rule issue is shown at its field and in the summary; only a
 * valid scheme is saved (tou:scheme:save).
 * Test hooks: `timetariff`, `tou-empty`, `default-daily`, `default-weekly`, `tou-tabs`
 * (and those of the components).
 */
import { Perm, type TouIssue } from '@ess/contract';
import { Badge, Empty, Select, Skeleton, Tabs } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { useDayjsLocale } from '@/shared/i18n/dayjs';
import { BillingTab } from '../components/BillingTab';
import { CalendarTab } from '../components/CalendarTab';
import { DailyPlansTab } from '../components/DailyPlansTab';
import { ExceptionsTab } from '../components/ExceptionsTab';
import { FieldIssues, IssueSummary } from '../components/Issues';
import { SchemeBar } from '../components/SchemeBar';
import { WeeklyTab } from '../components/WeeklyTab';
import { YearlyTab } from '../components/YearlyTab';
import { indexIssues, issuesAt } from '../model';
import { useSchemeEditor } from '../useSchemeEditor';
import '../tou.css';

type TabKey = 'daily' | 'weekly' | 'yearly' | 'exceptions' | 'calendar' | 'billing';

const TAB_OF_KIND: Record<string, TabKey> = {
  dailyPlans: 'daily',
  weeklyPlans: 'weekly',
  yearlyPlans: 'yearly',
  exceptionPlans: 'exceptions',
};

export default function TimeTariffPage() {
  const { t } = useTranslation();
  useDayjsLocale();
  const editable = usePermission(Perm.touSave);
  const editor = useSchemeEditor();
  const { draft, issues, update } = editor;
  const [tab, setTab] = useState<TabKey>('daily');
  const [dailyKey, setDailyKey] = useState<number | null>(null);
  const issueIndex = useMemo(() => indexIssues(issues), [issues]);

  // A new scheme starts on its first daily plan.
  const firstKey = draft?.document.dailyPlans[0]?.key ?? null;
  const hasDaily = draft?.document.dailyPlans.some((p) => p.key === dailyKey) ?? false;
  useEffect(() => {
    if (!hasDaily) setDailyKey(firstKey);
  }, [hasDaily, firstKey]);

  const go = (issue: TouIssue) => {
    const kind = String(issue.path[0] ?? '');
    const target = TAB_OF_KIND[kind];
    if (target) setTab(target);
    if (kind === 'dailyPlans' && typeof issue.path[1] === 'number' && draft) {
      const plan = draft.document.dailyPlans[issue.path[1]];
      if (plan) setDailyKey(plan.key);
    }
  };

  const countOf = (kind: string) => issues.filter((i) => i.path[0] === kind).length;
  const tabLabel = (key: TabKey, kind?: string) => {
    const count = kind ? countOf(kind) : 0;
    return (
      <span className="tou-tab-label">
        {t(`tou.tabs.${key}`)}
        {count > 0 && <Badge count={count} size="small" />}
      </span>
    );
  };

  /** What every plan tab gets (only read while a draft is open). */
  const tabProps = draft && { doc: draft.document, update, issues, issueIndex, editable };

  return (
    <div className="tou-page" data-testid="timetariff">
      <SchemeBar editor={editor} />
      {!draft ? (
        editor.schemesLoading || editor.detailLoading ? (
          <Skeleton active paragraph={{ rows: 8 }} />
        ) : (
          <Empty className="tou-empty" description={t('tou.scheme.none')} data-testid="tou-empty" />
        )
      ) : (
        <div className="tou-editor">
          <IssueSummary doc={draft.document} issues={issues} onGo={go} />
          <div className="tou-defaults">
            <div className="tou-inline-field">
              <span>{t('tou.defaults.daily')}</span>
              <Select<number>
                value={draft.document.defaultDailyPlanKey}
                disabled={!editable}
                options={draft.document.dailyPlans.map((p) => ({ value: p.key, label: p.name }))}
                onChange={(key) => update((d) => ({ ...d, defaultDailyPlanKey: key }))}
                className="tou-defaults__select"
                data-testid="default-daily"
              />
            </div>
            <FieldIssues issues={issuesAt(issueIndex, ['defaultDailyPlanKey'])} />
            <div className="tou-inline-field">
              <span>{t('tou.defaults.weekly')}</span>
              <Select<number>
                value={draft.document.defaultWeeklyPlanKey ?? undefined}
                allowClear
                disabled={!editable}
                placeholder={t('tou.defaults.weeklyNone')}
                options={draft.document.weeklyPlans.map((w) => ({ value: w.key, label: w.name }))}
                onChange={(key) => update((d) => ({ ...d, defaultWeeklyPlanKey: key ?? null }))}
                className="tou-defaults__select"
                data-testid="default-weekly"
              />
            </div>
            <FieldIssues issues={issuesAt(issueIndex, ['defaultWeeklyPlanKey'])} />
            <span className="tou-muted">{t('tou.defaults.hint')}</span>
          </div>
          <Tabs
            activeKey={tab}
            onChange={(key) => setTab(key as TabKey)}
            data-testid="tou-tabs"
            items={[
              {
                key: 'daily',
                label: tabLabel('daily', 'dailyPlans'),
                children: (
                  <DailyPlansTab
                    {...tabProps!}
                    mode="tariff"
                    selectedKey={dailyKey}
                    onSelectKey={setDailyKey}
                  />
                ),
              },
              {
                key: 'weekly',
                label: tabLabel('weekly', 'weeklyPlans'),
                children: <WeeklyTab {...tabProps!} />,
              },
              {
                key: 'yearly',
                label: tabLabel('yearly', 'yearlyPlans'),
                children: <YearlyTab {...tabProps!} />,
              },
              {
                key: 'exceptions',
                label: tabLabel('exceptions', 'exceptionPlans'),
                children: <ExceptionsTab {...tabProps!} />,
              },
              {
                key: 'calendar',
                label: tabLabel('calendar'),
                children: <CalendarTab doc={draft.document} />,
              },
              {
                key: 'billing',
                label: tabLabel('billing'),
                children: <BillingTab editor={editor} editable={editable} />,
              },
            ]}
          />
        </div>
      )}
    </div>
  );
}
