-- Issue 14 items 1 and 2: moving is its own right on the site configuration page (/deviceconfig):
-- a device (a gateway with the devices behind it) to another site, and a site with its devices
-- and data to another company. Not platform-only: every company's administrator role holds
-- them (access/menu-access.ts holdableMenus); other roles get them granted. A role that could
-- edit devices (204) or sites (202), and so move them through the edit before this release,
-- keeps that ability as the new right.
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only")
VALUES
  (207, 201, 'button', 6, '', '', NULL, NULL, '移动站点到其他公司', 'Move site to another company', false, NULL, 'device:site:move', false),
  (208, 201, 'button', 7, '', '', NULL, NULL, '移动设备到其他站点', 'Move device to another site', false, NULL, 'device:device:move', false)
ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
INSERT INTO "role_menu" ("role_id", "menu_id")
SELECT "role_id", CASE "menu_id" WHEN 202 THEN 207 ELSE 208 END FROM "role_menu" WHERE "menu_id" IN (202, 204)
ON CONFLICT DO NOTHING;
