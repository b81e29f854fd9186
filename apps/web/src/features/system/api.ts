/**
 * Menu management calls (spec §7 `menu/menuList`; shapes in @ess/contract api/menu.ts).
 */
import { ApiPath, type MenuRow } from '@ess/contract';
import { request } from '@/shared/api/client';
import { getCredentials } from '@/shared/storage/session';

/** Every stored menu row (directories, pages, buttons) with both titles, flat. */
export async function fetchMenuList(): Promise<MenuRow[]> {
  const { userId, companyId } = getCredentials();
  const data = await request<{ list: MenuRow[] }>(ApiPath.menuList, { userInfo: { userId, companyId } });
  return data.list;
}
