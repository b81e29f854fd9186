/**
 * A task's run log (issue 18 item 1; `job/runs`, monitor:job:list): its runs newest first — fire
 * time (the task's zone beside the operator's when it differs), how it came (scheduled, by hand,
 * misfire), state, the server instance that ran it (and the attempt after a takeover), start,
 * end, duration, and the kind's result (one line of JSON) or the error. A state filter and
 * paging. While a run on the page is `running` the log asks again every {@link RUNNING_POLL_MS}
 * and stops once none is (the task list is refreshed then, for its last run); no live channel.
 * On a phone the rows are one column.
 * Test hooks: `job-runs` (the drawer's content, `data-polling`), `job-runs-state` (filter),
 * `job-runs-refresh`, `job-runs-table` (rows `data-row-key` = run id), `job-run-state-<id>`
 * (`data-state`), `job-run-result-<id>`, `job-run-error-<id>`.
 */
import {
  JOB_RUN_STATE_LABELS,
  JOB_RUN_STATES,
  JOB_RUN_TRIGGER_LABELS,
  type Job,
  type JobRun,
  type JobRunState,
} from '@ess/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Drawer, Grid, Select, type TableColumnsType, Tag } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { browserTimeZone, formatDateTime, NO_VALUE } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { DataTable } from '@/shared/ui/DataTable';
import { RefreshButton } from '@/shared/ui/ListToolbar';
import { fetchJobRuns, type JobRunsQuery, jobKeys } from '../api';
import {
  anyRunning,
  compactResult,
  formatDurationMs,
  JOB_RUN_STATE_COLORS,
  phoneTableProps,
  RUNNING_POLL_MS,
} from '../model';

interface Props {
  /** The task whose log is open; null: closed. */
  job: Job | null;
  onClose: () => void;
}

/** Wide enough for the table's eight columns on a desktop; the whole window on a phone. */
const DRAWER_WIDTH_PX = Math.round(DIALOG_WIDTH_PX * 1.6);

export function RunLogDrawer({ job, onClose }: Props) {
  const { t } = useTranslation();
  return (
    <Drawer
      open={job !== null}
      onClose={onClose}
      title={job ? t('job.runs.title', { name: job.name }) : ''}
      size={`min(${DRAWER_WIDTH_PX}px, 100vw)`}
      destroyOnHidden
    >
      {job && <RunLog job={job} />}
    </Drawer>
  );
}

function RunLog({ job }: { job: Job }) {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const [state, setState] = useState<JobRunState | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const q: JobRunsQuery = { ...page, jobId: job.id, ...(state ? { state } : {}) };
  const query = useQuery({
    queryKey: jobKeys.runs(q),
    queryFn: () => fetchJobRuns(q),
    placeholderData: keepPreviousData,
    refetchInterval: (qy) => (anyRunning(qy.state.data?.list) ? RUNNING_POLL_MS : false),
  });
  const polling = anyRunning(query.data?.list);

  // A run ended: the task list's last run and next fire time are stale.
  const wasPolling = useRef(false);
  useEffect(() => {
    if (wasPolling.current && !polling) void queryClient.invalidateQueries({ queryKey: ['job', 'list'] });
    wasPolling.current = polling;
  }, [polling, queryClient]);

  const zone = browserTimeZone();
  const otherZone = job.timezone !== zone;

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<JobRun>>(() => {
    const stateTag = (r: JobRun) => (
      <Tag color={JOB_RUN_STATE_COLORS[r.state]} data-testid={`job-run-state-${r.id}`} data-state={r.state}>
        {JOB_RUN_STATE_LABELS[r.state][lang]}
      </Tag>
    );
    const fire = (r: JobRun, withTrigger: boolean) => (
      <span className="job-stack">
        <span className="job-time">{formatDateTime(Date.parse(r.fireAt))}</span>
        {otherZone && (
          <span className="job-muted job-time">
            {t('job.inZone', {
              zone: job.timezone,
              time: formatDateTime(Date.parse(r.fireAt), job.timezone),
            })}
          </span>
        )}
        {withTrigger && <span className="job-muted">{JOB_RUN_TRIGGER_LABELS[r.trigger][lang]}</span>}
      </span>
    );
    const outcome = (r: JobRun) => {
      if (r.error) {
        return (
          <span className="job-error job-clip" title={r.error} data-testid={`job-run-error-${r.id}`}>
            {r.error}
          </span>
        );
      }
      const { text, full } = compactResult(r.result);
      return text ? (
        <code className="job-mono job-clip" title={full} data-testid={`job-run-result-${r.id}`}>
          {text}
        </code>
      ) : (
        NO_VALUE
      );
    };
    const instance = (r: JobRun) => (
      <span className="job-stack">
        <code className="job-mono job-clip" title={r.instance}>
          {r.instance}
        </code>
        {r.attempts > 1 && <span className="job-muted">{t('job.runs.attempts', { count: r.attempts })}</span>}
      </span>
    );
    if (!wide) {
      return [
        {
          key: 'run',
          title: t('job.runs.fireAt'),
          render: (_, r) => (
            <span className="job-stack job-phone-cell">
              <span className="job-line">
                {stateTag(r)}
                <span className="job-muted">{JOB_RUN_TRIGGER_LABELS[r.trigger][lang]}</span>
                <span className="job-muted">{formatDurationMs(r.durationMs)}</span>
              </span>
              {fire(r, false)}
              <span className="job-muted job-time">
                {formatDateTime(Date.parse(r.startedAt))} →{' '}
                {r.finishedAt ? formatDateTime(Date.parse(r.finishedAt)) : NO_VALUE}
              </span>
              {instance(r)}
              {r.state !== 'running' && outcome(r)}
            </span>
          ),
        },
      ];
    }
    return [
      { key: 'fireAt', title: t('job.runs.fireAt'), render: (_, r) => fire(r, true) },
      { key: 'state', title: t('job.runs.state'), render: (_, r) => stateTag(r) },
      { key: 'instance', title: t('job.runs.instance'), render: (_, r) => instance(r) },
      {
        key: 'time',
        title: `${t('job.runs.startedAt')} / ${t('job.runs.finishedAt')}`,
        render: (_, r) => (
          <span className="job-stack">
            <span className="job-time">{formatDateTime(Date.parse(r.startedAt))}</span>
            <span className="job-time job-muted">
              {r.finishedAt ? formatDateTime(Date.parse(r.finishedAt)) : NO_VALUE}
            </span>
          </span>
        ),
      },
      {
        key: 'duration',
        title: t('job.runs.duration'),
        align: 'right',
        render: (_, r) => <span className="job-nowrap">{formatDurationMs(r.durationMs)}</span>,
      },
      { key: 'result', title: t('job.runs.result'), render: (_, r) => outcome(r) },
    ];
  }, [i18n.language, wide, otherZone, job.timezone]);

  return (
    <div className="job-runs" data-testid="job-runs" data-polling={polling}>
      <div className="job-toolbar">
        <Select<JobRunState>
          allowClear
          value={state}
          onChange={(v) => {
            setState(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          }}
          options={JOB_RUN_STATES.map((s) => ({ value: s, label: JOB_RUN_STATE_LABELS[s][lang] }))}
          placeholder={t('job.runs.allStates')}
          aria-label={t('job.runs.state')}
          className="job-toolbar__select"
          data-testid="job-runs-state"
        />
        <RefreshButton
          loading={query.isFetching && !query.isLoading}
          onClick={() => void query.refetch()}
          testId="job-runs-refresh"
        />
        {polling && (
          <span className="job-muted">{t('job.runs.polling', { seconds: RUNNING_POLL_MS / 1000 })}</span>
        )}
      </div>
      <div data-testid="job-runs-table">
        <DataTable<JobRun>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(n) => t('job.runs.total', { count: n })}
          {...phoneTableProps(wide)}
          emptyText={t('job.runs.empty')}
        />
      </div>
    </div>
  );
}
