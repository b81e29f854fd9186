-- Issue 17 item 5: monthly bills (/project/bill) under "Projects & revenue" (600), with buttons
-- 621 draft now, 622 confirm (settle), 623 correct (a new version with its reason), 624 export
-- (xlsx). Not platform-only: a company settles its own projects (rows scoped by company like
-- projects). Administrator roles hold every menu; other roles by explicit grant.
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only", "hidden", "active_menu")
VALUES
  (620, 600, 'page', 30, 'bill', 'Bill', 'project/bill/index', 'AccountBookOutlined', '电费账单', 'Monthly bills', false, NULL, 'bill:bill:list', false, false, NULL),
  (621, 620, 'button', 1, '', '', NULL, NULL, '生成账单', 'Draft bills', false, NULL, 'bill:bill:draft', false, false, NULL),
  (622, 620, 'button', 2, '', '', NULL, NULL, '确认结算', 'Confirm (settle) bills', false, NULL, 'bill:bill:confirm', false, false, NULL),
  (623, 620, 'button', 3, '', '', NULL, NULL, '更正账单', 'Correct bills', false, NULL, 'bill:bill:correct', false, false, NULL),
  (624, 620, 'button', 4, '', '', NULL, NULL, '导出账单', 'Export bills', false, NULL, 'bill:bill:export', false, false, NULL)
ON CONFLICT ("id") DO NOTHING;
