/**
 * Left column of the employee screen: "all employees", then the company's department tree
 * (filterable by name; matches keep their ancestors). Choosing a department lists its
 * employees and those of the departments below it (the server's `departmentId` filter).
 * Test hooks: `dept-tree`, `dept-tree-filter`, `dept-tree-all`, `dept-node-<id>`.
 */
import { ApartmentOutlined, SearchOutlined, TeamOutlined } from '@ant-design/icons';
import type { DepartmentRow } from '@ess/contract';
import { Empty, Input, Skeleton, Tree, type TreeDataNode } from 'antd';
import { type Key, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  type DepartmentNode,
  departmentForest,
  filterByName,
  parentIds,
  tableNodes,
} from '../departmentTree';

interface Props {
  departments: readonly DepartmentRow[];
  loading: boolean;
  /** The chosen department; null for all employees. */
  selected: number | null;
  onSelect: (departmentId: number | null) => void;
}

function toTreeData(nodes: readonly DepartmentNode[]): TreeDataNode[] {
  return nodes.map((n) => ({
    key: n.id,
    title: (
      <span data-testid={`dept-node-${n.id}`}>
        {n.name}
        {n.employeeCount > 0 && <span className="dept-node__count">{n.employeeCount}</span>}
      </span>
    ),
    children: n.children ? toTreeData(n.children) : undefined,
  }));
}

/** The department column; see the module comment. */
export function DepartmentTreePanel({ departments, loading, selected, onSelect }: Props) {
  const { t } = useTranslation();
  const [filter, setFilter] = useState('');
  const tree = useMemo(() => tableNodes(departmentForest(departments)), [departments]);
  const shown = useMemo(() => filterByName(tree, filter), [tree, filter]);
  const treeData = useMemo(() => toTreeData(shown), [shown]);
  const [expanded, setExpanded] = useState<Key[]>([]);
  // Everything open when the data or the filter changes.
  useEffect(() => setExpanded(parentIds(shown)), [shown]);

  return (
    <aside className="org-panel dept-panel" aria-label={t('employees.departments')}>
      <h2 className="dept-panel__title">
        <ApartmentOutlined /> {t('employees.departments')}
      </h2>
      <Input
        allowClear
        size="small"
        prefix={<SearchOutlined />}
        placeholder={t('employees.departmentFilter')}
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        data-testid="dept-tree-filter"
      />
      <button
        type="button"
        className={selected === null ? 'dept-panel__all dept-panel__all--active' : 'dept-panel__all'}
        aria-pressed={selected === null}
        onClick={() => onSelect(null)}
        data-testid="dept-tree-all"
      >
        <TeamOutlined /> {t('employees.allDepartments')}
      </button>
      <div className="dept-panel__tree" data-testid="dept-tree">
        {loading ? (
          <Skeleton active paragraph={{ rows: 4 }} title={false} />
        ) : treeData.length === 0 ? (
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            description={filter.trim() ? t('departments.noMatch') : t('departments.empty')}
          />
        ) : (
          <Tree
            blockNode
            treeData={treeData}
            expandedKeys={expanded}
            onExpand={(keys) => setExpanded(keys)}
            selectedKeys={selected === null ? [] : [selected]}
            onSelect={(keys) => onSelect(keys.length > 0 ? Number(keys[0]) : null)}
          />
        )}
      </div>
      <p className="dept-panel__hint">{t('employees.subDepartmentsHint')}</p>
    </aside>
  );
}
