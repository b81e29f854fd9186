/**
 * Yearly settings: per calendar year, rows of date ranges (`MM-DD` to `MM-DD`, inclusive) each
 * mapped to a weekly cycle, with a quick "whole month" pick. Years before the current one must
 * be deleted (3076), ranges must not overlap (3087): shown at their fields.
 * Test hooks: `yearly-add`, `yearly-<i>`, `yearly-year-<i>`, `yearly-delete-<i>`,
 * `yearly-from-<i>-<j>`, `yearly-to-<i>-<j>`, `yearly-weekly-<i>-<j>`, `yearly-range-delete-<i>-<j>`,
 * `yearly-add-range-<i>`, `yearly-month-<i>`.
 */
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  TOU_LIMITS,
  type TouIssue,
  type TouSchemeDocument,
  type YearlyItem,
  type YearlyPlan,
} from '@ess/contract';
import { Button, Card, DatePicker, Empty, InputNumber, Popconfirm, Select } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { dayjs } from '@/shared/i18n/dayjs';
import { type IssueIndex, issuesAt, newYearlyPlan, wholeMonth } from '../model';
import { FieldIssues } from './Issues';
import { ItemDeleteCell, PlanRefCell } from './ItemCells';

interface Props {
  doc: TouSchemeDocument;
  update: (change: (doc: TouSchemeDocument) => TouSchemeDocument) => void;
  issues: readonly TouIssue[];
  issueIndex: IssueIndex;
  editable: boolean;
}

const MONTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

export function YearlyTab({ doc, update, issueIndex, editable }: Props) {
  const { t } = useTranslation();
  const weeklyOptions = doc.weeklyPlans.map((w) => ({ value: w.key, label: w.name }));
  const setPlan = (index: number, change: (y: YearlyPlan) => YearlyPlan) =>
    update((d) => ({ ...d, yearlyPlans: d.yearlyPlans.map((y, i) => (i === index ? change(y) : y)) }));
  const setItem = (index: number, j: number, patch: Partial<YearlyItem>) =>
    setPlan(index, (y) => ({
      ...y,
      items: y.items.map((item, k) => (k === j ? { ...item, ...patch } : item)),
    }));

  const add = () =>
    update((d) => {
      const years = d.yearlyPlans.map((y) => y.year);
      const year = Math.max(new Date().getFullYear(), ...years.map((y) => y + 1));
      return {
        ...d,
        yearlyPlans: [...d.yearlyPlans, newYearlyPlan(d.yearlyPlans, year, d.weeklyPlans[0]!.key)],
      };
    });

  const datePicker = (plan: YearlyPlan, index: number, j: number, field: 'from' | 'to') => {
    const at = issuesAt(issueIndex, ['yearlyPlans', index, 'items', j, field]);
    const value = dayjs(`${plan.year}-${plan.items[j]![field]}`);
    return (
      <div className="tou-yearly__cell">
        <DatePicker
          value={value.isValid() ? value : null}
          format="MM-DD"
          allowClear={false}
          disabled={!editable}
          status={at.length ? 'error' : undefined}
          defaultPickerValue={dayjs(`${plan.year}-01-01`)}
          disabledDate={(d: Dayjs) => d.year() !== plan.year}
          onChange={(d: Dayjs | null) => d && setItem(index, j, { [field]: d.format('MM-DD') })}
          aria-label={t(`tou.yearly.${field}`)}
          data-testid={`yearly-${field}-${index}-${j}`}
        />
        <FieldIssues issues={at} />
      </div>
    );
  };

  if (doc.weeklyPlans.length === 0 && doc.yearlyPlans.length === 0) {
    return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tou.yearly.needWeekly')} />;
  }

  return (
    <div className="tou-tab">
      <FieldIssues issues={issuesAt(issueIndex, ['yearlyPlans'])} />
      {doc.yearlyPlans.length === 0 && (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tou.yearly.empty')} />
      )}
      {doc.yearlyPlans.map((plan, index) => (
        <Card
          key={plan.key}
          size="small"
          className="tou-card"
          data-testid={`yearly-${index}`}
          title={
            <div className="tou-card__title">
              <span>{t('tou.yearly.year')}</span>
              <InputNumber
                value={plan.year}
                min={2000}
                max={2100}
                precision={0}
                disabled={!editable}
                status={issuesAt(issueIndex, ['yearlyPlans', index, 'year']).length ? 'error' : undefined}
                onChange={(v) => typeof v === 'number' && setPlan(index, (y) => ({ ...y, year: v }))}
                aria-label={t('tou.yearly.year')}
                data-testid={`yearly-year-${index}`}
              />
              <FieldIssues
                issues={[
                  ...issuesAt(issueIndex, ['yearlyPlans', index, 'year']),
                  ...issuesAt(issueIndex, ['yearlyPlans', index, 'key']),
                ]}
              />
            </div>
          }
          extra={
            editable && (
              <Popconfirm
                title={t('tou.yearly.delete')}
                description={t('tou.yearly.deleteConfirm', { year: plan.year })}
                okText={t('common.delete')}
                okButtonProps={{ danger: true }}
                cancelText={t('common.cancel')}
                onConfirm={() =>
                  update((d) => ({ ...d, yearlyPlans: d.yearlyPlans.filter((y) => y.key !== plan.key) }))
                }
              >
                <Button
                  type="text"
                  danger
                  icon={<DeleteOutlined />}
                  aria-label={t('tou.yearly.delete')}
                  data-testid={`yearly-delete-${index}`}
                />
              </Popconfirm>
            )
          }
        >
          <div className="tou-yearly__rows">
            <div className="tou-yearly__row tou-yearly__row--head" aria-hidden="true">
              <span>{t('tou.yearly.from')}</span>
              <span>{t('tou.yearly.to')}</span>
              <span>{t('tou.yearly.weekly')}</span>
              <span />
            </div>
            {plan.items.map((item, j) => {
              const weeklyAt = issuesAt(issueIndex, ['yearlyPlans', index, 'items', j, 'weeklyPlanKey']);
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: items are positional
                <div className="tou-yearly__row" key={j}>
                  {datePicker(plan, index, j, 'from')}
                  {datePicker(plan, index, j, 'to')}
                  <PlanRefCell
                    value={item.weeklyPlanKey}
                    options={weeklyOptions}
                    editable={editable}
                    issues={weeklyAt}
                    onChange={(key) => setItem(index, j, { weeklyPlanKey: key })}
                    label={t('tou.yearly.weekly')}
                    testId={`yearly-weekly-${index}-${j}`}
                  />
                  <ItemDeleteCell
                    editable={editable}
                    label={t('tou.yearly.deleteRange')}
                    onDelete={() =>
                      setPlan(index, (y) => ({ ...y, items: y.items.filter((_, k) => k !== j) }))
                    }
                    testId={`yearly-range-delete-${index}-${j}`}
                  />
                </div>
              );
            })}
            <FieldIssues issues={issuesAt(issueIndex, ['yearlyPlans', index, 'items'])} />
          </div>
          {editable && weeklyOptions.length > 0 && (
            <div className="tou-yearly__tools">
              <Button
                size="small"
                icon={<PlusOutlined />}
                onClick={() =>
                  setPlan(index, (y) => ({
                    ...y,
                    items: [
                      ...y.items,
                      { ...wholeMonth(y.year, 12), weeklyPlanKey: weeklyOptions[0]!.value },
                    ],
                  }))
                }
                data-testid={`yearly-add-range-${index}`}
              >
                {t('tou.yearly.addRange')}
              </Button>
              <Select<number>
                size="small"
                value={null as unknown as number}
                placeholder={t('tou.yearly.wholeMonth')}
                options={MONTHS.map((m) => ({ value: m, label: t('tou.yearly.month', { m }) }))}
                onChange={(m) =>
                  setPlan(index, (y) => ({
                    ...y,
                    items: [...y.items, { ...wholeMonth(y.year, m), weeklyPlanKey: weeklyOptions[0]!.value }],
                  }))
                }
                className="tou-month-pick"
                aria-label={t('tou.yearly.wholeMonth')}
                data-testid={`yearly-month-${index}`}
              />
            </div>
          )}
        </Card>
      ))}
      {editable && doc.weeklyPlans.length > 0 && doc.yearlyPlans.length < TOU_LIMITS.yearlyPlans && (
        <Button icon={<PlusOutlined />} onClick={add} className="tou-add" data-testid="yearly-add">
          {t('tou.yearly.add')}
        </Button>
      )}
      {doc.weeklyPlans.length === 0 && <p className="tou-muted">{t('tou.yearly.needWeekly')}</p>}
    </div>
  );
}
