-- Menu entries whose screens exist after the foundation issue (ids < 10000 are reserved for seeds).
-- System management directory and its read-only menu list page (spec §2, §6; issue 2).
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms")
VALUES
  (100, NULL, 'directory', 900, '/system', 'System', 'Layout', 'SettingOutlined', '系统管理', 'System', true, 'noRedirect', NULL),
  (101, 100, 'page', 40, 'menu', 'Menu', 'system/menu/index', 'MenuOutlined', '菜单管理', 'Menus', false, NULL, 'system:menu:list')
ON CONFLICT ("id") DO NOTHING;
