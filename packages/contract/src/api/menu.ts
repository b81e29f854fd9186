/**
 * Menu shapes (spec §2, §3): the tree that `user/getLanguageMenu` answers in one language, and
 * the full rows that `menu/menuList` answers for menu management.
 */
import { z } from 'zod';
import { userInfoEcho } from './envelope';
import { idSchema, TEXT_LIMITS } from './primitives';

/** Directory (a group in the sidebar), page (a route), or button (a permission only). */
export const MENU_TYPES = ['directory', 'page', 'button'] as const;
export type MenuType = (typeof MENU_TYPES)[number];

/** `module:resource:action`: 1–32 of a–z, A–Z, 0–9, '_' or '-' per part (RuoYi). */
export const PERMISSION_PATTERN = /^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9_-]{1,32}:[A-Za-z0-9_-]{1,32}$/;

/**
 * Menu ids below this are seeded by migrations (the id sequence starts here): they can be edited
 * and hidden but not deleted (5039).
 */
export const FIRST_CUSTOM_MENU_ID = 10_000;

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
  /** Only the platform operator's roles can hold it (e.g. menu management: menus are global). */
  platformOnly: z.boolean(),
});
export type MenuRow = z.infer<typeof menuRowSchema>;

export const menuListRequest = z.object({ userInfo: userInfoEcho });
export const menuListResponse = z.object({ list: z.array(menuRowSchema) });

/**
 * A menu row to store (menu management). A page needs a component; a button needs a
 * permission string and no path; a top-level directory or page is shown in the frame when its
 * component is `Layout`.
 */
const menuFields = z.object({
  userInfo: userInfoEcho,
  parentId: idSchema.nullish(),
  type: z.enum(MENU_TYPES),
  sort: z.number().int().min(0).max(9999).default(0),
  path: z.string().trim().max(TEXT_LIMITS.menuPath).default(''),
  name: z.string().trim().max(TEXT_LIMITS.menuName).default(''),
  component: z.string().trim().max(TEXT_LIMITS.menuComponent).nullish(),
  vueName: z.string().trim().max(TEXT_LIMITS.menuVueName).nullish(),
  icon: z.string().trim().max(TEXT_LIMITS.menuIcon).nullish(),
  titleZh: z.string().trim().min(1).max(TEXT_LIMITS.menuTitle),
  titleEn: z.string().trim().min(1).max(TEXT_LIMITS.menuTitle),
  keepAlive: z.boolean().default(false),
  hidden: z.boolean().default(false),
  alwaysShow: z.boolean().default(false),
  redirect: z.string().trim().max(TEXT_LIMITS.menuRedirect).nullish(),
  breadcrumb: z.boolean().default(true),
  activeMenu: z.string().trim().max(TEXT_LIMITS.menuActiveMenu).nullish(),
  perms: z
    .string()
    .trim()
    .regex(PERMISSION_PATTERN, 'module:resource:action')
    .nullish()
    .or(z.literal('').transform(() => null)),
  platformOnly: z.boolean().default(false),
});

/** The rules between fields, named by the field that breaks them. */
function checkMenuFields(m: z.infer<typeof menuFields>, ctx: z.RefinementCtx): void {
  if (m.type === 'page' && !m.component) {
    ctx.addIssue({ code: 'custom', path: ['component'], message: 'a page needs a component' });
  }
  if (m.type === 'button' && !m.perms) {
    ctx.addIssue({ code: 'custom', path: ['perms'], message: 'a button needs a permission string' });
  }
  if (m.type !== 'button' && m.path.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['path'], message: 'a directory or page needs a path' });
  }
}

export const menuInput = menuFields.superRefine(checkMenuFields);
export type MenuInput = z.infer<typeof menuInput>;
export const menuUpdate = menuFields.extend({ id: idSchema }).superRefine(checkMenuFields);
export type MenuUpdate = z.infer<typeof menuUpdate>;
