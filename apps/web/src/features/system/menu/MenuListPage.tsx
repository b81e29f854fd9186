/**
 * System → Menus (`system/menu/index`): read-only tree table of every menu row from
 * `menu/menuList` — title in the UI language, type, path, component, permission string, icon,
 * sort, hidden and keep-alive flags. A filter keeps matching rows and their ancestors.
 * Test hooks: `menu-list`, `menu-filter`, `menu-refresh`, `menu-toggle-expand`; rows carry
 * `data-row-key` = menu id (antd).
 */
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { buildTree, type MenuRow, type MenuType, type TreeNode } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Input, Table, type TableColumnsType, Tag, Typography } from 'antd';
import { type Key, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLang } from '@/shared/i18n';
import { hasIcon, menuIcon } from '@/shared/icons';
import { fetchMenuList } from '../api';
import './menu.css';

/** A table row: the menu row with children (absent on leaves, so antd shows no expander). */
interface MenuNode extends MenuRow {
  children?: MenuNode[];
}

const TYPE_COLOR: Record<MenuType, string> = { directory: 'blue', page: 'green', button: 'orange' };

function toNodes(tree: TreeNode<MenuRow>[]): MenuNode[] {
  return tree.map(({ children, disabled: _d, ...row }) =>
    children.length > 0 ? { ...row, children: toNodes(children) } : row,
  );
}

function filterNodes(nodes: MenuNode[], match: (n: MenuNode) => boolean): MenuNode[] {
  const out: MenuNode[] = [];
  for (const node of nodes) {
    const children = node.children ? filterNodes(node.children, match) : [];
    if (match(node) || children.length > 0) {
      out.push(children.length > 0 ? { ...node, children } : { ...node, children: undefined });
    }
  }
  return out;
}

function idsWithChildren(nodes: MenuNode[]): number[] {
  return nodes.flatMap((n) => (n.children ? [n.id, ...idsWithChildren(n.children)] : []));
}

/** The menu management view. */
export default function MenuListPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const [filter, setFilter] = useState('');
  const query = useQuery({ queryKey: ['menuList'], queryFn: fetchMenuList });

  const tree = useMemo(() => {
    const rows = [...(query.data ?? [])].sort((a, b) => a.sort - b.sort || a.id - b.id);
    return toNodes(buildTree(rows));
  }, [query.data]);

  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    if (!needle) return tree;
    return filterNodes(tree, (n) =>
      [n.titleZh, n.titleEn, n.path, n.perms ?? '', n.component ?? ''].some((v) =>
        v.toLowerCase().includes(needle),
      ),
    );
  }, [tree, filter]);

  const allExpandable = useMemo(() => idsWithChildren(shown), [shown]);
  const [expanded, setExpanded] = useState<readonly Key[]>([]);
  // Expand everything when the data or the filter changes.
  useEffect(() => setExpanded(allExpandable), [allExpandable]);
  const allOpen = expanded.length >= allExpandable.length && allExpandable.length > 0;

  const yesNo = (v: boolean) => (v ? <Tag color="red">{t('common.yes')}</Tag> : <Tag>{t('common.no')}</Tag>);

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns: TableColumnsType<MenuNode> = useMemo(
    () => [
      {
        key: 'title',
        title: t('menus.colTitle'),
        width: 180,
        fixed: 'left',
        render: (_, row) => (
          <span className="menu-list__title">{lang === 'en' ? row.titleEn : row.titleZh}</span>
        ),
      },
      {
        key: 'icon',
        title: t('menus.colIcon'),
        render: (_, row) =>
          row.icon ? (
            <span
              className={hasIcon(row.icon) ? 'menu-list__icon' : 'menu-list__icon menu-list__icon--unknown'}
            >
              {menuIcon(row.icon)}
              <Typography.Text code>{row.icon}</Typography.Text>
            </span>
          ) : (
            '—'
          ),
      },
      {
        key: 'type',
        title: t('menus.colType'),
        render: (_, row) => <Tag color={TYPE_COLOR[row.type]}>{t(`menus.type.${row.type}`)}</Tag>,
      },
      { key: 'sort', title: t('menus.colSort'), dataIndex: 'sort', align: 'right' },
      {
        key: 'path',
        title: t('menus.colPath'),
        dataIndex: 'path',
        render: (v: string) => v || '—',
      },
      {
        key: 'component',
        title: t('menus.colComponent'),
        render: (_, row) => (row.component ? <Typography.Text code>{row.component}</Typography.Text> : '—'),
      },
      {
        key: 'perms',
        title: t('menus.colPerms'),
        render: (_, row) => (row.perms ? <Typography.Text code>{row.perms}</Typography.Text> : '—'),
      },
      { key: 'hidden', title: t('menus.colHidden'), render: (_, row) => yesNo(row.hidden) },
      {
        key: 'keepAlive',
        title: t('menus.colKeepAlive'),
        render: (_, row) => yesNo(row.keepAlive),
      },
    ],
    [lang, i18n.language],
  );

  return (
    <Card variant="borderless" className="menu-list" data-testid="menu-list">
      <div className="menu-list__toolbar">
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={t('menus.filterPlaceholder')}
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          className="menu-list__filter"
          data-testid="menu-filter"
        />
        <Button onClick={() => setExpanded(allOpen ? [] : allExpandable)} data-testid="menu-toggle-expand">
          {allOpen ? t('menus.collapseAll') : t('menus.expandAll')}
        </Button>
        <Button
          icon={<ReloadOutlined />}
          loading={query.isFetching}
          onClick={() => void query.refetch()}
          data-testid="menu-refresh"
        >
          {t('common.refresh')}
        </Button>
        <span className="menu-list__total">{t('menus.total', { count: query.data?.length ?? 0 })}</span>
      </div>
      <Table<MenuNode>
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={shown}
        loading={query.isLoading}
        pagination={false}
        scroll={{ x: 'max-content' }}
        expandable={{ expandedRowKeys: expanded, onExpandedRowsChange: (keys) => setExpanded(keys) }}
      />
    </Card>
  );
}
