/**
 * The menu entries a role may be granted, as a flat list for the role authority tree.
 *
 * With `system:menu:list` they are every menu row (directories, pages, buttons) from
 * `menu/menuList`, titled in the UI language. Without it the caller's own menu (the tree that
 * `user/getLanguageMenu` answered at sign-in, already in the UI language) stands in: it holds
 * directories and pages only, so buttons cannot be granted from it.
 *
 * The server refuses grants the caller may not make, so those entries are `locked` (shown, not
 * changeable): a caller who is not an administrator may grant only entries it holds itself
 * (known here by their permission string: entries without one, such as directories, stay
 * locked), and platform-only entries go only to roles of the caller's own company (only the
 * platform sees them).
 */
import { ALL_PERMISSIONS, type MenuItem, type MenuType, Perm } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { usePermission, useSession } from '@/features/auth';
import { currentLang } from '@/shared/i18n';
import { useRouteTable } from '@/shared/routing';
import { getCredentials } from '@/shared/storage/session';
import { fetchMenuList, menuKeys } from '../api';

/** One grantable entry, in display order. */
export interface GrantableMenu {
  id: number;
  parentId: number | null;
  type: MenuType;
  title: string;
  /** The caller may not grant or take it away. */
  locked: boolean;
}

interface Entry {
  id: number;
  parentId: number | null;
  type: MenuType;
  title: string;
  perms: string | null;
  platformOnly: boolean;
}

function flattenMenu(items: readonly MenuItem[]): Entry[] {
  return items.flatMap((m) => [
    {
      id: m.id,
      parentId: m.parentId,
      type: m.type,
      title: m.meta.title,
      perms: m.perms,
      platformOnly: false,
    },
    ...flattenMenu(m.children),
  ]);
}

/**
 * The grantable entries for a role of `roleCompanyId` (the caller's company for a new role);
 * `ownMenuOnly` when they come from the caller's menu (no buttons).
 */
export function useGrantableMenus(
  enabled: boolean,
  roleCompanyId: number | null,
): { menus: GrantableMenu[]; loading: boolean; ownMenuOnly: boolean } {
  const canList = usePermission(Perm.menuList);
  const ownMenu = useRouteTable((s) => s.menu);
  const user = useSession((s) => s.user);
  const query = useQuery({ queryKey: menuKeys.list, queryFn: fetchMenuList, enabled: enabled && canList });
  const lang = currentLang();

  const menus = useMemo(() => {
    const entries: Entry[] = canList
      ? (query.data ?? []).map((m) => ({ ...m, title: lang === 'en' ? m.titleEn : m.titleZh }))
      : flattenMenu(ownMenu);
    const held = new Set(user?.permissions ?? []);
    const admin = Boolean(user?.isAdmin) || held.has(ALL_PERMISSIONS);
    const ownCompany = roleCompanyId === null || roleCompanyId === getCredentials().companyId;
    return entries.map(({ perms, platformOnly, ...m }) => ({
      ...m,
      locked: (platformOnly && !ownCompany) || (!admin && (perms === null || !held.has(perms))),
    }));
  }, [canList, ownMenu, query.data, lang, user, roleCompanyId]);

  return { menus, loading: canList && query.isLoading, ownMenuOnly: !canList };
}
