/**
 * Role authority: a checkbox tree of the grantable menu entries (directories, pages, buttons)
 * with their type, as a form control (`value` / `onChange` = granted menu ids).
 *
 * Each box stands for its own entry, so a page can be granted without its buttons. Checking an
 * entry also checks everything below it and the entries above it (a button needs its page);
 * unchecking one unchecks everything below it. An entry left unchecked with something granted
 * below it shows half-checked. Locked entries (the caller may not grant them) keep their state,
 * and so do granted ids the tree does not list. `readOnly` (administrator roles) shows every
 * box checked and disabled.
 * Test hooks: `role-authority`, `role-authority-expand`, `role-authority-all`; node titles
 * `role-menu-<id>`.
 */
import { buildTree, type MenuType, type TreeNode } from '@ess/contract';
import { Button, Empty, Spin, Tag, Tree, type TreeDataNode } from 'antd';
import { type Key, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { GrantableMenu } from './grantable';

const TYPE_COLOR: Record<MenuType, string> = { directory: 'blue', page: 'green', button: 'orange' };

interface Props {
  menus: GrantableMenu[];
  loading: boolean;
  value?: number[];
  onChange?: (ids: number[]) => void;
  readOnly?: boolean;
}

interface Links {
  parentOf: Map<number, number | null>;
  childrenOf: Map<number, number[]>;
}

function linksOf(menus: GrantableMenu[]): Links {
  const known = new Set(menus.map((m) => m.id));
  const parentOf = new Map<number, number | null>();
  const childrenOf = new Map<number, number[]>();
  for (const m of menus) {
    const parent = m.parentId !== null && known.has(m.parentId) ? m.parentId : null;
    parentOf.set(m.id, parent);
    if (parent !== null) childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), m.id]);
  }
  return { parentOf, childrenOf };
}

function descendants(id: number, links: Links): number[] {
  return (links.childrenOf.get(id) ?? []).flatMap((c) => [c, ...descendants(c, links)]);
}

function ancestors(id: number, links: Links): number[] {
  const out: number[] = [];
  for (let p = links.parentOf.get(id) ?? null; p !== null; p = links.parentOf.get(p) ?? null) out.push(p);
  return out;
}

/** The authority tree; see the module comment. */
export function AuthorityTree({ menus, loading, value = [], onChange, readOnly = false }: Props) {
  const { t } = useTranslation();
  const links = useMemo(() => linksOf(menus), [menus]);
  const allIds = useMemo(() => menus.map((m) => m.id), [menus]);
  const unlockedIds = useMemo(() => menus.filter((m) => !m.locked).map((m) => m.id), [menus]);
  const parents = useMemo(() => [...links.childrenOf.keys()], [links]);
  /** Null until the user expands or collapses: everything open. */
  const [expanded, setExpanded] = useState<Key[] | null>(null);

  const treeData = useMemo(() => {
    const toData = (nodes: TreeNode<GrantableMenu>[]): TreeDataNode[] =>
      nodes.map((n) => ({
        key: n.id,
        title: (
          <span className="role-authority__node" data-testid={`role-menu-${n.id}`}>
            {n.title}
            <Tag color={TYPE_COLOR[n.type]} className="role-authority__type">
              {t(`menus.type.${n.type}`)}
            </Tag>
          </span>
        ),
        disableCheckbox: n.locked,
        children: n.children.length > 0 ? toData(n.children) : undefined,
      }));
    return toData(buildTree(menus));
  }, [menus, t]);

  const checked = readOnly ? allIds : value;
  const halfChecked = useMemo(() => {
    if (readOnly) return [];
    const on = new Set(value);
    const half = new Set<number>();
    for (const id of value) for (const a of ancestors(id, links)) if (!on.has(a)) half.add(a);
    return [...half];
  }, [readOnly, value, links]);

  /** Send the new checked ids: locked entries and ids not in the tree keep their state. */
  const emit = (on: Set<number>) => {
    const open = new Set(unlockedIds);
    onChange?.([...unlockedIds.filter((x) => on.has(x)), ...value.filter((x) => !open.has(x))]);
  };

  const toggle = (id: number, on: boolean) => {
    const next = new Set(value);
    const below = descendants(id, links);
    if (on) for (const x of [id, ...below, ...ancestors(id, links)]) next.add(x);
    else for (const x of [id, ...below]) next.delete(x);
    emit(next);
  };

  if (loading) return <Spin className="role-authority__loading" />;
  if (menus.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />;

  const allOn = unlockedIds.every((x) => value.includes(x));
  const expandedKeys = expanded ?? parents;

  return (
    <div className="role-authority" data-testid="role-authority">
      <div className="role-authority__toolbar">
        <Button
          size="small"
          type="link"
          onClick={() => setExpanded(expandedKeys.length > 0 ? [] : parents)}
          data-testid="role-authority-expand"
        >
          {expandedKeys.length > 0 ? t('menus.collapseAll') : t('menus.expandAll')}
        </Button>
        {!readOnly && (
          <Button
            size="small"
            type="link"
            onClick={() => emit(new Set(allOn ? [] : unlockedIds))}
            data-testid="role-authority-all"
          >
            {allOn ? t('roles.checkNone') : t('roles.checkAll')}
          </Button>
        )}
      </div>
      <div className="role-authority__tree">
        <Tree
          checkable
          checkStrictly
          selectable={false}
          disabled={readOnly}
          treeData={treeData}
          expandedKeys={expandedKeys}
          onExpand={(keys) => setExpanded(keys)}
          checkedKeys={{ checked, halfChecked }}
          onCheck={(_, info) => toggle(Number(info.node.key), info.checked)}
        />
      </div>
    </div>
  );
}
