/**
 * Menu tree utilities (spec §3: "A flat list can be turned into a tree by id and parentId,
 * marking each node disabled if it is, or is a child of, a given node").
 */

/** The least a node needs to take part in a tree. */
export interface FlatNode {
  id: number;
  parentId: number | null;
}

export type TreeNode<T extends FlatNode> = T & { children: TreeNode<T>[]; disabled: boolean };

/**
 * Turn a flat list into a forest by `id` / `parentId`.
 *
 * - Roots are nodes whose `parentId` is null, 0 or names no node in the list.
 * - Siblings keep the order of the input list (sort it first if order matters).
 * - A node is `disabled` when it is `disabledId` or a descendant of it; every other node is not.
 * - A cycle in the input (a node that is its own ancestor) is broken: the nodes on the cycle
 *   become roots rather than vanishing; nodes hanging below the cycle stay under their parent.
 *
 * @param list flat nodes; not modified
 * @param disabledId the id whose subtree is marked disabled, if any
 */
export function buildTree<T extends FlatNode>(list: readonly T[], disabledId?: number | null): TreeNode<T>[] {
  const byId = new Map<number, TreeNode<T>>();
  for (const item of list) byId.set(item.id, { ...item, children: [], disabled: false });

  const parentOf = (node: TreeNode<T>): TreeNode<T> | undefined =>
    node.parentId === null || node.parentId === 0 || node.parentId === node.id
      ? undefined
      : byId.get(node.parentId);

  /** True when walking up from `node` comes back to it (the node is on a cycle). */
  const isInCycle = (node: TreeNode<T>): boolean => {
    const seen = new Set<number>();
    for (let p = parentOf(node); p; p = parentOf(p)) {
      if (p.id === node.id) return true;
      if (seen.has(p.id)) return false; // a cycle above, not through this node
      seen.add(p.id);
    }
    return false;
  };

  const roots: TreeNode<T>[] = [];
  for (const item of list) {
    const node = byId.get(item.id)!;
    const parent = isInCycle(node) ? undefined : parentOf(node);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }

  if (disabledId !== undefined && disabledId !== null) {
    const start = byId.get(disabledId);
    const stack = start ? [start] : [];
    while (stack.length > 0) {
      const node = stack.pop()!;
      node.disabled = true;
      stack.push(...node.children);
    }
  }
  return roots;
}

/** Depth-first list of a forest's nodes (parents before children). */
export function flattenTree<T extends { children: T[] }>(forest: readonly T[]): T[] {
  const out: T[] = [];
  const walk = (nodes: readonly T[]) => {
    for (const n of nodes) {
      out.push(n);
      walk(n.children);
    }
  };
  walk(forest);
  return out;
}
