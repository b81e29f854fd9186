-- Issue 18 item 1: scheduled tasks (/system/job) under system management (100). Platform-only:
-- the tasks are the platform's background work, so only the platform operator's roles may hold
-- the page and its buttons (an administrator role holds every menu its company may hold, see
-- access/menu-access.ts); no grant to other roles — a platform role gets it by explicit grant.
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only", "hidden", "active_menu")
VALUES
  (150, 100, 'page', 60, 'job', 'Job', 'system/job/index', 'FieldTimeOutlined', '定时任务', 'Scheduled tasks', false, NULL, 'monitor:job:list', true, false, NULL),
  (151, 150, 'button', 1, '', '', NULL, NULL, '新增/编辑定时任务', 'Add/edit scheduled tasks', false, NULL, 'monitor:job:save', true, false, NULL),
  (152, 150, 'button', 2, '', '', NULL, NULL, '删除定时任务', 'Delete scheduled tasks', false, NULL, 'monitor:job:delete', true, false, NULL),
  (153, 150, 'button', 3, '', '', NULL, NULL, '暂停/恢复定时任务', 'Pause and recover scheduled tasks', false, NULL, 'monitor:job:changeStatus', true, false, NULL),
  (154, 150, 'button', 4, '', '', NULL, NULL, '立即执行定时任务', 'Run scheduled tasks now', false, NULL, 'monitor:job:trigger', true, false, NULL)
ON CONFLICT ("id") DO NOTHING;
