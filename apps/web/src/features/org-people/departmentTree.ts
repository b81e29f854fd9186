/**
 * Department trees from the server's flat list (contract `buildTree`): for the tree table,
 * the parent picker (TreeSelect) and the employee screen's filter tree. Siblings are ordered by
 * `sort`, then id.
 */
import { buildTree, type DepartmentRow, type TreeNode } from '@ess/contract';

/** A tree-table row: the department with children (absent on leaves, so antd shows no expander). */
export interface DepartmentNode extends DepartmentRow {
  children?: DepartmentNode[];
}

/** An option of antd TreeSelect. */
export interface DepartmentOption {
  value: number;
  title: string;
  disabled: boolean;
  children: DepartmentOption[];
}

/** The forest of `rows`; `disabledId` and everything below it are marked disabled (spec §3). */
export function departmentForest(
  rows: readonly DepartmentRow[],
  disabledId?: number | null,
): TreeNode<DepartmentRow>[] {
  const sorted = [...rows].sort((a, b) => a.sort - b.sort || a.id - b.id);
  return buildTree(sorted, disabledId);
}

/** Rows for the tree table. */
export function tableNodes(forest: readonly TreeNode<DepartmentRow>[]): DepartmentNode[] {
  return forest.map(({ children, disabled: _d, ...row }) =>
    children.length > 0 ? { ...row, children: tableNodes(children) } : row,
  );
}

/** Nodes whose name contains `needle` (case-insensitive), with their ancestors; all when empty. */
export function filterByName(nodes: readonly DepartmentNode[], needle: string): DepartmentNode[] {
  const wanted = needle.trim().toLowerCase();
  if (!wanted) return [...nodes];
  const out: DepartmentNode[] = [];
  for (const node of nodes) {
    const children = node.children ? filterByName(node.children, wanted) : [];
    if (node.name.toLowerCase().includes(wanted) || children.length > 0) {
      out.push({ ...node, children: children.length > 0 ? children : undefined });
    }
  }
  return out;
}

/** Ids of the nodes that have children (to expand them all). */
export function parentIds(nodes: readonly DepartmentNode[]): number[] {
  return nodes.flatMap((n) => (n.children ? [n.id, ...parentIds(n.children)] : []));
}

/**
 * TreeSelect options of every department. On edit pass the department's id: it and its
 * sub-departments are shown disabled, as they cannot be its parent (the server answers 5003).
 */
export function departmentOptions(
  rows: readonly DepartmentRow[],
  disabledId?: number | null,
): DepartmentOption[] {
  const toOptions = (forest: readonly TreeNode<DepartmentRow>[]): DepartmentOption[] =>
    forest.map((n) => ({
      value: n.id,
      title: n.name,
      disabled: n.disabled,
      children: toOptions(n.children),
    }));
  return toOptions(departmentForest(rows, disabledId));
}
