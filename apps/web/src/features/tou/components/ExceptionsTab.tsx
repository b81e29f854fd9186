/**
 * Exception plans: named lists of single dates (holidays) each mapped to a daily plan; they
 * come before every other plan. Dates must not repeat across the scheme (3075).
 * Test hooks: `exception-add`, `exception-<i>`, `exception-name-<i>`, `exception-delete-<i>`,
 * `exception-date-<i>-<j>`, `exception-daily-<i>-<j>`, `exception-date-delete-<i>-<j>`,
 * `exception-add-date-<i>`.
 */
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  type ExceptionItem,
  type ExceptionPlan,
  TEXT_LIMITS,
  TOU_LIMITS,
  type TouIssue,
  type TouSchemeDocument,
} from '@ess/contract';
import { Button, Card, DatePicker, Empty, Input, Popconfirm } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { dayjs } from '@/shared/i18n/dayjs';
import { type IssueIndex, issuesAt, newExceptionPlan, todayIso } from '../model';
import { FieldIssues } from './Issues';
import { ItemDeleteCell, PlanRefCell } from './ItemCells';

interface Props {
  doc: TouSchemeDocument;
  update: (change: (doc: TouSchemeDocument) => TouSchemeDocument) => void;
  issues: readonly TouIssue[];
  issueIndex: IssueIndex;
  editable: boolean;
}

/** The day after the last date of `items` (today for none), for a new row. */
function nextDate(items: readonly ExceptionItem[]): string {
  const last = items
    .map((i) => i.date)
    .sort()
    .at(-1);
  return last ? dayjs(last).add(1, 'day').format('YYYY-MM-DD') : todayIso();
}

export function ExceptionsTab({ doc, update, issueIndex, editable }: Props) {
  const { t } = useTranslation();
  const dailyOptions = doc.dailyPlans.map((p) => ({ value: p.key, label: p.name }));
  const setPlan = (index: number, change: (e: ExceptionPlan) => ExceptionPlan) =>
    update((d) => ({ ...d, exceptionPlans: d.exceptionPlans.map((e, i) => (i === index ? change(e) : e)) }));
  const setItem = (index: number, j: number, patch: Partial<ExceptionItem>) =>
    setPlan(index, (e) => ({
      ...e,
      items: e.items.map((item, k) => (k === j ? { ...item, ...patch } : item)),
    }));

  const add = () =>
    update((d) => ({
      ...d,
      exceptionPlans: [
        ...d.exceptionPlans,
        newExceptionPlan(
          d.exceptionPlans,
          t('tou.exceptions.defaultName', { n: d.exceptionPlans.length + 1 }),
          nextDate(d.exceptionPlans.flatMap((e) => e.items)),
          d.defaultDailyPlanKey,
        ),
      ],
    }));

  return (
    <div className="tou-tab">
      <FieldIssues issues={issuesAt(issueIndex, ['exceptionPlans'])} />
      {doc.exceptionPlans.length === 0 && (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tou.exceptions.empty')} />
      )}
      {doc.exceptionPlans.map((plan, index) => (
        <Card
          key={plan.key}
          size="small"
          className="tou-card"
          data-testid={`exception-${index}`}
          title={
            <div className="tou-card__title">
              <Input
                value={plan.name}
                maxLength={TEXT_LIMITS.touPlanName}
                disabled={!editable}
                onChange={(e) => setPlan(index, (x) => ({ ...x, name: e.target.value }))}
                aria-label={t('tou.exceptions.name')}
                data-testid={`exception-name-${index}`}
              />
              <FieldIssues issues={issuesAt(issueIndex, ['exceptionPlans', index, 'key'])} />
            </div>
          }
          extra={
            editable && (
              <Popconfirm
                title={t('tou.exceptions.delete')}
                description={t('tou.exceptions.deleteConfirm', { name: plan.name })}
                okText={t('common.delete')}
                okButtonProps={{ danger: true }}
                cancelText={t('common.cancel')}
                onConfirm={() =>
                  update((d) => ({
                    ...d,
                    exceptionPlans: d.exceptionPlans.filter((e) => e.key !== plan.key),
                  }))
                }
              >
                <Button
                  type="text"
                  danger
                  icon={<DeleteOutlined />}
                  aria-label={t('tou.exceptions.delete')}
                  data-testid={`exception-delete-${index}`}
                />
              </Popconfirm>
            )
          }
        >
          <div className="tou-yearly__rows">
            <div className="tou-exception__row tou-yearly__row--head" aria-hidden="true">
              <span>{t('tou.exceptions.date')}</span>
              <span>{t('tou.exceptions.daily')}</span>
              <span />
            </div>
            {plan.items.map((item, j) => {
              const dateAt = issuesAt(issueIndex, ['exceptionPlans', index, 'items', j, 'date']);
              const dailyAt = issuesAt(issueIndex, ['exceptionPlans', index, 'items', j, 'dailyPlanKey']);
              const value = dayjs(item.date);
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: items are positional
                <div className="tou-exception__row" key={j}>
                  <div className="tou-yearly__cell">
                    <DatePicker
                      value={value.isValid() ? value : null}
                      format="YYYY-MM-DD"
                      allowClear={false}
                      disabled={!editable}
                      status={dateAt.length ? 'error' : undefined}
                      onChange={(d: Dayjs | null) => d && setItem(index, j, { date: d.format('YYYY-MM-DD') })}
                      aria-label={t('tou.exceptions.date')}
                      data-testid={`exception-date-${index}-${j}`}
                    />
                    <FieldIssues issues={dateAt} />
                  </div>
                  <PlanRefCell
                    value={item.dailyPlanKey}
                    options={dailyOptions}
                    editable={editable}
                    issues={dailyAt}
                    onChange={(key) => setItem(index, j, { dailyPlanKey: key })}
                    label={t('tou.exceptions.daily')}
                    testId={`exception-daily-${index}-${j}`}
                  />
                  <ItemDeleteCell
                    editable={editable}
                    label={t('tou.exceptions.deleteDate')}
                    onDelete={() =>
                      setPlan(index, (e) => ({ ...e, items: e.items.filter((_, k) => k !== j) }))
                    }
                    testId={`exception-date-delete-${index}-${j}`}
                  />
                </div>
              );
            })}
            <FieldIssues issues={issuesAt(issueIndex, ['exceptionPlans', index, 'items'])} />
          </div>
          {editable && (
            <Button
              size="small"
              icon={<PlusOutlined />}
              className="tou-yearly__tools"
              onClick={() =>
                setPlan(index, (e) => ({
                  ...e,
                  items: [
                    ...e.items,
                    {
                      date: nextDate(doc.exceptionPlans.flatMap((x) => x.items)),
                      dailyPlanKey: doc.defaultDailyPlanKey,
                    },
                  ],
                }))
              }
              data-testid={`exception-add-date-${index}`}
            >
              {t('tou.exceptions.addDate')}
            </Button>
          )}
        </Card>
      ))}
      {editable && doc.exceptionPlans.length < TOU_LIMITS.exceptionPlans && (
        <Button icon={<PlusOutlined />} onClick={add} className="tou-add" data-testid="exception-add">
          {t('tou.exceptions.add')}
        </Button>
      )}
    </div>
  );
}
