/**
 * A project's detail `/project/detail?id=` (issue 17 item 1; view `project/detail/index`, hidden
 * menu 605, project:project:list): the contract (cycle, status, income distribution, investors
 * with ratios, costs and who bears them), partners, the offline map of its sites, the bound sites
 * with their live figures (online, SOC, battery power, today's charged and discharged kWh — the
 * fleet's own figures from the server, asked again every 30 s) and ended bindings, the storage
 * meters with CT/PT and their recorded swaps (record one: project:project:save), and the change history (who, when, field before → after).
 * Actions by permission: status changes allowed from the current status (project:project:status;
 * asks first), edit (project:project:save), bind sites and unbind a site with its date
 * (project:project:bind). Refusals are the server's text.
 * Test hooks: `project-detail`, `project-detail-missing`, `project-back`, `project-detail-name`,
 * `project-detail-status` (`data-status`), `project-to-<status>`, `project-to-ok-<status>`,
 * `project-detail-edit`, `project-bind`, `project-bind-sites`, `project-bind-from`,
 * `project-bind-ok`, `project-sites` (rows `data-row-key` = binding id), `project-site-<siteId>`,
 * `project-unbind-<siteId>`, `project-unbind-ok-<siteId>`, `project-meters`, `project-investors`,
 * `project-history` (items `project-history-item`, `data-action`), `project-map`; the meters' swaps:
 * components/MeterSwaps.tsx (`project-meter-swap-<deviceId>`, `project-meter-swaps`).
 */
import { ArrowLeftOutlined, EditOutlined, LinkOutlined } from '@ant-design/icons';
import {
  Perm,
  PROJECT_CHANGE_ACTION_LABELS,
  PROJECT_COST_BEARER_LABELS,
  PROJECT_INCOME_MODE_LABELS,
  PROJECT_RENT_BASIS_LABELS,
  PROJECT_STATUS_LABELS,
  type ProjectDetail,
  type ProjectMeter,
  type ProjectSite,
  type ProjectStatus,
} from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  type ButtonProps,
  Card,
  DatePicker,
  Descriptions,
  Empty,
  Form,
  Grid,
  Modal,
  Pagination,
  Popconfirm,
  Select,
  Space,
  Table,
  type TableColumnsType,
  Tag,
  Timeline,
} from 'antd';
import { lazy, type ReactNode, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { formatCny, formatDateTime, formatPrice, formatQuantity } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { dayjs, useDayjsLocale } from '@/shared/i18n/dayjs';
import { SiteMap, type SiteMapPoint } from '@/shared/map';
import {
  bindProjectSites,
  changeProjectStatus,
  fetchProject,
  fetchProjectHistory,
  fetchSiteOptions,
  projectKeys,
  unbindProjectSite,
} from '../api';
import { MeterSwapDialog, MeterSwapList } from '../components/MeterSwaps';
import { historyValueText, PROJECT_LIST_PATH, PROJECT_STATUS_COLORS } from '../model';
import '../project.css';

const ProjectForm = lazy(() => import('../components/ProjectForm').then((m) => ({ default: m.ProjectForm })));

/** How often the live figures of the bound sites are asked again (ms). */
const LIVE_REFRESH_MS = 30_000;

export default function ProjectDetailPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const raw = params.get('id');
  const id = raw && /^\d+$/.test(raw) ? Number(raw) : null;
  const navigate = useNavigate();
  const query = useQuery({
    queryKey: projectKeys.detail(id ?? 0),
    queryFn: () => fetchProject(id as number),
    enabled: id !== null,
    refetchInterval: LIVE_REFRESH_MS,
    retry: false,
  });
  const back = (
    <Button
      icon={<ArrowLeftOutlined />}
      onClick={() => navigate(PROJECT_LIST_PATH)}
      data-testid="project-back"
    >
      {t('project.detail.back')}
    </Button>
  );
  if (id === null || query.isError) {
    return (
      <Card variant="borderless" className="project-page" data-testid="project-detail-missing">
        <Empty description={t('project.detail.missing')}>{back}</Empty>
      </Card>
    );
  }
  if (!query.data) return <Card variant="borderless" className="project-page" loading />;
  return <Detail project={query.data} back={back} />;
}

function Detail({ project: p, back }: { project: ProjectDetail; back: ReactNode }) {
  const { t } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const canSave = usePermission(Perm.projectSave);
  const canStatus = usePermission(Perm.projectStatus);
  const canBind = usePermission(Perm.projectBind);
  const [editing, setEditing] = useState(false);
  const [binding, setBinding] = useState(false);
  const [swapping, setSwapping] = useState<ProjectMeter | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: projectKeys.all });
  const swapButton = (m: ProjectMeter) => (
    <Button size="small" onClick={() => setSwapping(m)} data-testid={`project-meter-swap-${m.deviceId}`}>
      {t('project.swap.action')}
    </Button>
  );

  const status = useMutation({
    mutationFn: (to: ProjectStatus) => changeProjectStatus(p.id, to),
    onSuccess: (_, to) => showSuccess(t('project.done.status', { status: PROJECT_STATUS_LABELS[to][lang] })),
    onSettled: refresh,
  });

  const rent =
    p.incomeMode === 'leasing' && p.rentBasis
      ? t('project.detail.rent', {
          // Monthly rent is an amount; rent per kWh of capacity a rate (stored to 0.0001 CNY).
          amount: p.rentBasis === 'monthly' ? formatCny(p.rentCny) : formatPrice(p.rentCny),
          unit:
            p.rentBasis === 'monthly'
              ? t('project.form.rentUnitMonthly')
              : t('project.form.rentUnitCapacity'),
        })
      : null;

  const points: SiteMapPoint[] = p.sites
    .filter((s) => s.boundTo === null && s.live)
    .flatMap((s) => {
      const site = siteCoordinates(s);
      return site ? [site] : [];
    });

  return (
    <div className="project-detail" data-testid="project-detail">
      <Card variant="borderless" className="project-page">
        <div className="project-head">
          <Space wrap>
            {back}
            <span className="project-title" data-testid="project-detail-name">
              {p.name}
            </span>
            <Tag
              color={PROJECT_STATUS_COLORS[p.status]}
              data-testid="project-detail-status"
              data-status={p.status}
            >
              {PROJECT_STATUS_LABELS[p.status][lang]}
            </Tag>
          </Space>
          <Space wrap>
            {canStatus &&
              p.nextStatuses.map((to) => (
                <Popconfirm
                  key={to}
                  title={t('project.detail.statusTitle')}
                  description={t('project.detail.statusConfirm', {
                    name: p.name,
                    from: PROJECT_STATUS_LABELS[p.status][lang],
                    to: PROJECT_STATUS_LABELS[to][lang],
                  })}
                  onConfirm={() => status.mutateAsync(to).catch(() => undefined)}
                  okButtonProps={{ 'data-testid': `project-to-ok-${to}` } as ButtonProps}
                >
                  <Button data-testid={`project-to-${to}`}>
                    {t('project.detail.changeTo')} {PROJECT_STATUS_LABELS[to][lang]}
                  </Button>
                </Popconfirm>
              ))}
            {canSave && (
              <Button
                type="primary"
                icon={<EditOutlined />}
                onClick={() => setEditing(true)}
                data-testid="project-detail-edit"
              >
                {t('project.edit')}
              </Button>
            )}
          </Space>
        </div>
        <Descriptions
          size="small"
          column={{ xs: 1, sm: 1, md: 2, lg: 3 }}
          className="project-descriptions"
          items={[
            { key: 'company', label: t('project.field.company'), children: p.companyName },
            { key: 'address', label: t('project.field.address'), children: p.address ?? '—' },
            {
              key: 'coords',
              label: `${t('project.field.longitude')} / ${t('project.field.latitude')}`,
              children: p.longitude !== null && p.latitude !== null ? `${p.longitude}, ${p.latitude}` : '—',
            },
            {
              key: 'construction',
              label: t('project.field.construction'),
              children: p.construction?.name ?? '—',
            },
            { key: 'agent', label: t('project.field.agent'), children: p.agent?.name ?? '—' },
            { key: 'owner', label: t('project.field.owner'), children: p.owner?.name ?? '—' },
            {
              key: 'cycle',
              label: t('project.field.cycle'),
              children: `${p.contractStart} ~ ${p.contractEnd}`,
            },
            { key: 'years', label: t('project.field.contractYears'), children: p.contractYears },
            {
              key: 'mode',
              label: t('project.field.incomeMode'),
              children: PROJECT_INCOME_MODE_LABELS[p.incomeMode][lang],
            },
            p.incomeMode === 'self_investment'
              ? {
                  key: 'share',
                  label: t('project.field.ownerSharePct'),
                  children: `${p.ownerSharePct ?? '—'} %`,
                }
              : {
                  key: 'rent',
                  label: p.rentBasis
                    ? PROJECT_RENT_BASIS_LABELS[p.rentBasis][lang]
                    : t('project.field.rentBasis'),
                  children: rent ?? '—',
                },
            { key: 'capacity', label: t('project.field.capacityKwh'), children: p.capacityKwh ?? '—' },
            {
              key: 'maintenance',
              label: t('project.field.maintenanceCnyPerMonth'),
              children: formatCny(p.maintenanceCnyPerMonth),
            },
            {
              key: 'insurance',
              label: t('project.field.insuranceCnyPerMonth'),
              children: formatCny(p.insuranceCnyPerMonth),
            },
            {
              key: 'bearer',
              label: t('project.field.costBearer'),
              children: PROJECT_COST_BEARER_LABELS[p.costBearer][lang],
            },
            { key: 'remark', label: t('project.field.remark'), children: p.remark ?? '—' },
          ]}
        />
      </Card>

      <div className="project-grid">
        <Card size="small" title={t('project.field.investors')} data-testid="project-investors">
          <Table
            size="small"
            rowKey="companyId"
            pagination={false}
            dataSource={[
              ...(p.incomeMode === 'self_investment'
                ? [
                    {
                      companyId: 0,
                      companyName: `${t('project.detail.owner')}${p.owner ? ` · ${p.owner.name}` : ''}`,
                      ratioPct: p.ownerSharePct ?? 0,
                    },
                  ]
                : []),
              ...p.investors,
            ]}
            columns={[
              { key: 'name', title: t('project.form.investor'), dataIndex: 'companyName' },
              {
                key: 'ratio',
                title: t('project.detail.ratio'),
                align: 'right',
                render: (_, i) => `${i.ratioPct.toFixed(2)} %`,
              },
            ]}
          />
        </Card>
        <Card size="small" title={t('project.detail.map')} data-testid="project-map">
          {points.length ? (
            <Suspense fallback={null}>
              <SiteMap
                sites={points}
                statusLabels={{
                  online: t('project.detail.online'),
                  offline: t('project.detail.offline'),
                  alarm: t('project.detail.alarm'),
                }}
                ariaLabel={t('project.detail.mapLabel', { count: points.length })}
                loadFailedText={t('project.detail.mapFailed')}
                height={260}
              />
            </Suspense>
          ) : (
            <Empty description={t('project.detail.noLocation')} image={Empty.PRESENTED_IMAGE_SIMPLE} />
          )}
        </Card>
      </div>

      <Card
        size="small"
        title={t('project.detail.sites')}
        className="project-section"
        extra={
          canBind && (
            <Button icon={<LinkOutlined />} onClick={() => setBinding(true)} data-testid="project-bind">
              {t('project.detail.bind')}
            </Button>
          )
        }
      >
        <SitesTable project={p} wide={wide} canBind={canBind} onChanged={refresh} />
      </Card>

      <Card
        size="small"
        title={t('project.field.meters')}
        className="project-section"
        data-testid="project-meters"
      >
        <Table
          size="small"
          rowKey="deviceId"
          pagination={false}
          scroll={{ x: 'max-content' }}
          locale={{ emptyText: t('project.form.noStorageMeters') }}
          dataSource={p.meters}
          {...(wide ? {} : { scroll: {}, tableLayout: 'fixed' as const })}
          columns={[
            {
              key: 'sn',
              title: t('project.form.meterSn'),
              render: (_, m) =>
                wide ? (
                  m.sn
                ) : (
                  <span className="project-stack project-phone-cell">
                    <span>{m.sn}</span>
                    <span className="project-muted">{m.siteName}</span>
                    {/* On a phone the action sits under the meter: a column of its own overflowed 390 px in en. */}
                    {canSave && swapButton(m)}
                  </span>
                ),
            },
            ...(wide ? [{ key: 'site', title: t('project.field.site'), dataIndex: 'siteName' }] : []),
            {
              key: 'ct',
              title: t('project.form.ct'),
              align: 'right' as const,
              dataIndex: 'ctRatio',
              width: wide ? undefined : 64,
            },
            {
              key: 'pt',
              title: t('project.form.pt'),
              align: 'right' as const,
              dataIndex: 'ptRatio',
              width: wide ? undefined : 64,
            },
            {
              key: 'secondary',
              title: t('project.form.secondary'),
              width: wide ? undefined : 88,
              render: (_, m) => (m.readsSecondary ? `✓ ×${m.ctRatio * m.ptRatio}` : '—'),
            },
            ...(canSave && wide
              ? [{ key: 'swap', title: '', render: (_: unknown, m: ProjectMeter) => swapButton(m) }]
              : []),
          ]}
        />
        {p.meters.length > 0 && <MeterSwapList projectId={p.id} meters={p.meters} canEdit={canSave} />}
      </Card>
      <MeterSwapDialog projectId={p.id} meter={swapping} onClose={() => setSwapping(null)} />

      <Card size="small" title={t('project.detail.history')} className="project-section">
        <History projectId={p.id} />
      </Card>

      <Suspense fallback={null}>
        {editing && <ProjectForm target={editing ? p.id : null} onClose={() => setEditing(false)} />}
      </Suspense>
      <BindDialog project={p} open={binding} onClose={() => setBinding(false)} onDone={refresh} />
    </div>
  );
}

/** A bound site on the map at its own coordinates (none when the site has no coordinates). */
function siteCoordinates(s: ProjectSite): SiteMapPoint | null {
  if (s.longitude === null || s.latitude === null) return null;
  return {
    id: s.siteId,
    name: s.siteName,
    longitude: s.longitude,
    latitude: s.latitude,
    status: s.live?.online ? (s.live.activeAlarms > 0 ? 'alarm' : 'online') : 'offline',
  };
}

function SitesTable({
  project: p,
  wide,
  canBind,
  onChanged,
}: {
  project: ProjectDetail;
  wide: boolean;
  canBind: boolean;
  onChanged: () => void;
}) {
  const { t, i18n } = useTranslation();
  useDayjsLocale();
  const [boundTo, setBoundTo] = useState<string | undefined>();
  const unbind = useMutation({
    mutationFn: (s: ProjectSite) => unbindProjectSite(p.id, s.siteId, boundTo),
    onSuccess: (_, s) => showSuccess(t('project.done.unbind', { site: s.siteName })),
    onSettled: onChanged,
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<ProjectSite>>(() => {
    const live = (s: ProjectSite) =>
      s.live ? (
        <span className="project-line">
          <Tag color={s.live.online ? 'success' : 'default'}>
            {s.live.online ? t('project.detail.online') : t('project.detail.offline')}
          </Tag>
          <span>
            {t('project.detail.soc')} {formatQuantity(s.live.socPct, '%')}
          </span>
          <span title={t('project.detail.powerHint')}>
            {t('project.detail.power')} {formatQuantity(s.live.batteryPowerKw, 'kW')}
          </span>
          <span>
            {t('project.detail.todayCharge')} {formatQuantity(s.live.todayChargeKwh, 'kWh')}
          </span>
          <span>
            {t('project.detail.todayDischarge')} {formatQuantity(s.live.todayDischargeKwh, 'kWh')}
          </span>
        </span>
      ) : (
        <span className="project-muted">—</span>
      );
    const period = (s: ProjectSite) => (
      <span className="project-nowrap">
        {s.boundFrom} ~ {s.boundTo ?? t('project.detail.bound')}
      </span>
    );
    const action = (s: ProjectSite) =>
      canBind && s.boundTo === null ? (
        <Popconfirm
          title={t('project.detail.unbindTitle', { site: s.siteName })}
          description={
            <div className="project-unbind">
              <div>{t('project.detail.unbindConfirm')}</div>
              <DatePicker
                size="small"
                onChange={(d) => setBoundTo(d ? d.format('YYYY-MM-DD') : undefined)}
                disabledDate={(d) => d.isBefore(dayjs(s.boundFrom), 'day')}
              />
            </div>
          }
          onOpenChange={(open) => open && setBoundTo(undefined)}
          onConfirm={() => unbind.mutateAsync(s).catch(() => undefined)}
          okButtonProps={{ 'data-testid': `project-unbind-ok-${s.siteId}` } as ButtonProps}
        >
          <Button size="small" danger data-testid={`project-unbind-${s.siteId}`}>
            {t('project.detail.unbind')}
          </Button>
        </Popconfirm>
      ) : null;
    if (!wide) {
      return [
        {
          key: 'site',
          title: t('project.field.site'),
          render: (_, s) => (
            <span className="project-stack project-phone-cell" data-testid={`project-site-${s.siteId}`}>
              <span className="project-strong">{s.siteName}</span>
              {period(s)}
              {live(s)}
              {action(s)}
            </span>
          ),
        },
      ];
    }
    return [
      {
        key: 'site',
        title: t('project.field.site'),
        render: (_, s) => (
          <span className="project-strong" data-testid={`project-site-${s.siteId}`}>
            {s.siteName}
          </span>
        ),
      },
      {
        key: 'period',
        title: `${t('project.detail.boundFrom')} ~ ${t('project.detail.boundTo')}`,
        render: (_, s) => period(s),
      },
      { key: 'live', title: t('project.detail.live'), render: (_, s) => live(s) },
      { key: 'actions', title: t('project.field.actions'), render: (_, s) => action(s) },
    ];
  }, [i18n.language, wide, canBind, p.id]);
  return (
    <div data-testid="project-sites">
      <Table<ProjectSite>
        size="small"
        rowKey="id"
        pagination={false}
        dataSource={p.sites}
        columns={columns}
        locale={{ emptyText: t('project.detail.noSites') }}
        {...(wide ? { scroll: { x: 'max-content' } } : { tableLayout: 'fixed' as const })}
      />
    </div>
  );
}

function BindDialog({
  project: p,
  open,
  onClose,
  onDone,
}: {
  project: ProjectDetail;
  open: boolean;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  useDayjsLocale();
  const [form] = Form.useForm<{ siteIds: number[]; boundFrom?: dayjs.Dayjs | null }>();
  const sites = useQuery({ queryKey: projectKeys.sites, queryFn: fetchSiteOptions, enabled: open });
  const bind = useMutation({
    mutationFn: (v: { siteIds: number[]; boundFrom?: dayjs.Dayjs | null }) =>
      bindProjectSites(p.id, v.siteIds, v.boundFrom ? v.boundFrom.format('YYYY-MM-DD') : undefined),
    onSuccess: () => {
      showSuccess(t('project.done.bind'));
      onClose();
    },
    onSettled: onDone,
  });
  return (
    <Modal
      open={open}
      title={t('project.detail.bindTitle')}
      onCancel={onClose}
      onOk={() => void form.validateFields().then((v) => bind.mutate(v))}
      confirmLoading={bind.isPending}
      okButtonProps={{ 'data-testid': 'project-bind-ok' } as ButtonProps}
      afterClose={() => form.resetFields()}
      destroyOnHidden
    >
      <Form form={form} layout="vertical">
        <Form.Item
          name="siteIds"
          label={t('project.detail.bindSites')}
          rules={[{ required: true, message: t('project.detail.bindRequired') }]}
        >
          <Select
            mode="multiple"
            showSearch={{ optionFilterProp: 'label' }}
            loading={sites.isLoading}
            options={(sites.data ?? [])
              .filter((s) => s.companyId === p.companyId || s.projectId === null)
              .map((s) => ({
                value: s.id,
                label: s.projectName
                  ? `${s.name}（${t('project.form.boundElsewhere', { project: s.projectName })}）`
                  : s.name,
                disabled: s.projectId !== null,
              }))}
            data-testid="project-bind-sites"
          />
        </Form.Item>
        <Form.Item
          name="boundFrom"
          label={t('project.form.boundFrom')}
          extra={t('project.form.boundFromHint')}
        >
          <DatePicker data-testid="project-bind-from" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

function History({ projectId }: { projectId: number }) {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const [page, setPage] = useState(1);
  const pageSize = 10;
  const query = useQuery({
    queryKey: projectKeys.history(projectId, page, pageSize),
    queryFn: () => fetchProjectHistory(projectId, page, pageSize),
  });
  const list = query.data?.list ?? [];
  if (!query.isLoading && list.length === 0) {
    return <Empty description={t('project.detail.noHistory')} image={Empty.PRESENTED_IMAGE_SIMPLE} />;
  }
  const fieldLabel = (field: string) =>
    i18n.exists(`project.field.${field}`) ? t(`project.field.${field}` as 'project.field.name') : field;
  return (
    <div data-testid="project-history">
      <Timeline
        items={list.map((h) => ({
          key: h.id,
          children: (
            <div className="project-history-item" data-testid="project-history-item" data-action={h.action}>
              <div className="project-line">
                <span className="project-strong">{PROJECT_CHANGE_ACTION_LABELS[h.action][lang]}</span>
                <span className="project-muted">{formatDateTime(Date.parse(h.at))}</span>
                <span className="project-muted">{h.userName ?? '—'}</span>
              </div>
              <ul className="project-changes">
                {h.changes.map((c, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: entries are fixed once written
                  <li key={i}>
                    <span className="project-muted">
                      {fieldLabel(c.field)}
                      {lang === 'zh' ? '：' : ': '}
                    </span>
                    {h.action !== 'create' && h.action !== 'bind' && (
                      <>
                        <span className="project-before">{historyValueText(c.field, c.before, lang)}</span>
                        {' → '}
                      </>
                    )}
                    <span>{historyValueText(c.field, c.after, lang)}</span>
                  </li>
                ))}
              </ul>
            </div>
          ),
        }))}
      />
      {(query.data?.total ?? 0) > pageSize && (
        <Pagination
          size="small"
          current={page}
          pageSize={pageSize}
          total={query.data?.total}
          onChange={setPage}
        />
      )}
    </div>
  );
}
