-- Issue 15 item 8: device parameter configuration (/paramsconfig) and transparent debugging
-- (/deviceDebugging) under the device directory (200), with the right to change, copy and
-- initialize parameters as a button of the parameter page. Not platform-only.
-- Grants: a role that sees site configuration (201) sees the parameters (210); a role that may
-- edit devices (204) may change them (211). Transparent debugging (212) writes device registers:
-- only by explicit grant (administrator roles hold every menu anyway).
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only")
VALUES
  (210, 200, 'page', 20, '/paramsconfig', 'ParamsConfig', 'device/paramsconfig/index', 'ControlOutlined', '参数配置', 'Parameter configuration', false, NULL, 'device:params:list', false),
  (211, 210, 'button', 1, '', '', NULL, NULL, '修改/复制/初始化参数', 'Change, copy and initialize parameters', false, NULL, 'device:params:edit', false),
  (212, 200, 'page', 30, '/deviceDebugging', 'DeviceDebugging', 'device/debugging/index', 'CodeOutlined', '透明调试', 'Transparent debugging', false, NULL, 'device:debug:use', false)
ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
INSERT INTO "role_menu" ("role_id", "menu_id")
SELECT "role_id", CASE "menu_id" WHEN 201 THEN 210 ELSE 211 END FROM "role_menu" WHERE "menu_id" IN (201, 204)
ON CONFLICT DO NOTHING;
