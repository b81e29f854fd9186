/**
 * Projects `/project/list` (issue 17 item 1; view `project/list/index`, menu 601,
 * project:project:list; spec §3 project fields, §4 statuses). Filters: name, status, income mode.
 * Per project: name (opens the detail), company, owner, status tag, mode, contract cycle, sites
 * bound now, investors. Actions by permission: edit (project:project:save; opens the form
 * drawer), details, delete (project:project:delete; asks first; with sites bound it is disabled
 * with the reason, the server refuses it too with 7002). On a phone each project is one column.
 * Test hooks: `project-page`, `project-search`, `project-filter-status`, `project-filter-mode`,
 * `project-refresh`, `project-add`, `project-table` (rows `data-row-key` = id),
 * `project-name-<id>`, `project-status-<id>` (`data-status`), `project-sites-<id>`,
 * `project-edit-<id>`, `project-view-<id>`, `project-delete-<id>`, `project-delete-ok-<id>`.
 */
import { EditOutlined, EyeOutlined } from '@ant-design/icons';
import {
  Perm,
  PROJECT_INCOME_MODE_LABELS,
  PROJECT_INCOME_MODES,
  PROJECT_STATUS_LABELS,
  PROJECT_STATUSES,
  type ProjectIncomeMode,
  type ProjectRow,
  type ProjectStatus,
} from '@ess/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card, Grid, Select, type TableColumnsType, Tag } from 'antd';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { currentLang } from '@/shared/i18n';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { deleteAction, RowActions } from '@/shared/ui/RowActions';
import { deleteProject, fetchProjects, type ProjectQuery, projectKeys } from '../api';
import { PROJECT_STATUS_COLORS, projectDetailPath } from '../model';
import '../project.css';

// The form (pickers, the map, the investors and meters tables) loads when first opened.
const ProjectForm = lazy(() => import('../components/ProjectForm').then((m) => ({ default: m.ProjectForm })));

export default function ProjectListPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canSave = usePermission(Perm.projectSave);
  const canDelete = usePermission(Perm.projectDelete);

  const [name, setName] = useState('');
  const [status, setStatus] = useState<ProjectStatus | undefined>();
  const [mode, setMode] = useState<ProjectIncomeMode | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [formUsed, setFormUsed] = useState(false);
  if (editing !== null && !formUsed) setFormUsed(true);

  const q: ProjectQuery = {
    ...page,
    ...(name ? { name } : {}),
    ...(status ? { status } : {}),
    ...(mode ? { incomeMode: mode } : {}),
  };
  const query = useQuery({
    queryKey: projectKeys.list(q),
    queryFn: () => fetchProjects(q),
    placeholderData: keepPreviousData,
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: projectKeys.all });

  const remove = useMutation({
    mutationFn: (p: ProjectRow) => deleteProject(p.id),
    onSuccess: (_, p) => showSuccess(t('project.done.delete', { name: p.name })),
    onSettled: refresh,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<ProjectRow>>(() => {
    const nameCell = (p: ProjectRow) => (
      <a
        className="project-strong project-name"
        href={projectDetailPath(p.id)}
        onClick={(e) => {
          e.preventDefault();
          navigate(projectDetailPath(p.id));
        }}
        data-testid={`project-name-${p.id}`}
      >
        {p.name}
      </a>
    );
    const statusTag = (p: ProjectRow) => (
      <Tag
        color={PROJECT_STATUS_COLORS[p.status]}
        data-testid={`project-status-${p.id}`}
        data-status={p.status}
      >
        {PROJECT_STATUS_LABELS[p.status][lang]}
      </Tag>
    );
    const cycle = (p: ProjectRow) => (
      <span className="project-nowrap">
        {p.contractStart} ~ {p.contractEnd}
      </span>
    );
    const actions = (p: ProjectRow) => (
      <RowActions
        className="project-actions"
        name={p.name}
        actions={[
          {
            key: 'view',
            label: t('project.view'),
            icon: <EyeOutlined />,
            onClick: () => navigate(projectDetailPath(p.id)),
            testId: `project-view-${p.id}`,
          },
          {
            key: 'edit',
            visible: canSave,
            label: t('project.edit'),
            icon: <EditOutlined />,
            onClick: () => setEditing(p.id),
            testId: `project-edit-${p.id}`,
          },
          deleteAction(t('common.delete'), {
            visible: canDelete,
            title: t('project.deleteTitle'),
            description: t('project.deleteConfirm', { name: p.name }),
            onConfirm: () => remove.mutateAsync(p).catch(() => undefined),
            testId: `project-delete-${p.id}`,
            okTestId: `project-delete-ok-${p.id}`,
            blocked: p.siteCount > 0 ? t('project.hasSitesNoDelete') : undefined,
          }),
        ]}
      />
    );
    const sites = (p: ProjectRow) => <span data-testid={`project-sites-${p.id}`}>{p.siteCount}</span>;
    if (!wide) {
      return [
        {
          key: 'project',
          title: t('project.field.name'),
          render: (_, p) => (
            <span className="project-stack project-phone-cell">
              <span className="project-line">
                {nameCell(p)}
                {statusTag(p)}
              </span>
              <span className="project-muted">
                {PROJECT_INCOME_MODE_LABELS[p.incomeMode][lang]} · {t('project.field.siteCount')} {sites(p)} ·{' '}
                {t('project.field.investors')} {p.investorCount}
              </span>
              <span className="project-muted">{cycle(p)}</span>
              {p.owner && (
                <span className="project-muted">
                  {t('project.field.owner')}: {p.owner.name}
                </span>
              )}
              {actions(p)}
            </span>
          ),
        },
      ];
    }
    return [
      { key: 'name', title: t('project.field.name'), fixed: 'left', render: (_, p) => nameCell(p) },
      { key: 'company', title: t('project.field.company'), render: (_, p) => p.companyName },
      { key: 'owner', title: t('project.field.owner'), render: (_, p) => p.owner?.name ?? '—' },
      { key: 'status', title: t('project.field.status'), render: (_, p) => statusTag(p) },
      {
        key: 'mode',
        title: t('project.field.incomeMode'),
        render: (_, p) => PROJECT_INCOME_MODE_LABELS[p.incomeMode][lang],
      },
      { key: 'cycle', title: t('project.field.cycle'), render: (_, p) => cycle(p) },
      { key: 'sites', title: t('project.field.siteCount'), align: 'right', render: (_, p) => sites(p) },
      {
        key: 'investors',
        title: t('project.field.investors'),
        align: 'right',
        render: (_, p) => p.investorCount,
      },
      { key: 'actions', title: t('project.field.actions'), fixed: 'right', render: (_, p) => actions(p) },
    ];
  }, [i18n.language, wide, canSave, canDelete]);

  return (
    <Card variant="borderless" className="project-page" data-testid="project-page">
      <ListToolbar<ProjectStatus>
        className="project-toolbar"
        keyword={{
          onSearch: (v) => {
            setName(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          placeholder: t('project.keyword'),
          className: 'project-toolbar__keyword',
          testId: 'project-search',
        }}
        before={
          <Select<ProjectIncomeMode>
            allowClear
            value={mode}
            onChange={(v) => {
              setMode(v);
              setPage((p) => ({ ...p, pageNum: 1 }));
            }}
            options={PROJECT_INCOME_MODES.map((m) => ({
              value: m,
              label: PROJECT_INCOME_MODE_LABELS[m][lang],
            }))}
            placeholder={t('project.allModes')}
            aria-label={t('project.field.incomeMode')}
            className="project-toolbar__select"
            data-testid="project-filter-mode"
          />
        }
        status={{
          value: status,
          onChange: (v) => {
            setStatus(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          options: PROJECT_STATUSES.map((s) => ({ value: s, label: PROJECT_STATUS_LABELS[s][lang] })),
          placeholder: t('project.allStatuses'),
          ariaLabel: t('project.field.status'),
          className: 'project-toolbar__select',
          testId: 'project-filter-status',
        }}
        refresh={{
          loading: query.isFetching && !query.isLoading,
          onClick: refresh,
          testId: 'project-refresh',
        }}
        add={
          canSave
            ? {
                label: t('project.add'),
                onClick: () => setEditing('new'),
                className: 'project-toolbar__add',
                testId: 'project-add',
              }
            : undefined
        }
      />
      <div data-testid="project-table">
        <DataTable<ProjectRow>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(n) => t('project.total', { count: n })}
          {...(wide ? {} : { scroll: {}, tableLayout: 'fixed' as const })}
          emptyText={t('project.empty')}
        />
      </div>
      <Suspense fallback={null}>
        {formUsed && (
          <ProjectForm
            target={editing}
            onClose={() => setEditing(null)}
            onCreated={(id) => navigate(projectDetailPath(id))}
          />
        )}
      </Suspense>
    </Card>
  );
}
