/**
 * The menu entries a role of one company may be granted, as a flat list for the role authority
 * tree: `role/menuOptions` for that company answers the rows (directories, pages, buttons, in
 * display order; titled here in the UI language) and which of them the caller may add or
 * remove. The others are `locked`: shown with their state, not changeable (the server checks
 * only entries that change, so a role keeps the locked entries it holds).
 */
import type { MenuType } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { currentLang } from '@/shared/i18n';
import { fetchRoleMenuOptions, roleKeys } from './api';

/** One grantable entry, in display order. */
export interface GrantableMenu {
  id: number;
  parentId: number | null;
  type: MenuType;
  title: string;
  /** The caller may not grant or take it away. */
  locked: boolean;
}

/** The entries for a role of `companyId` (the caller's company when undefined), fetched while `enabled`. */
export function useGrantableMenus(
  enabled: boolean,
  companyId: number | undefined,
): { menus: GrantableMenu[]; loading: boolean } {
  const query = useQuery({
    queryKey: roleKeys.menuOptions(companyId),
    queryFn: () => fetchRoleMenuOptions(companyId),
    enabled,
  });
  const lang = currentLang();

  const menus = useMemo(() => {
    const grantable = new Set(query.data?.grantable ?? []);
    return (query.data?.list ?? []).map((m) => ({
      id: m.id,
      parentId: m.parentId,
      type: m.type,
      title: lang === 'en' ? m.titleEn : m.titleZh,
      locked: !grantable.has(m.id),
    }));
  }, [query.data, lang]);

  return { menus, loading: query.isLoading };
}
