/**
 * Employees of the chosen company: of the chosen department (and the ones below it) or of the
 * whole company. Keyword (account, name or phone) and status filters, server paging
 * (`pageNum` / `pageSize`), and per row account, name, phone, e-mail, department, roles,
 * status, administrator flag, creation time and actions (account with name, phone with e-mail, stacked so that every column fits at
 * 1440 px). A tag beside the name says "awaiting first sign-in" (`awaitingSignIn`: a new
 * account, or an invited existing one — the list does not tell which) or, once active, that the
 * password set by an administrator is still to be changed. The status switch calls `employee/status`; disabling asks first, as it ends
 * the employee's sessions at once. One's own row can be neither disabled nor deleted (5057),
 * an administrator employee not deleted (5053): those controls are disabled with the reason.
 * Buttons follow system:employee:save|delete|status|resetPwd.
 * Test hooks: `employee-table` (rows `data-row-key` = employee id), `employee-filter-keyword`,
 * `employee-filter-status`, `employee-refresh`, `employee-add`, `employee-status-<id>`,
 * `employee-edit-<id>`, `employee-reset-<id>`, `employee-delete-<id>`, `employee-awaiting-<id>`.
 */
import { EditOutlined, LockOutlined } from '@ant-design/icons';
import type { EmployeeRow, EnabledStatus } from '@ess/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Empty, Grid, Switch, type TableColumnsType, Tag, Tooltip } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { confirmDialog, showSuccess } from '@/shared/feedback';
import { formatDateTime, NO_VALUE } from '@/shared/format';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { deleteAction, RowActions } from '@/shared/ui/RowActions';
import { deleteEmployee, type EmployeeQuery, fetchEmployees, orgPeopleKeys, setEmployeeStatus } from '../api';
import { StatusTag } from './StatusTag';

interface Props {
  /** The company listed (the caller's when undefined). */
  companyId: number | undefined;
  /** Null: every employee of the company. */
  departmentId: number | null;
  /** The signed-in user's own employee id. */
  selfId: number | null;
  canEdit: boolean;
  canDelete: boolean;
  canStatus: boolean;
  canReset: boolean;
  onAdd: (() => void) | null;
  onEdit: (employee: EmployeeRow) => void;
  onReset: (employee: EmployeeRow) => void;
}

/** The employee table; see the module comment. */
export function EmployeeTable({
  companyId,
  departmentId,
  selfId,
  canEdit,
  canDelete,
  canStatus,
  canReset,
  onAdd,
  onEdit,
  onReset,
}: Props) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  // On phones only the actions stay put, so the other columns have room to scroll.
  const wide = Grid.useBreakpoint().md ?? false;
  const [keyword, setKeyword] = useState('');
  const [status, setStatus] = useState<EnabledStatus | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });

  // Another company, department or other filters start at the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the filters change
  useEffect(() => setPage((p) => ({ ...p, pageNum: 1 })), [companyId, departmentId, keyword, status]);

  const q: EmployeeQuery = {
    companyId,
    ...page,
    ...(departmentId === null ? {} : { departmentId }),
    ...(keyword ? { keyword } : {}),
    ...(status ? { status } : {}),
  };
  const query = useQuery({
    queryKey: orgPeopleKeys.employeeList(q),
    queryFn: () => fetchEmployees(q),
    placeholderData: keepPreviousData,
  });

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.employees });
    void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.departments });
  };

  const changeStatus = useMutation({
    mutationFn: ({ employee, next }: { employee: EmployeeRow; next: EnabledStatus }) =>
      setEmployeeStatus(employee.id, next),
    onSuccess: (_, { employee, next }) => {
      showSuccess(
        next === 'enabled'
          ? t('employees.enabledDone', { name: employee.name })
          : t('employees.disabledDone', { name: employee.name }),
      );
      void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.employees });
    },
  });

  const remove = useMutation({
    mutationFn: (employee: EmployeeRow) => deleteEmployee(employee.id),
    onSuccess: () => {
      showSuccess(t('employees.deleted'));
      refresh();
    },
  });

  const pendingId = changeStatus.isPending ? changeStatus.variables?.employee.id : undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: texts depend on the language
  const columns = useMemo<TableColumnsType<EmployeeRow>>(() => {
    const toggle = async (employee: EmployeeRow, on: boolean) => {
      if (!on) {
        const ok = await confirmDialog({
          title: t('employees.disableTitle'),
          content: t('employees.disableConfirm', { name: employee.name }),
          okText: t('employees.disable'),
          cancelText: t('common.cancel'),
        });
        if (!ok) return;
      }
      changeStatus.mutate({ employee, next: on ? 'enabled' : 'disabled' });
    };

    const cols: TableColumnsType<EmployeeRow> = [
      {
        key: 'account',
        title: `${t('employees.col.account')} / ${t('employees.col.name')}`,
        fixed: wide ? 'left' : undefined,
        render: (_, e) => (
          <span className="employee-cell">
            <span className="employee-cell__account">{e.account}</span>
            <span className="employee-cell__sub">
              {e.name}
              {e.awaitingSignIn ? (
                <Tooltip title={t('employees.awaitingHint')}>
                  <Tag data-testid={`employee-awaiting-${e.id}`}>{t('employees.awaiting')}</Tag>
                </Tooltip>
              ) : (
                e.mustChangePassword && (
                  <Tooltip title={t('employees.mustChangeHint')}>
                    <Tag color="warning">{t('employees.mustChange')}</Tag>
                  </Tooltip>
                )
              )}
            </span>
          </span>
        ),
      },
      {
        key: 'contact',
        title: `${t('employees.col.phone')} / ${t('employees.col.email')}`,
        render: (_, e) =>
          e.phone || e.email ? (
            <span className="employee-cell">
              <span>{e.phone ?? NO_VALUE}</span>
              {e.email && (
                <span className="employee-cell__sub employee-cell__email" title={e.email}>
                  {e.email}
                </span>
              )}
            </span>
          ) : (
            NO_VALUE
          ),
      },
      {
        key: 'department',
        title: t('employees.col.department'),
        render: (_, e) => e.departmentName ?? NO_VALUE,
      },
      {
        key: 'roles',
        title: t('employees.col.roles'),
        render: (_, e) =>
          e.roles.length === 0 ? (
            NO_VALUE
          ) : (
            <span className="employee-roles">
              {e.roles.map((r) => (
                <Tag key={r.id} color="blue">
                  {r.name}
                </Tag>
              ))}
            </span>
          ),
      },
      {
        key: 'status',
        title: t('employees.col.status'),
        render: (_, e) => {
          if (!canStatus) return <StatusTag status={e.status} section="employees" />;
          const self = e.id === selfId;
          const control = (
            <Switch
              size="small"
              checked={e.status === 'enabled'}
              disabled={self}
              loading={pendingId === e.id}
              onChange={(on) => void toggle(e, on)}
              aria-label={`${t('employees.col.status')} ${e.account}`}
              data-testid={`employee-status-${e.id}`}
            />
          );
          return self ? <Tooltip title={t('employees.selfHint')}>{control}</Tooltip> : control;
        },
      },
      {
        key: 'admin',
        title: t('employees.col.admin'),
        render: (_, e) =>
          e.isAdmin ? <Tag color="red">{t('common.yes')}</Tag> : <Tag>{t('common.no')}</Tag>,
      },
      {
        key: 'createdAt',
        title: t('employees.col.createdAt'),
        width: 104,
        render: (_, e) => (
          <span className="org-time org-time--wrap">{formatDateTime(Date.parse(e.createdAt))}</span>
        ),
      },
    ];
    if (canEdit || canDelete || canReset) {
      cols.push({
        key: 'actions',
        title: t('employees.col.actions'),
        fixed: 'right',
        render: (_, e) => {
          const blocked =
            e.id === selfId ? t('employees.selfHint') : e.isAdmin ? t('employees.adminHint') : null;
          return (
            <RowActions
              className="org-actions"
              name={e.account}
              actions={[
                {
                  key: 'edit',
                  visible: canEdit,
                  label: t('common.edit'),
                  icon: <EditOutlined />,
                  onClick: () => onEdit(e),
                  testId: `employee-edit-${e.id}`,
                },
                {
                  key: 'reset',
                  visible: canReset,
                  label: t('employees.resetPassword'),
                  icon: <LockOutlined />,
                  onClick: () => onReset(e),
                  testId: `employee-reset-${e.id}`,
                },
                deleteAction(t('common.delete'), {
                  visible: canDelete,
                  title: t('employees.delete'),
                  description: t('employees.deleteConfirm', { name: e.name, account: e.account }),
                  onConfirm: () => remove.mutateAsync(e).catch(() => undefined),
                  testId: `employee-delete-${e.id}`,
                  blocked,
                }),
              ]}
            />
          );
        },
      });
    }
    return cols;
  }, [i18n.language, selfId, canEdit, canDelete, canStatus, canReset, onEdit, onReset, pendingId, wide]);

  const filtered = keyword !== '' || status !== undefined;

  return (
    <section className="org-panel" aria-label={t('employees.title')}>
      <ListToolbar<EnabledStatus>
        className="org-toolbar"
        keyword={{
          onSearch: setKeyword,
          placeholder: t('employees.keyword'),
          className: 'org-toolbar__filter',
          testId: 'employee-filter-keyword',
        }}
        status={{
          value: status,
          onChange: setStatus,
          options: [
            { value: 'enabled', label: t('employees.status.enabled') },
            { value: 'disabled', label: t('employees.status.disabled') },
          ],
          placeholder: t('employees.allStatus'),
          ariaLabel: t('employees.col.status'),
          className: 'org-toolbar__status',
          testId: 'employee-filter-status',
        }}
        refresh={{
          loading: query.isFetching && !query.isLoading,
          onClick: refresh,
          testId: 'employee-refresh',
        }}
        add={
          onAdd && {
            label: t('employees.add'),
            onClick: onAdd,
            className: 'org-toolbar__end',
            testId: 'employee-add',
          }
        }
      />
      <div data-testid="employee-table">
        <DataTable<EmployeeRow>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(total) => t('employees.total', { count: total })}
          emptyText={
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={filtered || departmentId !== null ? t('employees.noMatch') : t('employees.empty')}
            />
          }
        />
      </div>
    </section>
  );
}
