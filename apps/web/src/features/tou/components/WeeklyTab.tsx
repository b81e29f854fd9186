/**
 * Weekly cycles: a grid of cycle name × Monday … Sunday, each cell the daily plan of that
 * weekday. A cycle used by a yearly setting or as the default cannot be deleted
 * (`deletionIssue`'s message is shown instead).
 * Test hooks: `weekly-table`, `weekly-add`, `weekly-name-<i>`, `weekly-day-<i>-<d>`,
 * `weekly-delete-<i>`.
 */
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  deletionIssue,
  TEXT_LIMITS,
  TOU_LIMITS,
  type TouIssue,
  type TouSchemeDocument,
  type WeeklyPlan,
} from '@ess/contract';
import { Button, Empty, Input, Popconfirm, Select, Table, type TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import { showError } from '@/shared/feedback';
import { type IssueIndex, issuesAt, newWeeklyPlan } from '../model';
import { FieldIssues, issueText } from './Issues';

/** Monday first (ISO 8601), as `WeeklyPlan.days`. */
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

interface Props {
  doc: TouSchemeDocument;
  update: (change: (doc: TouSchemeDocument) => TouSchemeDocument) => void;
  issues: readonly TouIssue[];
  issueIndex: IssueIndex;
  editable: boolean;
}

type Row = WeeklyPlan & { index: number };

export function WeeklyTab({ doc, update, issueIndex, editable }: Props) {
  const { t } = useTranslation();
  const dailyOptions = doc.dailyPlans.map((p) => ({ value: p.key, label: p.name }));
  const setPlan = (index: number, patch: Partial<WeeklyPlan>) =>
    update((d) => ({
      ...d,
      weeklyPlans: d.weeklyPlans.map((w, i) => (i === index ? { ...w, ...patch } : w)),
    }));

  const add = () =>
    update((d) => ({
      ...d,
      weeklyPlans: [
        ...d.weeklyPlans,
        newWeeklyPlan(
          d.weeklyPlans,
          t('tou.weekly.defaultName', { n: d.weeklyPlans.length + 1 }),
          d.defaultDailyPlanKey,
        ),
      ],
    }));

  const columns: TableColumnsType<Row> = [
    {
      key: 'name',
      title: t('tou.weekly.name'),
      width: 180,
      fixed: 'left',
      render: (_, w) => (
        <>
          <Input
            value={w.name}
            maxLength={TEXT_LIMITS.touPlanName}
            disabled={!editable}
            onChange={(e) => setPlan(w.index, { name: e.target.value })}
            aria-label={t('tou.weekly.name')}
            data-testid={`weekly-name-${w.index}`}
          />
          <FieldIssues issues={issuesAt(issueIndex, ['weeklyPlans', w.index, 'key'])} />
        </>
      ),
    },
    ...WEEKDAYS.map((name, d) => ({
      key: name,
      title: t(`tou.weekdays.${name}`),
      width: 150,
      render: (_: unknown, w: Row) => {
        const at = issuesAt(issueIndex, ['weeklyPlans', w.index, 'days', d]);
        return (
          <>
            <Select<number>
              value={doc.dailyPlans.some((p) => p.key === w.days[d]) ? w.days[d] : undefined}
              options={dailyOptions}
              disabled={!editable}
              status={at.length ? 'error' : undefined}
              onChange={(key) => setPlan(w.index, { days: w.days.map((x, i) => (i === d ? key : x)) })}
              className="tou-day-select"
              popupMatchSelectWidth={false}
              aria-label={t(`tou.weekdays.${name}`)}
              data-testid={`weekly-day-${w.index}-${d}`}
            />
            <FieldIssues issues={at} />
          </>
        );
      },
    })),
    ...(editable
      ? [
          {
            key: 'delete',
            width: 48,
            render: (_: unknown, w: Row) => {
              const blocked = deletionIssue(doc, 'weeklyPlans', w.key);
              const button = (
                <Button
                  type="text"
                  danger
                  size="small"
                  icon={<DeleteOutlined />}
                  aria-label={`${t('tou.weekly.delete')} ${w.name}`}
                  onClick={blocked ? () => showError(issueText(blocked)) : undefined}
                  data-testid={`weekly-delete-${w.index}`}
                />
              );
              return blocked ? (
                button
              ) : (
                <Popconfirm
                  title={t('tou.weekly.delete')}
                  description={t('tou.weekly.deleteConfirm', { name: w.name })}
                  okText={t('common.delete')}
                  okButtonProps={{ danger: true }}
                  cancelText={t('common.cancel')}
                  onConfirm={() =>
                    update((d) => ({ ...d, weeklyPlans: d.weeklyPlans.filter((x) => x.key !== w.key) }))
                  }
                >
                  {button}
                </Popconfirm>
              );
            },
          },
        ]
      : []),
  ];

  return (
    <div className="tou-tab">
      <FieldIssues issues={issuesAt(issueIndex, ['weeklyPlans'])} />
      {doc.weeklyPlans.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tou.weekly.empty')} />
      ) : (
        <Table<Row>
          size="small"
          columns={columns}
          dataSource={doc.weeklyPlans.map((w, index) => ({ ...w, index }))}
          rowKey="key"
          pagination={false}
          scroll={{ x: 'max-content' }}
          data-testid="weekly-table"
        />
      )}
      {editable && doc.weeklyPlans.length < TOU_LIMITS.weeklyPlans && (
        <Button icon={<PlusOutlined />} onClick={add} className="tou-add" data-testid="weekly-add">
          {t('tou.weekly.add')}
        </Button>
      )}
    </div>
  );
}
