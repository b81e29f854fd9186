/**
 * Menu shapes (spec §2, §3): the tree that `user/getLanguageMenu` answers in one language, and
 * the full rows that `menu/menuList` answers for menu management.
 */
import { z } from 'zod';
import { userInfoEcho } from './envelope';

/** Directory (a group in the sidebar), page (a route), or button (a permission only). */
export const MENU_TYPES = ['directory', 'page', 'button'] as const;
export type MenuType = (typeof MENU_TYPES)[number];

/** Component value of a top-level entry that gets the page frame (spec §2). */
export const LAYOUT_COMPONENT = 'Layout';

/** Paths whose pages are kept alive by default (spec §2, §9). */
export const KEEP_ALIVE_PATHS: readonly string[] = ['development', 'zdjk'];

export const menuMetaSchema = z.object({
  title: z.string(),
  icon: z.string().nullable(),
  keepAlive: z.boolean(),
  noCache: z.boolean(),
  breadcrumb: z.boolean(),
  activeMenu: z.string().nullable(),
});
export type MenuMeta = z.infer<typeof menuMetaSchema>;

/** One entry of the caller's menu in one language (spec §3 "Menu item"). */
export interface MenuItem {
  id: number;
  parentId: number | null;
  name: string;
  path: string;
  component: string | null;
  vueName: string | null;
  icon: string | null;
  meta: MenuMeta;
  hidden: boolean;
  alwaysShow: boolean;
  redirect: string | null;
  type: MenuType;
  perms: string | null;
  children: MenuItem[];
}

export const menuItemSchema: z.ZodType<MenuItem> = z.lazy(() =>
  z.object({
    id: z.number().int(),
    parentId: z.number().int().nullable(),
    name: z.string(),
    path: z.string(),
    component: z.string().nullable(),
    vueName: z.string().nullable(),
    icon: z.string().nullable(),
    meta: menuMetaSchema,
    hidden: z.boolean(),
    alwaysShow: z.boolean(),
    redirect: z.string().nullable(),
    type: z.enum(MENU_TYPES),
    perms: z.string().nullable(),
    children: z.array(menuItemSchema),
  }),
);

export const getLanguageMenuRequest = z.object({
  userInfo: userInfoEcho,
  language: z.enum(['cn', 'en']).default('cn'),
});
export const getLanguageMenuResponse = z.object({ menuList: z.array(menuItemSchema) });

/** A stored menu row with both titles, for menu management (`menu/menuList`). */
export const menuRowSchema = z.object({
  id: z.number().int(),
  parentId: z.number().int().nullable(),
  type: z.enum(MENU_TYPES),
  sort: z.number().int(),
  path: z.string(),
  name: z.string(),
  component: z.string().nullable(),
  vueName: z.string().nullable(),
  icon: z.string().nullable(),
  titleZh: z.string(),
  titleEn: z.string(),
  keepAlive: z.boolean(),
  hidden: z.boolean(),
  alwaysShow: z.boolean(),
  redirect: z.string().nullable(),
  breadcrumb: z.boolean(),
  activeMenu: z.string().nullable(),
  perms: z.string().nullable(),
});
export type MenuRow = z.infer<typeof menuRowSchema>;

export const menuListRequest = z.object({ userInfo: userInfoEcho });
export const menuListResponse = z.object({ list: z.array(menuRowSchema) });
