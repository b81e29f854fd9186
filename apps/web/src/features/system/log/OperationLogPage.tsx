/**
 * System → Operation log (`system/log/index`): every change and sign-in attempt in the caller's
 * company scope, newest first, with filters (operator account or name, action, target type,
 * result, time range) and paging. The action and target filters offer every action and target
 * type of the contract's audit vocabulary (`AUDIT_ACTIONS`, `AUDIT_TARGET_TYPES`), named by
 * `auditActionLabel` / `auditTargetLabel` in the UI language; an entry whose action is outside
 * the vocabulary shows its key. Rows show time, operator (account and name), company, the
 * action in words, target, result (success, or the code with its catalogue text) and client
 * address; "details" opens the entry with its before → after values.
 * Test hooks: `oplog-page`, `oplog-filter-operator`, `oplog-filter-action`,
 * `oplog-filter-target`, `oplog-filter-result`, `oplog-filter-time`, `oplog-reset`,
 * `oplog-refresh`, `oplog-table` (rows `data-row-key` = entry id), `oplog-detail-<id>` (and
 * those of the drawer).
 */
import { ProfileOutlined } from '@ant-design/icons';
import {
  AUDIT_ACTIONS,
  AUDIT_TARGET_TYPES,
  type AuditAction,
  type AuditTargetType,
  auditActionLabel,
  auditTargetLabel,
  type OperationLogRow,
} from '@ess/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, DatePicker, Grid, Input, Select, type TableColumnsType, Tooltip } from 'antd';
import type { Dayjs } from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, NO_VALUE } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { DataTable } from '@/shared/ui/DataTable';
import { RefreshButton } from '@/shared/ui/ListToolbar';
import { fetchLogs, type LogQuery, logKeys } from './api';
import { LogDetailDrawer } from './LogDetailDrawer';
import { LogResult } from './LogResult';
import './log.css';

type Filters = Omit<LogQuery, 'pageNum' | 'pageSize'>;
type Range = [Dayjs | null, Dayjs | null] | null;

/** The operation log view. */
export default function OperationLogPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const [operatorText, setOperatorText] = useState('');
  const [range, setRange] = useState<Range>(null);
  const [filters, setFilters] = useState<Filters>({});
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [detail, setDetail] = useState<{ open: boolean; entry: OperationLogRow | null }>({
    open: false,
    entry: null,
  });

  /** Change some filters and go back to the first page. */
  const filter = (next: Filters) => {
    setFilters((f) => ({ ...f, ...next }));
    setPage((p) => ({ ...p, pageNum: 1 }));
  };

  const q: LogQuery = {
    ...page,
    ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined && v !== '')),
  };
  const query = useQuery({
    queryKey: logKeys.list(q),
    queryFn: () => fetchLogs(q),
    placeholderData: keepPreviousData,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<OperationLogRow>>(
    () => [
      {
        key: 'ts',
        title: t('oplog.field.time'),
        // On narrow screens only the actions stay in view: two fixed columns would cover the row.
        fixed: wide ? 'left' : undefined,
        render: (_, r) => <span className="oplog-time">{formatDateTime(Date.parse(r.ts))}</span>,
      },
      {
        key: 'operator',
        title: t('oplog.field.operator'),
        render: (_, r) => (
          <span className="oplog-operator">
            <span className="oplog-operator__account">{r.account ?? NO_VALUE}</span>
            {r.operatorName && <span className="oplog-operator__name">{r.operatorName}</span>}
          </span>
        ),
      },
      { key: 'company', title: t('oplog.field.company'), render: (_, r) => r.companyName ?? NO_VALUE },
      {
        key: 'action',
        title: t('oplog.field.action'),
        render: (_, r) => (
          <span className="oplog-action" title={r.action}>
            {auditActionLabel(r.action, lang)}
          </span>
        ),
      },
      {
        key: 'target',
        title: t('oplog.field.target'),
        render: (_, r) =>
          r.targetType ? (
            <span className="oplog-target">
              {auditTargetLabel(r.targetType, lang)}
              {r.targetId && <span className="oplog-target__id">#{r.targetId}</span>}
            </span>
          ) : (
            NO_VALUE
          ),
      },
      { key: 'result', title: t('oplog.field.result'), render: (_, r) => <LogResult code={r.code} /> },
      { key: 'ip', title: t('oplog.field.ip'), render: (_, r) => <code>{r.ip ?? NO_VALUE}</code> },
      {
        key: 'detail',
        title: '',
        fixed: 'right',
        render: (_, r) => (
          <Tooltip title={t('oplog.details')}>
            <Button
              type="text"
              size="small"
              icon={<ProfileOutlined />}
              aria-label={t('oplog.details')}
              onClick={() => setDetail({ open: true, entry: r })}
              data-testid={`oplog-detail-${r.id}`}
            />
          </Tooltip>
        ),
      },
    ],
    [i18n.language, wide],
  );

  const actionOptions = AUDIT_ACTIONS.map((a) => ({ value: a, label: auditActionLabel(a, lang) }));
  const targetOptions = AUDIT_TARGET_TYPES.map((v) => ({ value: v, label: auditTargetLabel(v, lang) }));
  const resultOptions = [
    { value: 'success', label: t('oplog.success') },
    { value: 'failure', label: t('oplog.failure') },
  ];

  return (
    <Card variant="borderless" className="oplog-page" data-testid="oplog-page">
      <div className="oplog-page__toolbar">
        <Input.Search
          allowClear
          value={operatorText}
          onChange={(e) => {
            setOperatorText(e.target.value);
            if (!e.target.value) filter({ operator: undefined });
          }}
          onSearch={(v) => filter({ operator: v.trim() || undefined })}
          placeholder={t('oplog.operatorPlaceholder')}
          className="oplog-page__operator"
          data-testid="oplog-filter-operator"
        />
        <Select<AuditAction>
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          value={filters.action}
          onChange={(v) => filter({ action: v })}
          options={actionOptions}
          placeholder={t('oplog.allActions')}
          className="oplog-page__action"
          aria-label={t('oplog.field.action')}
          data-testid="oplog-filter-action"
        />
        <Select<AuditTargetType>
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          value={filters.targetType}
          onChange={(v) => filter({ targetType: v })}
          options={targetOptions}
          placeholder={t('oplog.allTargets')}
          className="oplog-page__target"
          aria-label={t('oplog.field.target')}
          data-testid="oplog-filter-target"
        />
        <Select<'success' | 'failure'>
          allowClear
          value={filters.result}
          onChange={(v) => filter({ result: v })}
          options={resultOptions}
          placeholder={t('oplog.allResults')}
          className="oplog-page__result"
          aria-label={t('oplog.field.result')}
          data-testid="oplog-filter-result"
        />
        <DatePicker.RangePicker
          showTime
          value={range}
          onChange={(v) => {
            setRange(v);
            // The server's `to` is exclusive: the whole last second counts.
            filter({
              from: v?.[0]?.startOf('second').valueOf(),
              to: v?.[1] ? v[1].endOf('second').valueOf() + 1 : undefined,
            });
          }}
          className="oplog-page__time"
          data-testid="oplog-filter-time"
        />
        <Button
          onClick={() => {
            setOperatorText('');
            setRange(null);
            setFilters({});
            setPage((p) => ({ ...p, pageNum: 1 }));
          }}
          data-testid="oplog-reset"
        >
          {t('oplog.reset')}
        </Button>
        <RefreshButton
          loading={query.isFetching && !query.isLoading}
          onClick={() => void queryClient.invalidateQueries({ queryKey: logKeys.all })}
          testId="oplog-refresh"
        />
      </div>
      <div data-testid="oplog-table">
        <DataTable<OperationLogRow>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(total) => t('oplog.total', { count: total })}
        />
      </div>
      <LogDetailDrawer
        open={detail.open}
        entry={detail.entry}
        onClose={() => setDetail((d) => ({ ...d, open: false }))}
      />
    </Card>
  );
}
