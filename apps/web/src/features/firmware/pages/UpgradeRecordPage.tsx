/**
 * Upgrade records `/upgradeRecord` (spec §2, issue 16 item 4; view `device/upgradeRecord/index`,
 * firmware:upgrade:list): the batches, newest first — batch number, package and version, device
 * type, operator, time (spec §3), state (running, paused with why, finished), wave, deadline and
 * a progress bar with the devices per state. Times in the viewer's zone: a batch spans sites.
 * Search by batch number or package name, filter by state. A row opens its detail
 * (`/upgradeRecordDetail?id=<id>`). "New batch" (firmware:upgrade:create) opens
 * {@link BatchWizard}; a created batch opens its detail.
 *
 * Live: the page listens to the `upgrade` channel (contract api/live.ts): a listed batch takes
 * the pushed row at once; a batch not listed (another operator's new one) reads the list again;
 * when the connection comes back the list is read again.
 * Test hooks: `upgrade-page`, `upgrade-search`, `upgrade-filter-state`, `upgrade-refresh`,
 * `upgrade-new`, `upgrade-table` (rows `data-row-key` = batch id), `upgrade-open-<id>`,
 * `upgrade-state-<id>` (`data-state`), `upgrade-progress-<id>`.
 */
import { RightOutlined } from '@ant-design/icons';
import {
  deviceTypeLabel,
  Perm,
  UPGRADE_BATCH_STATE_LABELS,
  UPGRADE_BATCH_STATES,
  UPGRADE_PAUSE_REASON_LABELS,
  type UpgradeBatchRow,
  type UpgradeBatchState,
} from '@ess/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Grid, type TableColumnsType, Tag } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { usePermission } from '@/features/auth';
import { formatDateTime } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { LiveIndicator, useLiveMessages } from '@/shared/live';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { fetchBatches, firmwareKeys, type UpgradeQuery } from '../api';
import { BatchProgress } from '../components/BatchProgress';
import { BatchWizard } from '../components/BatchWizard';
import { applyLiveBatch, BATCH_STATE_COLORS } from '../model';
import '../firmware.css';

/** Where a batch's detail opens. */
export function detailPath(id: number): string {
  return `/upgradeRecordDetail?id=${id}`;
}

export default function UpgradeRecordPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canCreate = usePermission(Perm.upgradeCreate);

  const [keyword, setKeyword] = useState('');
  const [state, setState] = useState<UpgradeBatchState | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [creating, setCreating] = useState(false);
  const q: UpgradeQuery = { ...page, ...(keyword ? { keyword } : {}), ...(state ? { state } : {}) };
  const query = useQuery({
    queryKey: firmwareKeys.batches(q),
    queryFn: () => fetchBatches(q),
    placeholderData: keepPreviousData,
  });

  const listed = useRef<Set<number>>(new Set());
  listed.current = new Set((query.data?.list ?? []).map((b) => b.id));
  const status = useLiveMessages('upgrade', (message) => {
    if (listed.current.has(message.batch.id)) {
      queryClient.setQueriesData<typeof query.data>({ queryKey: firmwareKeys.batchesAll }, (old) =>
        applyLiveBatch(old, message),
      );
    } else {
      void queryClient.invalidateQueries({ queryKey: firmwareKeys.batchesAll });
    }
  });
  const wasLive = useRef(status === 'live');
  useEffect(() => {
    const live = status === 'live';
    if (live && !wasLive.current) void queryClient.invalidateQueries({ queryKey: firmwareKeys.batchesAll });
    wasLive.current = live;
  }, [status, queryClient]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<UpgradeBatchRow>>(() => {
    const stateTag = (b: UpgradeBatchRow) => (
      <Tag color={BATCH_STATE_COLORS[b.state]} data-testid={`upgrade-state-${b.id}`} data-state={b.state}>
        {UPGRADE_BATCH_STATE_LABELS[b.state][lang]}
      </Tag>
    );
    const open = (b: UpgradeBatchRow) => (
      <Button
        size="small"
        type="link"
        onClick={() => navigate(detailPath(b.id))}
        data-testid={`upgrade-open-${b.id}`}
        aria-label={`${t('firmware.batch.open')} ${b.batchNo}`}
      >
        {wide ? t('firmware.batch.open') : null}
        <RightOutlined />
      </Button>
    );
    if (!wide) {
      // A phone: one column with what a batch is and how far it got, and the way in.
      return [
        {
          key: 'batch',
          title: t('firmware.batch.batchNo'),
          render: (_, b) => (
            <span className="fw-stack fw-records-stack">
              <span>
                <code className="fw-mono fw-strong">{b.batchNo}</code> {stateTag(b)}
              </span>
              <span className="fw-muted">
                {b.packageName} · <code className="fw-mono">{b.version}</code> · {b.operatorName} ·{' '}
                {formatDateTime(Date.parse(b.createdAt))}
              </span>
              <BatchProgress batch={b} testId={`upgrade-progress-${b.id}`} compact />
            </span>
          ),
        },
        { key: 'open', title: '', width: 40, render: (_, b) => open(b) },
      ];
    }
    return [
      {
        key: 'batchNo',
        title: t('firmware.batch.batchNo'),
        fixed: wide ? 'left' : undefined,
        render: (_, b) => (
          <span className="fw-stack">
            <code className="fw-mono fw-strong">{b.batchNo}</code>
            <span className="fw-muted fw-nowrap">{formatDateTime(Date.parse(b.createdAt))}</span>
          </span>
        ),
      },
      {
        key: 'package',
        title: t('firmware.batch.package'),
        render: (_, b) => (
          <span className="fw-stack">
            <span className="fw-nowrap">{b.packageName}</span>
            <span className="fw-muted fw-nowrap">
              {deviceTypeLabel(b.deviceType, lang)} · <code className="fw-mono">{b.version}</code>
            </span>
          </span>
        ),
      },
      {
        key: 'operator',
        title: t('firmware.batch.operator'),
        dataIndex: 'operatorName',
        className: 'fw-nowrap',
      },
      {
        key: 'state',
        title: t('firmware.batch.state'),
        render: (_, b) => (
          <span className="fw-stack">
            <Tag
              color={BATCH_STATE_COLORS[b.state]}
              data-testid={`upgrade-state-${b.id}`}
              data-state={b.state}
            >
              {UPGRADE_BATCH_STATE_LABELS[b.state][lang]}
            </Tag>
            {b.state === 'paused' && b.pausedReason && (
              <span className="fw-muted fw-reason">{UPGRADE_PAUSE_REASON_LABELS[b.pausedReason][lang]}</span>
            )}
          </span>
        ),
      },
      {
        key: 'progress',
        title: t('firmware.batch.progress'),
        render: (_, b) => (
          <span className="fw-stack fw-progress-cell">
            <BatchProgress batch={b} testId={`upgrade-progress-${b.id}`} compact />
            <span className="fw-muted fw-nowrap">
              {t('firmware.batch.wave', { current: b.currentWave, count: b.waveCount })}
            </span>
          </span>
        ),
      },
      {
        key: 'deadline',
        title: t('firmware.batch.deadline'),
        render: (_, b) => (
          <span className="fw-stack">
            <span className="fw-time">{formatDateTime(Date.parse(b.deadlineAt))}</span>
            {b.finishedAt && (
              <span className="fw-muted fw-nowrap">
                {t('firmware.batch.finishedAt', { time: formatDateTime(Date.parse(b.finishedAt)) })}
              </span>
            )}
          </span>
        ),
      },
      {
        key: 'open',
        title: t('firmware.field.actions'),
        fixed: 'right',
        render: (_, b) => open(b),
      },
    ];
  }, [i18n.language, wide, navigate]);

  return (
    <Card variant="borderless" className="fw-page" data-testid="upgrade-page">
      <ListToolbar<UpgradeBatchState>
        className="fw-toolbar"
        keyword={{
          onSearch: (v) => {
            setKeyword(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          placeholder: t('firmware.batch.keyword'),
          className: 'fw-toolbar__keyword',
          testId: 'upgrade-search',
        }}
        status={{
          value: state,
          onChange: (v) => {
            setState(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          options: UPGRADE_BATCH_STATES.map((s) => ({
            value: s,
            label: UPGRADE_BATCH_STATE_LABELS[s][lang],
          })),
          placeholder: t('firmware.allStates'),
          ariaLabel: t('firmware.batch.state'),
          className: 'fw-toolbar__select',
          testId: 'upgrade-filter-state',
        }}
        refresh={{
          loading: query.isFetching && !query.isLoading,
          onClick: () => void queryClient.invalidateQueries({ queryKey: firmwareKeys.batchesAll }),
          testId: 'upgrade-refresh',
        }}
        before={<LiveIndicator status={status} />}
        add={
          canCreate
            ? {
                label: t('firmware.batch.new'),
                onClick: () => setCreating(true),
                className: 'fw-toolbar__add',
                testId: 'upgrade-new',
              }
            : undefined
        }
      />
      <div data-testid="upgrade-table">
        <DataTable<UpgradeBatchRow>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(n) => t('firmware.batch.total', { count: n })}
          emptyText={t('firmware.batch.empty')}
          onRow={(b) => ({ onDoubleClick: () => navigate(detailPath(b.id)) })}
        />
      </div>
      <BatchWizard
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(id) => {
          setCreating(false);
          void queryClient.invalidateQueries({ queryKey: firmwareKeys.batchesAll });
          navigate(detailPath(id));
        }}
      />
    </Card>
  );
}
