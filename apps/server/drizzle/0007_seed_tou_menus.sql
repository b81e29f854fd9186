-- ToU issue 6: "Operation strategy" directory with the time tariffs (/timetariff) and charge
-- strategy (/chargestrategy) pages and their buttons. Not platform-only: every company's
-- administrator role holds them (menu-service holdableMenus), other roles get them granted.
-- Both pages read with tou:scheme:list; a permission string may sit on buttons of both pages.
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only")
VALUES
  (400, NULL, 'directory', 200, '/strategy', 'Strategy', 'Layout', 'ThunderboltOutlined', '运行策略', 'Operation strategy', true, 'noRedirect', NULL, false),
  (401, 400, 'page', 10, '/timetariff', 'TimeTariff', 'strategy/timetariff/index', 'AccountBookOutlined', '分时电价', 'Time tariffs', false, NULL, 'tou:scheme:list', false),
  (402, 401, 'button', 1, '', '', NULL, NULL, '新增/编辑电价方案', 'Add/edit ToU scheme', false, NULL, 'tou:scheme:save', false),
  (403, 401, 'button', 2, '', '', NULL, NULL, '删除电价方案', 'Delete ToU scheme', false, NULL, 'tou:scheme:delete', false),
  (404, 401, 'button', 3, '', '', NULL, NULL, '分配站点/下发', 'Assign sites/push', false, NULL, 'tou:scheme:push', false),
  (410, 400, 'page', 20, '/chargestrategy', 'ChargeStrategy', 'strategy/chargestrategy/index', 'ScheduleOutlined', '充放电策略', 'Charge strategy', false, NULL, 'tou:scheme:list', false),
  (411, 410, 'button', 1, '', '', NULL, NULL, '编辑充放电策略', 'Edit charge strategy', false, NULL, 'tou:scheme:save', false),
  (412, 410, 'button', 2, '', '', NULL, NULL, '下发到EMS', 'Push to EMS', false, NULL, 'tou:scheme:push', false)
ON CONFLICT ("id") DO NOTHING;
