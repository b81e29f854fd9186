/**
 * Menu management calls (spec §7 `menu/menuList`, ours `menu/save|update|delete`; contract
 * `menuEndpoints`, shapes in api/menu.ts). Every function resolves with the answer's `data` or rejects with
 * `ApiError` after the client's spec §8 handling (catalogue text of 5037–5040).
 */
import { type MenuRow, menuEndpoints } from '@ess/contract';
import { request } from '@/shared/api/client';

/** Every stored menu row (directories, pages, buttons) with both titles, flat. */
export async function fetchMenuList(): Promise<MenuRow[]> {
  const data = await request(menuEndpoints.list, {});
  return data.list;
}

/** What the menu dialog sends (contract `menuInput`): a stored row without its id. */
export type MenuForm = Omit<MenuRow, 'id'>;

/**
 * `menu/save` (no id) or `menu/update`. Errors: 5037 not found, 5040 invalid parent (missing, a
 * button, or the entry itself or one below it), -100 naming the field.
 */
export function saveMenu(form: MenuForm, id?: number): Promise<unknown> {
  return id === undefined
    ? request(menuEndpoints.save, form)
    : request(menuEndpoints.update, { ...form, id });
}

/** `menu/delete`. Errors: 5037 not found, 5038 has children, 5039 built-in. */
export function deleteMenu(id: number): Promise<unknown> {
  return request(menuEndpoints.delete, { id });
}

/** TanStack Query keys of menu management. */
export const menuKeys = {
  list: ['menuList'] as const,
};
