/**
 * System → Departments (`system/dept/index`): the departments of one company (the caller's, or
 * the one chosen in the company picker when the caller sees several) as a tree
 * table (flat `department/departmentList` → `buildTree`), filtered by name in the browser
 * (matches keep their ancestors), with leader, phone, employees directly in the department,
 * status and creation time. Add a top-level department or a sub-department of a row, edit,
 * delete after confirming (the server refuses with 5001 / 5002 while sub-departments or
 * employees remain; the client shows its translated message). Buttons follow
 * system:dept:save|delete.
 * Test hooks: `dept-page`, `dept-filter`, `dept-toggle-expand`, `dept-refresh`, `dept-add`,
 * `dept-table` (rows `data-row-key` = id), `dept-add-child-<id>`, `dept-edit-<id>`,
 * `dept-delete-<id>` (and the dialog's).
 */
import { EditOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { type DepartmentRow, Perm } from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Empty, Grid, Input, Table, type TableColumnsType, Tooltip } from 'antd';
import { type Key, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { formatDateTime, formatNumber, NO_VALUE } from '@/shared/format';
import { DeleteAction } from '@/shared/ui/DeleteAction';
import { RefreshButton } from '@/shared/ui/ListToolbar';
import { deleteDepartment, fetchDepartments, orgPeopleKeys } from '../api';
import { CompanyPicker, useCompanyChoice } from '../CompanyPicker';
import { DepartmentDialog, type DepartmentDialogTarget } from '../components/DepartmentDialog';
import { StatusTag } from '../components/StatusTag';
import {
  type DepartmentNode,
  departmentForest,
  filterByName,
  parentIds,
  tableNodes,
} from '../departmentTree';
import '../org-people.css';

/** The departments view. */
export default function DepartmentsPage() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const canSave = usePermission(Perm.deptSave);
  const canDelete = usePermission(Perm.deptDelete);
  // On phones only the actions stay put, so the other columns have room to scroll.
  const wide = Grid.useBreakpoint().md ?? false;
  const [filter, setFilter] = useState('');
  const [dialog, setDialog] = useState<DepartmentDialogTarget | null>(null);
  const [companyId, setCompanyId] = useCompanyChoice();
  const query = useQuery({
    queryKey: orgPeopleKeys.departmentsOf(companyId),
    queryFn: () => fetchDepartments(companyId),
  });
  const rows = query.data ?? [];

  const tree = useMemo(() => tableNodes(departmentForest(query.data ?? [])), [query.data]);
  const shown = useMemo(() => filterByName(tree, filter), [tree, filter]);
  const expandable = useMemo(() => parentIds(shown), [shown]);
  const [expanded, setExpanded] = useState<readonly Key[]>([]);
  // Everything open when the data or the filter changes.
  useEffect(() => setExpanded(expandable), [expandable]);
  const allOpen = expandable.length > 0 && expanded.length >= expandable.length;

  const remove = useMutation({
    mutationFn: (d: DepartmentRow) => deleteDepartment(d.id),
    onSuccess: () => {
      showSuccess(t('departments.deleted'));
      void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.departments });
    },
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<DepartmentNode>>(() => {
    const cols: TableColumnsType<DepartmentNode> = [
      {
        key: 'name',
        title: t('departments.col.name'),
        fixed: wide ? 'left' : undefined,
        render: (_, d) => <span className="org-name">{d.name}</span>,
      },
      { key: 'leader', title: t('departments.col.leader'), render: (_, d) => d.leader ?? NO_VALUE },
      { key: 'phone', title: t('departments.col.phone'), render: (_, d) => d.phone ?? NO_VALUE },
      {
        key: 'employees',
        title: t('departments.col.employees'),
        align: 'right',
        render: (_, d) => formatNumber(d.employeeCount, 0),
      },
      {
        key: 'status',
        title: t('departments.col.status'),
        render: (_, d) => <StatusTag status={d.status} section="departments" />,
      },
      {
        key: 'createdAt',
        title: t('departments.col.createdAt'),
        render: (_, d) => <span className="org-time">{formatDateTime(Date.parse(d.createdAt))}</span>,
      },
    ];
    if (canSave || canDelete) {
      cols.push({
        key: 'actions',
        title: t('departments.col.actions'),
        fixed: 'right',
        render: (_, d) => (
          <span className="org-actions">
            {canSave && (
              <Tooltip title={t('departments.addChild')}>
                <Button
                  type="text"
                  size="small"
                  icon={<PlusOutlined />}
                  aria-label={`${t('departments.addChild')} ${d.name}`}
                  onClick={() => setDialog({ kind: 'add', parentId: d.id })}
                  data-testid={`dept-add-child-${d.id}`}
                />
              </Tooltip>
            )}
            {canSave && (
              <Tooltip title={t('common.edit')}>
                <Button
                  type="text"
                  size="small"
                  icon={<EditOutlined />}
                  aria-label={`${t('common.edit')} ${d.name}`}
                  onClick={() => setDialog({ kind: 'edit', department: d })}
                  data-testid={`dept-edit-${d.id}`}
                />
              </Tooltip>
            )}
            {canDelete && (
              <DeleteAction
                title={t('departments.delete')}
                description={t('departments.deleteConfirm', { name: d.name })}
                onConfirm={() => remove.mutateAsync(d).catch(() => undefined)}
                name={d.name}
                testId={`dept-delete-${d.id}`}
                okTestId="dept-delete-ok"
              />
            )}
          </span>
        ),
      });
    }
    return cols;
  }, [i18n.language, canSave, canDelete, wide]);

  return (
    <Card variant="borderless" className="org-page" data-testid="dept-page">
      <div className="org-toolbar">
        <CompanyPicker value={companyId} onChange={setCompanyId} />
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={t('departments.filterPlaceholder')}
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          className="org-toolbar__filter"
          data-testid="dept-filter"
        />
        <Button
          onClick={() => setExpanded(allOpen ? [] : expandable)}
          disabled={expandable.length === 0}
          data-testid="dept-toggle-expand"
        >
          {allOpen ? t('departments.collapseAll') : t('departments.expandAll')}
        </Button>
        <RefreshButton
          loading={query.isFetching && !query.isLoading}
          onClick={() => void query.refetch()}
          testId="dept-refresh"
        />
        <span className="org-toolbar__total">{t('departments.total', { count: rows.length })}</span>
        {canSave && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setDialog({ kind: 'add', parentId: null })}
            data-testid="dept-add"
          >
            {t('departments.add')}
          </Button>
        )}
      </div>
      <div data-testid="dept-table">
        <Table<DepartmentNode>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={shown}
          loading={query.isLoading}
          pagination={false}
          scroll={{ x: 'max-content' }}
          expandable={{ expandedRowKeys: expanded, onExpandedRowsChange: (keys) => setExpanded(keys) }}
          locale={{
            emptyText: (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={filter.trim() ? t('departments.noMatch') : t('departments.empty')}
              />
            ),
          }}
        />
      </div>
      <DepartmentDialog
        target={dialog}
        companyId={companyId}
        departments={rows}
        onClose={() => setDialog(null)}
      />
    </Card>
  );
}
