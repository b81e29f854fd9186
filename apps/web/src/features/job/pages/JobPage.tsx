/**
 * Scheduled tasks `/system/job` (issue 18 item 1; view `system/job/index`, platform-only menu,
 * monitor:job:list; spec §3 scheduled tasks, §4 states normal / pause with recover and manual
 * trigger, §8 codes 2000–2007). Filters: name keyword, group, status. Per task: name (a system
 * task marked), group, kind (its label in the UI language), expression with its time zone,
 * status, next run (the operator's zone; the task's zone named beside it when it differs), last
 * run (state, start, duration). Actions, each shown by its permission: edit (monitor:job:save),
 * pause / recover (monitor:job:changeStatus), run once now (monitor:job:trigger; asks first,
 * then opens the run log), run log, delete (monitor:job:delete; asks first; a system task's is
 * disabled with the reason). Refusals are the server's text in the UI language. The list asks
 * again every few seconds while a task's last run is going on. On a phone each task is one
 * column with its actions below.
 * Test hooks: `job-page`, `job-search`, `job-filter-group`, `job-filter-status`, `job-refresh`,
 * `job-add`, `job-table` (rows `data-row-key` = task id), `job-status-<id>` (`data-status`),
 * `job-next-<id>`, `job-last-<id>` (`data-state`), `job-edit-<id>`, `job-pause-<id>`,
 * `job-pause-ok-<id>`, `job-recover-<id>`, `job-recover-ok-<id>`, `job-trigger-<id>`,
 * `job-trigger-ok-<id>`, `job-log-<id>`, `job-delete-<id>`, `job-delete-ok-<id>`.
 */
import {
  EditOutlined,
  FileTextOutlined,
  PauseCircleOutlined,
  PlayCircleOutlined,
  ThunderboltOutlined,
} from '@ant-design/icons';
import {
  JOB_RUN_STATE_LABELS,
  JOB_STATUS_LABELS,
  JOB_STATUSES,
  type Job,
  type JobStatus,
  Perm,
} from '@ess/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card, Grid, Select, type TableColumnsType, Tag } from 'antd';
import { lazy, type ReactNode, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { browserTimeZone, formatDateTime } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { deleteAction, type RowAction, RowActions } from '@/shared/ui/RowActions';
import {
  deleteJob,
  fetchJobGroups,
  fetchJobKinds,
  fetchJobs,
  type JobQuery,
  jobKeys,
  pauseJob,
  recoverJob,
  triggerJob,
} from '../api';
import {
  anyJobRunning,
  formatDurationMs,
  groupChoices,
  JOB_RUN_STATE_COLORS,
  JOB_STATUS_COLORS,
  phoneTableProps,
  RUNNING_POLL_MS,
} from '../model';
import '../job.css';

type Action = 'pause' | 'recover' | 'trigger' | 'delete';

// The form (date pickers, number inputs, the expression preview) and the run log load when first
// opened, so the list's first load carries neither.
const JobDialog = lazy(() => import('../components/JobDialog').then((m) => ({ default: m.JobDialog })));
const RunLogDrawer = lazy(() =>
  import('../components/RunLogDrawer').then((m) => ({ default: m.RunLogDrawer })),
);

export default function JobPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const canSave = usePermission(Perm.jobSave);
  const canStatus = usePermission(Perm.jobStatus);
  const canTrigger = usePermission(Perm.jobTrigger);
  const canDelete = usePermission(Perm.jobDelete);

  const [keyword, setKeyword] = useState('');
  const [group, setGroup] = useState<string | undefined>();
  const [status, setStatus] = useState<JobStatus | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [editing, setEditing] = useState<Job | 'new' | null>(null);
  const [logOf, setLogOf] = useState<Job | null>(null);
  // Mounted from their first opening on (kept for their closing animation).
  const dialogUsed = useLatch(editing !== null);
  const logUsed = useLatch(logOf !== null);

  const q: JobQuery = {
    ...page,
    ...(keyword ? { keyword } : {}),
    ...(group ? { group } : {}),
    ...(status ? { status } : {}),
  };
  const query = useQuery({
    queryKey: jobKeys.list(q),
    queryFn: () => fetchJobs(q),
    placeholderData: keepPreviousData,
    refetchInterval: (qy) => (anyJobRunning(qy.state.data?.list) ? RUNNING_POLL_MS : false),
  });
  const kindsQuery = useQuery({ queryKey: jobKeys.kinds, queryFn: fetchJobKinds, staleTime: 5 * 60_000 });
  const groupsQuery = useQuery({ queryKey: jobKeys.groups, queryFn: fetchJobGroups });
  const kinds = kindsQuery.data ?? [];
  const groups = groupChoices(groupsQuery.data ?? []);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: jobKeys.all });

  const change = useMutation({
    mutationFn: ({ job, action }: { job: Job; action: Action }) =>
      action === 'pause'
        ? pauseJob(job.id)
        : action === 'recover'
          ? recoverJob(job.id)
          : action === 'trigger'
            ? triggerJob(job.id)
            : deleteJob(job.id),
    onSuccess: (_, { job, action }) => {
      showSuccess(t(`job.done.${action}`, { name: job.name }));
      if (action === 'trigger') setLogOf(job);
      if (action === 'delete' && logOf?.id === job.id) setLogOf(null);
    },
    onSettled: refresh,
  });
  const act = (job: Job, action: Action) => change.mutateAsync({ job, action }).catch(() => undefined);

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<Job>>(() => {
    const zone = browserTimeZone();
    const kindLabel = (j: Job) => kinds.find((k) => k.kind === j.kind)?.label[lang] ?? j.kind;
    const nameCell = (j: Job) => (
      <span className="job-line">
        <span className="job-strong job-name">{j.name}</span>
        {j.system && (
          <Tag className="job-tag" color="blue">
            {t('job.system')}
          </Tag>
        )}
      </span>
    );
    const statusTag = (j: Job) => (
      <Tag color={JOB_STATUS_COLORS[j.status]} data-testid={`job-status-${j.id}`} data-status={j.status}>
        {JOB_STATUS_LABELS[j.status][lang]}
      </Tag>
    );
    const cronCell = (j: Job) => (
      <span className="job-stack">
        <code className="job-mono">{j.cron}</code>
        <span className="job-muted job-nowrap">{j.timezone}</span>
      </span>
    );
    const nextCell = (j: Job): ReactNode => {
      if (!j.nextRunAt) {
        return (
          <span className="job-muted" data-testid={`job-next-${j.id}`}>
            {t('job.noNext')}
          </span>
        );
      }
      const ts = Date.parse(j.nextRunAt);
      return (
        <span className="job-stack" data-testid={`job-next-${j.id}`}>
          <span className="job-time">{formatDateTime(ts)}</span>
          {j.timezone !== zone && (
            <span className="job-muted job-time">
              {t('job.inZone', { zone: j.timezone, time: formatDateTime(ts, j.timezone) })}
            </span>
          )}
        </span>
      );
    };
    const lastCell = (j: Job): ReactNode => {
      const r = j.lastRun;
      if (!r) {
        return (
          <span className="job-muted" data-testid={`job-last-${j.id}`} data-state="">
            {t('job.never')}
          </span>
        );
      }
      return (
        <span className="job-line" data-testid={`job-last-${j.id}`} data-state={r.state}>
          <Tag className="job-tag" color={JOB_RUN_STATE_COLORS[r.state]}>
            {JOB_RUN_STATE_LABELS[r.state][lang]}
          </Tag>
          <span className="job-time">{formatDateTime(Date.parse(r.startedAt))}</span>
          <span className="job-muted job-nowrap">{formatDurationMs(r.durationMs)}</span>
        </span>
      );
    };
    const actions = (j: Job) => {
      const list: RowAction[] = [
        {
          key: 'edit',
          visible: canSave,
          label: t('job.edit'),
          icon: <EditOutlined />,
          onClick: () => setEditing(j),
          testId: `job-edit-${j.id}`,
        },
        {
          key: 'pause',
          visible: canStatus && j.status === 'normal',
          label: t('job.pause'),
          icon: <PauseCircleOutlined />,
          testId: `job-pause-${j.id}`,
          confirm: {
            title: t('job.pauseTitle'),
            description: t('job.pauseConfirm', { name: j.name }),
            okText: t('job.pause'),
            okTestId: `job-pause-ok-${j.id}`,
            onConfirm: () => act(j, 'pause'),
          },
        },
        {
          key: 'recover',
          visible: canStatus && j.status === 'pause',
          label: t('job.recover'),
          icon: <PlayCircleOutlined />,
          testId: `job-recover-${j.id}`,
          confirm: {
            title: t('job.recoverTitle'),
            description: t('job.recoverConfirm', { name: j.name }),
            okText: t('job.recover'),
            okTestId: `job-recover-ok-${j.id}`,
            onConfirm: () => act(j, 'recover'),
          },
        },
        {
          key: 'trigger',
          visible: canTrigger,
          label: t('job.trigger'),
          icon: <ThunderboltOutlined />,
          testId: `job-trigger-${j.id}`,
          confirm: {
            title: t('job.triggerTitle'),
            description: t('job.triggerConfirm', { name: j.name }),
            okText: t('job.trigger'),
            okTestId: `job-trigger-ok-${j.id}`,
            onConfirm: () => act(j, 'trigger'),
          },
        },
        {
          key: 'log',
          label: t('job.log'),
          icon: <FileTextOutlined />,
          onClick: () => setLogOf(j),
          testId: `job-log-${j.id}`,
        },
        deleteAction(t('common.delete'), {
          visible: canDelete,
          title: t('job.deleteTitle'),
          description: t('job.deleteConfirm', { name: j.name }),
          onConfirm: () => act(j, 'delete'),
          testId: `job-delete-${j.id}`,
          okTestId: `job-delete-ok-${j.id}`,
          blocked: j.system ? t('job.systemNoDelete') : undefined,
        }),
      ];
      return <RowActions className="job-actions" name={j.name} actions={list} />;
    };

    if (!wide) {
      // A phone: one column per task, its actions below.
      return [
        {
          key: 'task',
          title: t('job.field.name'),
          render: (_, j) => (
            <span className="job-stack job-phone-cell">
              <span className="job-line">
                {nameCell(j)}
                {statusTag(j)}
              </span>
              <span className="job-muted">
                {j.group} · {kindLabel(j)}
              </span>
              <span className="job-line">
                <code className="job-mono">{j.cron}</code>
                <span className="job-muted">{j.timezone}</span>
              </span>
              <span className="job-line">
                <span className="job-muted">{t('job.field.nextRun')}</span>
                {nextCell(j)}
              </span>
              <span className="job-line">
                <span className="job-muted">{t('job.field.lastRun')}</span>
                {lastCell(j)}
              </span>
              {actions(j)}
            </span>
          ),
        },
      ];
    }
    return [
      { key: 'name', title: t('job.field.name'), fixed: 'left', render: (_, j) => nameCell(j) },
      {
        key: 'group',
        title: t('job.field.group'),
        render: (_, j) => <span className="job-nowrap">{j.group}</span>,
      },
      {
        key: 'kind',
        title: t('job.field.kind'),
        render: (_, j) => <span className="job-nowrap">{kindLabel(j)}</span>,
      },
      { key: 'cron', title: t('job.field.cron'), render: (_, j) => cronCell(j) },
      { key: 'status', title: t('job.field.status'), render: (_, j) => statusTag(j) },
      { key: 'next', title: t('job.field.nextRun'), render: (_, j) => nextCell(j) },
      { key: 'last', title: t('job.field.lastRun'), render: (_, j) => lastCell(j) },
      { key: 'actions', title: t('job.field.actions'), fixed: 'right', render: (_, j) => actions(j) },
    ];
  }, [i18n.language, wide, kinds, canSave, canStatus, canTrigger, canDelete]);

  return (
    <Card variant="borderless" className="job-page" data-testid="job-page">
      <ListToolbar<JobStatus>
        className="job-toolbar"
        keyword={{
          onSearch: (v) => {
            setKeyword(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          placeholder: t('job.keyword'),
          className: 'job-toolbar__keyword',
          testId: 'job-search',
        }}
        before={
          <Select<string>
            allowClear
            value={group}
            onChange={(v) => {
              setGroup(v);
              setPage((p) => ({ ...p, pageNum: 1 }));
            }}
            options={groups.map((g) => ({ value: g, label: g }))}
            placeholder={t('job.allGroups')}
            aria-label={t('job.field.group')}
            className="job-toolbar__select"
            data-testid="job-filter-group"
          />
        }
        status={{
          value: status,
          onChange: (v) => {
            setStatus(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          options: JOB_STATUSES.map((s) => ({ value: s, label: JOB_STATUS_LABELS[s][lang] })),
          placeholder: t('job.allStatuses'),
          ariaLabel: t('job.field.status'),
          className: 'job-toolbar__select',
          testId: 'job-filter-status',
        }}
        refresh={{ loading: query.isFetching && !query.isLoading, onClick: refresh, testId: 'job-refresh' }}
        add={
          canSave
            ? {
                label: t('job.add'),
                onClick: () => setEditing('new'),
                className: 'job-toolbar__add',
                testId: 'job-add',
              }
            : undefined
        }
      />
      <div data-testid="job-table">
        <DataTable<Job>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(n) => t('job.total', { count: n })}
          {...phoneTableProps(wide)}
          emptyText={t('job.empty')}
        />
      </div>
      <Suspense fallback={null}>
        {dialogUsed && (
          <JobDialog target={editing} kinds={kinds} groups={groups} onClose={() => setEditing(null)} />
        )}
        {logUsed && (
          <RunLogDrawer
            job={(logOf && query.data?.list.find((j) => j.id === logOf.id)) ?? logOf}
            onClose={() => setLogOf(null)}
          />
        )}
      </Suspense>
    </Card>
  );
}

/** True from the first render where `on` is true onwards. */
function useLatch(on: boolean): boolean {
  const [latched, setLatched] = useState(on);
  if (on && !latched) setLatched(true);
  return latched || on;
}
