/**
 * Monthly bills `/project/bill` (issue 17 item 5; view `project/bill/index`, menu 620, bill:bill:list;
 * spec §8 "电费已结算" as 7060). Filters: project, month (site-local `YYYY-MM`), state. Per bill:
 * project (and company), month, version (a corrected one marked), state, income mode, cost, value,
 * net benefit, lines from rollups (flag), created / settled. Actions by permission: detail (the
 * lines checkable against the meter readings, drawer), settle (bill:bill:confirm; asks first; a
 * second settle answers 7060, shown as its text), correct (bill:bill:correct; a reason, a new
 * version), export xlsx (bill:bill:export), print page (A4, a tab of its own), and "draft now"
 * (bill:bill:draft: a project and an ended month, or the running month as a month-to-date preview).
 * A bill whose month has not ended at every site is marked "month to date" and cannot be settled
 * yet (the action disabled with the reason; the server answers 7064). On a phone each bill is one
 * column with its actions below.
 * Test hooks: `bill-page`, `bill-filter-project`, `bill-filter-month`, `bill-filter-state`,
 * `bill-refresh`, `bill-draft`, `bill-table` (rows `data-row-key` = bill id), `bill-state-<id>`
 * (`data-state`), `bill-net-<id>`, `bill-detail-<id>`, `bill-confirm-<id>`, `bill-confirm-ok-<id>`,
 * `bill-correct-<id>`, `bill-export-<id>`, `bill-print-<id>`, `bill-mtd-<id>` (month-to-date tag).
 */
import {
  CheckCircleOutlined,
  DownloadOutlined,
  EditOutlined,
  EyeOutlined,
  FileAddOutlined,
  PrinterOutlined,
} from '@ant-design/icons';
import {
  BILL_STATES,
  type BillRow,
  type BillState,
  localTimeOf,
  Perm,
  PROJECT_INCOME_MODE_LABELS,
} from '@ess/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Grid, Select, type TableColumnsType, Tag, Tooltip } from 'antd';
import { lazy, type ReactNode, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { browserTimeZone, formatCny, formatDateTime } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { DataTable } from '@/shared/ui/DataTable';
import { RefreshButton } from '@/shared/ui/ListToolbar';
import { type RowAction, RowActions } from '@/shared/ui/RowActions';
import { type BillQuery, billKeys, confirmBill, exportBill, fetchBills, fetchProjectOptions } from '../api';
import {
  BILL_STATE_COLORS,
  billPrintHref,
  billStateLabel,
  endedMonths,
  isMonthToDate,
  runningMonth,
} from '../model';
import '../bill.css';

const BillDrawer = lazy(() => import('../components/BillDrawer').then((m) => ({ default: m.BillDrawer })));
const DraftDialog = lazy(() => import('../components/DraftDialog').then((m) => ({ default: m.DraftDialog })));
const CorrectDialog = lazy(() =>
  import('../components/CorrectDialog').then((m) => ({ default: m.CorrectDialog })),
);

/** Months offered by the filters and "draft now": the last 24 ended months. */
export const MONTH_CHOICES = 24;

export default function BillPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const canDraft = usePermission(Perm.billDraft);
  const canConfirm = usePermission(Perm.billConfirm);
  const canCorrect = usePermission(Perm.billCorrect);
  const canExport = usePermission(Perm.billExport);
  const canProjects = usePermission(Perm.projectList);

  const [projectId, setProjectId] = useState<number | undefined>();
  const [month, setMonth] = useState<string | undefined>();
  const [state, setState] = useState<BillState | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [openId, setOpenId] = useState<number | null>(null);
  const [drafting, setDrafting] = useState(false);
  const [correcting, setCorrecting] = useState<BillRow | null>(null);
  const [exporting, setExporting] = useState<number | null>(null);

  const q: BillQuery = {
    ...page,
    ...(projectId ? { projectId } : {}),
    ...(month ? { month } : {}),
    ...(state ? { state } : {}),
  };
  const query = useQuery({
    queryKey: billKeys.list(q),
    queryFn: () => fetchBills(q),
    placeholderData: keepPreviousData,
  });
  const projectsQuery = useQuery({
    queryKey: billKeys.projects,
    queryFn: fetchProjectOptions,
    enabled: canProjects,
    staleTime: 60_000,
  });
  const today = useMemo(() => localTimeOf(Date.now(), browserTimeZone()).date, []);
  const months = useMemo(() => endedMonths(today, MONTH_CHOICES), [today]);
  const current = runningMonth(today);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: billKeys.all });

  const settle = useMutation({
    mutationFn: (b: BillRow) => confirmBill(b.id),
    onSuccess: (_, b) => showSuccess(t('bill.done.confirm', { project: b.projectName, month: b.month })),
    onSettled: refresh,
  });
  const download = async (b: BillRow) => {
    setExporting(b.id);
    try {
      await exportBill(b);
      showSuccess(t('bill.done.export'));
    } catch {
      // the client showed the refusal
    } finally {
      setExporting(null);
    }
  };
  const openPrint = (b: BillRow) => window.open(billPrintHref(b.id), '_blank', 'noopener');

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<BillRow>>(() => {
    const projectCell = (b: BillRow) => (
      <span className="bill-stack">
        <span className="bill-strong bill-name">{b.projectName}</span>
        <span className="bill-muted">{b.companyName}</span>
      </span>
    );
    const versionCell = (b: BillRow) => (
      <span className="bill-line">
        <span>{t('bill.versionN', { version: b.version })}</span>
        {b.superseded && <Tag className="bill-tag">{t('bill.superseded')}</Tag>}
        {b.reason && (
          <Tooltip title={t('bill.reasonIs', { reason: b.reason })}>
            <Tag className="bill-tag" color="blue">
              {t('bill.correction')}
            </Tag>
          </Tooltip>
        )}
      </span>
    );
    const mtdTag = (b: BillRow) =>
      isMonthToDate(b, Date.now()) && (
        <Tooltip title={t('bill.notEnded', { month: b.month })}>
          <Tag color="blue" className="bill-tag" data-testid={`bill-mtd-${b.id}`}>
            {t('bill.monthToDate')}
          </Tag>
        </Tooltip>
      );
    const stateTag = (b: BillRow) => (
      <Tag color={BILL_STATE_COLORS[b.state]} data-testid={`bill-state-${b.id}`} data-state={b.state}>
        {billStateLabel(b.state, lang)}
      </Tag>
    );
    const flagCell = (b: BillRow): ReactNode =>
      b.rollupLines + b.backwardsLines === 0 ? (
        <span className="bill-muted">{t('bill.flags.none')}</span>
      ) : (
        <span className="bill-line">
          {b.rollupLines > 0 && (
            <Tooltip title={t('bill.source.rollupHint')}>
              <Tag color="orange" className="bill-tag">
                {t('bill.flags.rollup', { count: b.rollupLines })}
              </Tag>
            </Tooltip>
          )}
          {b.backwardsLines > 0 && (
            <Tooltip title={t('bill.source.backwardsHint')}>
              <Tag color="red" className="bill-tag">
                {t('bill.flags.backwards', { count: b.backwardsLines })}
              </Tag>
            </Tooltip>
          )}
        </span>
      );
    const money = (v: number, testId?: string) => (
      <span className="bill-num" data-testid={testId}>
        {formatCny(v, lang)}
      </span>
    );
    const timesCell = (b: BillRow) => (
      <span className="bill-stack">
        <span className="bill-time">{formatDateTime(b.createdAt)}</span>
        {b.confirmedAt !== null && (
          <span className="bill-muted bill-time">
            {t('bill.settledAt', { time: formatDateTime(b.confirmedAt) })}
          </span>
        )}
      </span>
    );
    const actions = (b: BillRow) => {
      const name = `${b.projectName} ${b.month}`;
      const latestSettled = b.state === 'confirmed' && !b.superseded;
      const list: RowAction[] = [
        {
          key: 'detail',
          label: t('bill.detail'),
          icon: <EyeOutlined />,
          onClick: () => setOpenId(b.id),
          testId: `bill-detail-${b.id}`,
        },
        {
          key: 'confirm',
          visible: canConfirm && b.state === 'draft',
          label: t('bill.confirm'),
          icon: <CheckCircleOutlined />,
          testId: `bill-confirm-${b.id}`,
          blocked: isMonthToDate(b, Date.now()) ? t('bill.notEnded', { month: b.month }) : undefined,
          confirm: {
            title: t('bill.confirmTitle'),
            description: t('bill.confirmText', {
              project: b.projectName,
              month: b.month,
              net: formatCny(b.netBenefitCny, lang),
            }),
            okText: t('bill.confirm'),
            okTestId: `bill-confirm-ok-${b.id}`,
            onConfirm: () => settle.mutateAsync(b).catch(() => undefined),
          },
        },
        {
          key: 'correct',
          visible: canCorrect && latestSettled,
          label: t('bill.correct'),
          icon: <EditOutlined />,
          onClick: () => setCorrecting(b),
          testId: `bill-correct-${b.id}`,
        },
        {
          key: 'export',
          visible: canExport,
          label: t('bill.export'),
          icon: <DownloadOutlined spin={exporting === b.id} />,
          onClick: () => void download(b),
          testId: `bill-export-${b.id}`,
        },
        {
          key: 'print',
          label: t('bill.print'),
          icon: <PrinterOutlined />,
          onClick: () => openPrint(b),
          testId: `bill-print-${b.id}`,
        },
      ];
      return <RowActions className="bill-actions" name={name} actions={list} />;
    };
    const modeLabel = (b: BillRow) => PROJECT_INCOME_MODE_LABELS[b.incomeMode][lang];

    if (!wide) {
      return [
        {
          key: 'bill',
          title: t('bill.field.project'),
          render: (_, b) => (
            <span className="bill-stack bill-phone-cell">
              <span className="bill-line">
                <span className="bill-strong bill-name">{b.projectName}</span>
                {stateTag(b)}
              </span>
              <span className="bill-line">
                <span>{b.month}</span>
                {mtdTag(b)}
                {versionCell(b)}
                <span className="bill-muted">{modeLabel(b)}</span>
              </span>
              <span className="bill-line">
                <span className="bill-muted">{t('bill.field.net')}</span>
                {money(b.netBenefitCny, `bill-net-${b.id}`)}
                <span className="bill-muted">
                  {t('bill.field.value')} {formatCny(b.valueCny, lang)} · {t('bill.field.cost')}{' '}
                  {formatCny(b.costCny, lang)}
                </span>
              </span>
              {flagCell(b)}
              {actions(b)}
            </span>
          ),
        },
      ];
    }
    return [
      { key: 'project', title: t('bill.field.project'), fixed: 'left', render: (_, b) => projectCell(b) },
      {
        key: 'month',
        title: t('bill.field.month'),
        render: (_, b) => (
          <span className="bill-line">
            <span className="bill-nowrap">{b.month}</span>
            {mtdTag(b)}
          </span>
        ),
      },
      { key: 'version', title: t('bill.field.version'), render: (_, b) => versionCell(b) },
      { key: 'state', title: t('bill.field.state'), render: (_, b) => stateTag(b) },
      {
        key: 'mode',
        title: t('bill.field.mode'),
        render: (_, b) => <span className="bill-nowrap">{modeLabel(b)}</span>,
      },
      { key: 'cost', title: t('bill.field.costCny'), align: 'right', render: (_, b) => money(b.costCny) },
      { key: 'value', title: t('bill.field.valueCny'), align: 'right', render: (_, b) => money(b.valueCny) },
      {
        key: 'net',
        title: t('bill.field.netCny'),
        align: 'right',
        render: (_, b) => <strong>{money(b.netBenefitCny, `bill-net-${b.id}`)}</strong>,
      },
      { key: 'flags', title: t('bill.field.flags'), render: (_, b) => flagCell(b) },
      { key: 'times', title: t('bill.field.times'), render: (_, b) => timesCell(b) },
      { key: 'actions', title: t('bill.field.actions'), fixed: 'right', render: (_, b) => actions(b) },
    ];
  }, [i18n.language, wide, canConfirm, canCorrect, canExport, exporting]);

  const projectOptions = projectsQuery.data ?? [];
  return (
    <Card variant="borderless" className="bill-page" data-testid="bill-page">
      <div className="bill-toolbar">
        {canProjects && (
          <Select<number>
            allowClear
            showSearch
            optionFilterProp="label"
            value={projectId}
            onChange={(v) => {
              setProjectId(v);
              setPage((p) => ({ ...p, pageNum: 1 }));
            }}
            options={projectOptions.map((p) => ({ value: p.id, label: p.name }))}
            placeholder={t('bill.allProjects')}
            aria-label={t('bill.field.project')}
            className="bill-toolbar__project"
            data-testid="bill-filter-project"
          />
        )}
        <Select<string>
          allowClear
          value={month}
          onChange={(v) => {
            setMonth(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          }}
          options={[current, ...months].map((m) => ({
            value: m,
            label: m === current ? t('bill.monthToDateOption', { month: m }) : m,
          }))}
          placeholder={t('bill.allMonths')}
          aria-label={t('bill.field.month')}
          className="bill-toolbar__select"
          data-testid="bill-filter-month"
        />
        <Select<BillState>
          allowClear
          value={state}
          onChange={(v) => {
            setState(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          }}
          options={BILL_STATES.map((s) => ({ value: s, label: billStateLabel(s, lang) }))}
          placeholder={t('bill.allStates')}
          aria-label={t('bill.field.state')}
          className="bill-toolbar__select"
          data-testid="bill-filter-state"
        />
        <RefreshButton
          loading={query.isFetching && !query.isLoading}
          onClick={refresh}
          testId="bill-refresh"
        />
        {canDraft && canProjects && (
          <Button
            type="primary"
            icon={<FileAddOutlined />}
            onClick={() => setDrafting(true)}
            className="bill-toolbar__add"
            data-testid="bill-draft"
          >
            {t('bill.draftNow')}
          </Button>
        )}
      </div>
      <div data-testid="bill-table">
        <DataTable<BillRow>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(n) => t('bill.total', { count: n })}
          {...(wide ? {} : { scroll: {}, tableLayout: 'fixed' as const })}
          emptyText={t('bill.empty')}
        />
      </div>
      <Suspense fallback={null}>
        {openId !== null && (
          <BillDrawer
            id={openId}
            onOpen={setOpenId}
            onClose={() => setOpenId(null)}
            onCorrect={setCorrecting}
            onPrint={openPrint}
            onExport={download}
            exporting={exporting}
          />
        )}
        {drafting && (
          <DraftDialog
            projects={projectOptions}
            months={months}
            runningMonth={current}
            initialProjectId={projectId}
            onClose={() => setDrafting(false)}
            onDrafted={(id) => {
              setDrafting(false);
              refresh();
              setOpenId(id);
            }}
          />
        )}
        {correcting && (
          <CorrectDialog
            bill={correcting}
            onClose={() => setCorrecting(null)}
            onCorrected={(id) => {
              setCorrecting(null);
              refresh();
              setOpenId(id);
            }}
          />
        )}
      </Suspense>
    </Card>
  );
}
