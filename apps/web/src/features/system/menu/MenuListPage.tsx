/**
 * System → Menus (`system/menu/index`): tree table of every menu row from `menu/menuList` —
 * title in the UI language, type, path, component, permission string, icon, sort, hidden and
 * keep-alive flags. A filter keeps matching rows and their ancestors. With system:menu:save an
 * entry can be added at the top level or below a directory or page ("add child") and edited;
 * with system:menu:delete one without children can be deleted (confirmed). Built-in entries
 * (seeded, ids below {@link FIRST_CUSTOM_MENU_ID}) cannot be deleted (5039): hide them instead.
 * After a change the sidebar is rebuilt from the caller's refetched menu.
 * Test hooks: `menu-list`, `menu-filter`, `menu-refresh`, `menu-toggle-expand`, `menu-add`,
 * `menu-add-child-<id>`, `menu-edit-<id>`, `menu-delete-<id>`; rows carry `data-row-key` =
 * menu id (antd); the dialog's in MenuDialog.tsx.
 */
import {
  DeleteOutlined,
  EditOutlined,
  PlusOutlined,
  PlusSquareOutlined,
  ReloadOutlined,
  SearchOutlined,
} from '@ant-design/icons';
import {
  buildTree,
  FIRST_CUSTOM_MENU_ID,
  type MenuRow,
  type MenuType,
  Perm,
  type TreeNode,
} from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  Card,
  Input,
  Popconfirm,
  Table,
  type TableColumnsType,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { type Key, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { refreshMenu, usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { currentLang } from '@/shared/i18n';
import { hasIcon, menuIcon } from '@/shared/icons';
import { deleteMenu, fetchMenuList, menuKeys } from '../api';
import { MenuDialog } from './MenuDialog';
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

/** Delete with a confirm; disabled, saying why, for built-in entries and entries with children. */
function DeleteButton({
  row,
  hasChildren,
  onConfirm,
}: {
  row: MenuRow;
  hasChildren: boolean;
  onConfirm: () => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const blocked =
    row.id < FIRST_CUSTOM_MENU_ID ? t('menus.builtIn') : hasChildren ? t('menus.hasChildren') : null;
  const button = (
    <Button
      type="text"
      size="small"
      danger
      disabled={blocked !== null}
      icon={<DeleteOutlined />}
      aria-label={t('common.delete')}
      data-testid={`menu-delete-${row.id}`}
    />
  );
  if (blocked) return <Tooltip title={blocked}>{button}</Tooltip>;
  const title = currentLang() === 'en' ? row.titleEn : row.titleZh;
  return (
    <Popconfirm
      title={t('menus.delete')}
      description={t('menus.deleteConfirm', { title })}
      okText={t('common.delete')}
      okButtonProps={{ danger: true }}
      cancelText={t('common.cancel')}
      onConfirm={() => onConfirm().catch(() => undefined)}
    >
      <Tooltip title={t('common.delete')}>{button}</Tooltip>
    </Popconfirm>
  );
}

/** The menu management view. */
export default function MenuListPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const [filter, setFilter] = useState('');
  const queryClient = useQueryClient();
  const canSave = usePermission(Perm.menuSave);
  const canDelete = usePermission(Perm.menuDelete);
  const query = useQuery({ queryKey: menuKeys.list, queryFn: fetchMenuList });
  const [dialog, setDialog] = useState<{ open: boolean; menu: MenuRow | null; parentId: number | null }>({
    open: false,
    menu: null,
    parentId: null,
  });

  const remove = useMutation({
    mutationFn: (row: MenuRow) => deleteMenu(row.id),
    onSuccess: () => {
      showSuccess(t('menus.deleted'));
      void queryClient.invalidateQueries({ queryKey: menuKeys.list });
      void refreshMenu().catch(() => undefined);
    },
  });

  const tree = useMemo(() => {
    const rows = [...(query.data ?? [])].sort((a, b) => a.sort - b.sort || a.id - b.id);
    return toNodes(buildTree(rows));
  }, [query.data]);

  /** Ids of entries with children (in the whole list, whatever the filter shows). */
  const parentIds = useMemo(() => new Set((query.data ?? []).map((r) => r.parentId)), [query.data]);

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
        fixed: 'left',
        render: (_, row) => (
          <span className="menu-list__title">{lang === 'en' ? row.titleEn : row.titleZh}</span>
        ),
      },
      {
        key: 'icon',
        title: t('menus.colIcon'),
        render: (_, row) =>
          // The icon itself, named in its tooltip (the name is wide: the permission keys need the room);
          // a name the console has no icon for is written out.
          row.icon ? (
            hasIcon(row.icon) ? (
              <Tooltip title={row.icon}>
                <span
                  className="menu-list__icon"
                  role="img"
                  aria-label={row.icon}
                  data-testid={`menu-icon-${row.id}`}
                >
                  {menuIcon(row.icon)}
                </span>
              </Tooltip>
            ) : (
              <span className="menu-list__icon menu-list__icon--unknown">
                {menuIcon(row.icon)}
                <Typography.Text code>{row.icon}</Typography.Text>
              </span>
            )
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
      ...(canSave || canDelete
        ? [
            {
              key: 'actions',
              title: t('menus.colActions'),
              fixed: 'right' as const,
              render: (_: unknown, row: MenuNode) => (
                <span className="menu-list__actions">
                  {canSave && row.type !== 'button' && (
                    <Tooltip title={t('menus.addChild')}>
                      <Button
                        type="text"
                        size="small"
                        icon={<PlusSquareOutlined />}
                        aria-label={t('menus.addChild')}
                        onClick={() => setDialog({ open: true, menu: null, parentId: row.id })}
                        data-testid={`menu-add-child-${row.id}`}
                      />
                    </Tooltip>
                  )}
                  {canSave && (
                    <Tooltip title={t('common.edit')}>
                      <Button
                        type="text"
                        size="small"
                        icon={<EditOutlined />}
                        aria-label={t('common.edit')}
                        onClick={() => setDialog({ open: true, menu: row, parentId: row.parentId })}
                        data-testid={`menu-edit-${row.id}`}
                      />
                    </Tooltip>
                  )}
                  {canDelete && (
                    <DeleteButton
                      row={row}
                      hasChildren={parentIds.has(row.id)}
                      onConfirm={() => remove.mutateAsync(row)}
                    />
                  )}
                </span>
              ),
            },
          ]
        : []),
    ],
    [lang, i18n.language, canSave, canDelete, parentIds],
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
        {canSave && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setDialog({ open: true, menu: null, parentId: null })}
            data-testid="menu-add"
          >
            {t('menus.add')}
          </Button>
        )}
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
      <MenuDialog
        open={dialog.open}
        menu={dialog.menu}
        parentId={dialog.parentId}
        rows={query.data ?? []}
        onClose={() => setDialog((d) => ({ ...d, open: false }))}
      />
    </Card>
  );
}
