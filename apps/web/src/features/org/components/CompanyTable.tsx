/**
 * Companies of one kind: search (name, contact or phone), status filter, server paging, and per
 * row the name, parent company, contact, phone, status, employees, sites, (agents) assigned
 * devices, creation time and actions. The status is a switch with the status permission;
 * disabling asks first, since the company's employees can no longer sign in and are signed out.
 * Test hooks: `company-search`, `company-filter-status`, `company-refresh`, `company-add`,
 * `company-table` (rows carry `data-row-key` = id), `company-status-<id>`,
 * `company-assigned-<id>`, `company-edit-<id>`, `company-assign-<id>`.
 */
import { ApartmentOutlined, EditOutlined } from '@ant-design/icons';
import type { CompanyKind, CompanyRow, EnabledStatus } from '@ess/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Empty, Switch, type TableColumnsType, Tag } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { confirmDialog, showSuccess } from '@/shared/feedback';
import { formatDateTime, formatNumber, NO_VALUE } from '@/shared/format';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { RowActions } from '@/shared/ui/RowActions';
import { type CompanyQuery, fetchCompanies, orgKeys, setCompanyStatus } from '../api';

interface Props {
  kind: CompanyKind;
  canStatus: boolean;
  canAssign: boolean;
  onAdd: (() => void) | null;
  onEdit: ((company: CompanyRow) => void) | null;
  onAssign: (company: CompanyRow) => void;
}

/** The company table; see the module comment. */
export function CompanyTable({ kind, canStatus, canAssign, onAdd, onEdit, onAssign }: Props) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<EnabledStatus | undefined>();
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });

  // Other filters start at the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the filters change
  useEffect(() => setPage((p) => ({ ...p, pageNum: 1 })), [status, keyword]);

  const q: CompanyQuery = { ...page, ...(keyword ? { keyword } : {}), ...(status ? { status } : {}) };
  const query = useQuery({
    queryKey: orgKeys.companies(kind, q),
    queryFn: () => fetchCompanies(kind, q),
    placeholderData: keepPreviousData,
  });

  const changeStatus = useMutation({
    mutationFn: ({ company, next }: { company: CompanyRow; next: EnabledStatus }) =>
      setCompanyStatus(kind, company.id, next),
    onSuccess: (_, { next }) => showSuccess(t('org.statusSaved', { status: t(`org.status.${next}`) })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: orgKeys.all }),
  });

  const toggle = async (company: CompanyRow, enable: boolean) => {
    if (!enable) {
      const ok = await confirmDialog({
        title: t('org.disableTitle', { name: company.name }),
        content: t('org.disableConfirm'),
        okText: t('org.status.disabled'),
        cancelText: t('common.cancel'),
      });
      if (!ok) return;
    }
    changeStatus.mutate({ company, next: enable ? 'enabled' : 'disabled' });
  };
  const pendingId = changeStatus.isPending ? changeStatus.variables.company.id : null;

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<CompanyRow>>(() => {
    const count = (n: number) => formatNumber(n, 0);
    const cols: TableColumnsType<CompanyRow> = [
      {
        key: 'name',
        title: t('org.field.name'),
        fixed: 'left',
        render: (_, c) => <span className="company-name">{c.name}</span>,
      },
      {
        key: 'parent',
        title: t('org.field.parent'),
        responsive: ['md'],
        render: (_, c) => c.parentName ?? NO_VALUE,
      },
      { key: 'contact', title: t('org.field.contact'), render: (_, c) => c.contact ?? NO_VALUE },
      {
        key: 'phone',
        title: t('org.field.phone'),
        render: (_, c) => (c.phone ? <span className="company-phone">{c.phone}</span> : NO_VALUE),
      },
      {
        key: 'status',
        title: t('org.field.status'),
        render: (_, c) =>
          canStatus ? (
            <Switch
              checked={c.status === 'enabled'}
              loading={pendingId === c.id}
              checkedChildren={t('org.status.enabled')}
              unCheckedChildren={t('org.status.disabled')}
              onChange={(on) => void toggle(c, on)}
              aria-label={`${t('org.field.status')} ${c.name}`}
              data-testid={`company-status-${c.id}`}
            />
          ) : (
            <Tag color={c.status === 'enabled' ? 'green' : 'default'} data-testid={`company-status-${c.id}`}>
              {t(`org.status.${c.status}`)}
            </Tag>
          ),
      },
      {
        key: 'employees',
        title: t('org.field.employees'),
        align: 'right',
        render: (_, c) => count(c.employeeCount),
      },
      { key: 'sites', title: t('org.field.sites'), align: 'right', render: (_, c) => count(c.siteCount) },
    ];
    if (kind === 'agent') {
      cols.push({
        key: 'assigned',
        title: t('org.field.assigned'),
        align: 'right',
        render: (_, c) => (
          <span data-testid={`company-assigned-${c.id}`}>{count(c.assignedDeviceCount)}</span>
        ),
      });
    }
    cols.push({
      key: 'createdAt',
      title: t('org.field.createdAt'),
      responsive: ['lg'],
      render: (_, c) => <span className="company-time">{formatDateTime(Date.parse(c.createdAt))}</span>,
    });
    const assign = kind === 'agent' && canAssign;
    if (onEdit || assign) {
      cols.push({
        key: 'actions',
        title: t('org.field.actions'),
        fixed: 'right',
        render: (_, c) => (
          <RowActions
            name={c.name}
            actions={[
              {
                key: 'edit',
                visible: !!onEdit,
                label: t('common.edit'),
                icon: <EditOutlined />,
                onClick: () => onEdit?.(c),
                testId: `company-edit-${c.id}`,
              },
              {
                key: 'assign',
                visible: assign,
                label: t('org.assign.action'),
                icon: <ApartmentOutlined />,
                onClick: () => onAssign(c),
                testId: `company-assign-${c.id}`,
              },
            ]}
          />
        ),
      });
    }
    return cols;
  }, [i18n.language, kind, canStatus, canAssign, onEdit, onAssign, pendingId]);

  const one = t(`org.one.${kind}`);
  const filtered = status !== undefined || keyword !== '';

  return (
    <>
      <ListToolbar<EnabledStatus>
        className="company-toolbar"
        keyword={{
          onSearch: setKeyword,
          placeholder: t('org.keyword'),
          className: 'company-toolbar__keyword',
          testId: 'company-search',
        }}
        status={{
          value: status,
          onChange: setStatus,
          options: [
            { value: 'enabled', label: t('org.status.enabled') },
            { value: 'disabled', label: t('org.status.disabled') },
          ],
          placeholder: t('org.allStatus'),
          ariaLabel: t('org.field.status'),
          className: 'company-toolbar__status',
          testId: 'company-filter-status',
        }}
        refresh={{
          loading: query.isFetching && !query.isLoading,
          onClick: () => void queryClient.invalidateQueries({ queryKey: orgKeys.all }),
          testId: 'company-refresh',
        }}
        add={
          onAdd && {
            label: t('org.add', { one }),
            onClick: onAdd,
            className: 'company-toolbar__add',
            testId: 'company-add',
          }
        }
      />
      <div data-testid="company-table">
        <DataTable<CompanyRow>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(total) => t('org.total', { count: total })}
          emptyText={
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={filtered ? t('org.noMatch', { one }) : t('org.empty', { one })}
            />
          }
        />
      </div>
    </>
  );
}
