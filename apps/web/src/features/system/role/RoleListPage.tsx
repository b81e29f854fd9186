/**
 * System → Roles (`system/role/index`): the roles of one company (the caller's, or the one chosen
 * in the company picker when the caller sees several) with search (name or code, status) and
 * paging — name, code, company, data scope, status, employees holding it, administrator tag,
 * created — and per row edit, copy and delete (confirmed). Buttons follow the user's
 * permissions (system:role:save | copy | delete); an administrator role or one still held by
 * employees offers no delete (the server refuses with 5033 / 5032 anyway).
 * Test hooks: `role-page`, `role-search`, `role-filter-status`, `role-refresh`, `role-add`,
 * `role-table` (rows `data-row-key` = role id), `role-edit-<id>`, `role-copy-<id>`,
 * `role-delete-<id>` (and those of the dialogs).
 */
import { CopyOutlined, EditOutlined } from '@ant-design/icons';
import { type EnabledStatus, Perm, type RoleRow } from '@ess/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card, Grid, type TableColumnsType, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { CompanyPicker, useCompanyChoice } from '@/features/org-people';
import { showSuccess } from '@/shared/feedback';
import { formatDateTime } from '@/shared/format';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { deleteAction, RowActions } from '@/shared/ui/RowActions';
import { deleteRole, fetchRoles, type RoleQuery, roleKeys } from './api';
import { RoleCopyDialog } from './RoleCopyDialog';
import { RoleDialog } from './RoleDialog';
import './role.css';

/** The role management view. */
export default function RoleListPage() {
  const { t, i18n } = useTranslation();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const canSave = usePermission(Perm.roleSave);
  const canCopy = usePermission(Perm.roleCopy);
  const canDelete = usePermission(Perm.roleDelete);

  const [keyword, setKeyword] = useState('');
  const [status, setStatus] = useState<EnabledStatus | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [companyId, setCompanyId] = useCompanyChoice();
  const [dialog, setDialog] = useState<{ open: boolean; role: RoleRow | null }>({ open: false, role: null });
  const [copying, setCopying] = useState<{ open: boolean; role: RoleRow | null }>({
    open: false,
    role: null,
  });

  const q: RoleQuery = {
    companyId,
    ...page,
    ...(keyword ? { keyword } : {}),
    ...(status ? { status } : {}),
  };
  const query = useQuery({
    queryKey: roleKeys.list(q),
    queryFn: () => fetchRoles(q),
    placeholderData: keepPreviousData,
  });

  const remove = useMutation({
    mutationFn: (role: RoleRow) => deleteRole(role.id),
    onSuccess: () => {
      showSuccess(t('roles.deleted'));
      void queryClient.invalidateQueries({ queryKey: roleKeys.all });
    },
  });

  const withActions = canSave || canCopy || canDelete;

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<RoleRow>>(() => {
    const cols: TableColumnsType<RoleRow> = [
      {
        key: 'name',
        title: t('roles.field.name'),
        // On narrow screens only the actions stay in view: two fixed columns would cover the row.
        fixed: wide ? 'left' : undefined,
        render: (_, r) => (
          <span className="role-name">
            <span className="role-name__name">{r.name}</span>
            {(r.remark || r.isAdmin) && (
              <span className="role-name__remark">{r.remark || t('roles.adminRemark')}</span>
            )}
          </span>
        ),
      },
      { key: 'code', title: t('roles.field.code'), render: (_, r) => <code>{r.code}</code> },
      { key: 'company', title: t('roles.field.company'), dataIndex: 'companyName' },
      { key: 'scope', title: t('roles.field.dataScope'), render: (_, r) => t(`roles.scope.${r.dataScope}`) },
      {
        key: 'status',
        title: t('roles.field.status'),
        render: (_, r) => (
          <Tag color={r.status === 'enabled' ? 'green' : 'default'}>{t(`roles.status.${r.status}`)}</Tag>
        ),
      },
      {
        key: 'employees',
        title: t('roles.field.employees'),
        dataIndex: 'employeeCount',
        align: 'right',
      },
      {
        key: 'admin',
        title: t('roles.field.admin'),
        render: (_, r) => (r.isAdmin ? <Tag color="red">{t('roles.adminTag')}</Tag> : '—'),
      },
      {
        key: 'created',
        title: t('roles.field.created'),
        render: (_, r) => <span className="role-time">{formatDateTime(Date.parse(r.createdAt))}</span>,
      },
    ];
    if (withActions) {
      cols.push({
        key: 'actions',
        title: t('roles.field.actions'),
        fixed: 'right',
        render: (_, r) => (
          <RowActions
            className="role-actions"
            name={r.name}
            actions={[
              {
                key: 'edit',
                visible: canSave,
                label: t('common.edit'),
                icon: <EditOutlined />,
                onClick: () => setDialog({ open: true, role: r }),
                testId: `role-edit-${r.id}`,
              },
              {
                key: 'copy',
                visible: canCopy,
                label: t('roles.copy'),
                icon: <CopyOutlined />,
                onClick: () => setCopying({ open: true, role: r }),
                testId: `role-copy-${r.id}`,
              },
              deleteAction(t('common.delete'), {
                visible: canDelete,
                title: t('roles.delete'),
                description: t('roles.deleteConfirm', { name: r.name }),
                onConfirm: () => remove.mutateAsync(r).catch(() => undefined),
                testId: `role-delete-${r.id}`,
                blocked: r.isAdmin
                  ? t('roles.adminUndeletable')
                  : r.employeeCount > 0
                    ? t('roles.inUse')
                    : undefined,
              }),
            ]}
          />
        ),
      });
    }
    return cols;
  }, [i18n.language, canSave, canCopy, canDelete, withActions, wide]);

  const statusOptions: { value: EnabledStatus; label: string }[] = [
    { value: 'enabled', label: t('roles.status.enabled') },
    { value: 'disabled', label: t('roles.status.disabled') },
  ];

  return (
    <Card variant="borderless" className="role-page" data-testid="role-page">
      <ListToolbar<EnabledStatus>
        className="role-page__toolbar"
        before={
          <CompanyPicker
            value={companyId}
            onChange={(id) => {
              setCompanyId(id);
              setPage((p) => ({ ...p, pageNum: 1 }));
            }}
          />
        }
        keyword={{
          onSearch: (v) => {
            setKeyword(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          placeholder: t('roles.keyword'),
          className: 'role-page__keyword',
          testId: 'role-search',
        }}
        status={{
          value: status,
          onChange: (v) => {
            setStatus(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          options: statusOptions,
          placeholder: t('roles.allStatus'),
          ariaLabel: t('roles.field.status'),
          className: 'role-page__status',
          testId: 'role-filter-status',
        }}
        refresh={{
          loading: query.isFetching && !query.isLoading,
          onClick: () => void queryClient.invalidateQueries({ queryKey: roleKeys.all }),
          testId: 'role-refresh',
        }}
        add={
          canSave
            ? {
                label: t('roles.add'),
                onClick: () => setDialog({ open: true, role: null }),
                className: 'role-page__add',
                testId: 'role-add',
              }
            : undefined
        }
      />
      <div data-testid="role-table">
        <DataTable<RoleRow>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(total) => t('roles.total', { count: total })}
        />
      </div>
      <RoleDialog
        open={dialog.open}
        role={dialog.role}
        companyId={companyId}
        onClose={() => setDialog((d) => ({ ...d, open: false }))}
      />
      <RoleCopyDialog
        open={copying.open}
        role={copying.role}
        onClose={() => setCopying((c) => ({ ...c, open: false }))}
      />
    </Card>
  );
}
