-- Issue 17 item 4: revenue statistics (/project/revenue) under "Projects & revenue" (600). Not
-- platform-only: a company sees the revenue of its own sites and projects (scoped like sites).
-- Ids 611–619 are kept for its buttons. Administrator roles hold every menu; other roles by
-- explicit grant.
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only", "hidden", "active_menu")
VALUES
  (610, 600, 'page', 20, 'revenue', 'Revenue', 'project/revenue/index', 'MoneyCollectOutlined', '收益统计', 'Revenue statistics', false, NULL, 'revenue:stat:list', false, false, NULL)
ON CONFLICT ("id") DO NOTHING;
