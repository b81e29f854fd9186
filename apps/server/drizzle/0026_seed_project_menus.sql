-- Issue 17 item 1: "Projects & revenue" directory (600, /project) with the project list
-- (/project/list) and a project's detail (/project/detail, hidden: opened from the list with ?id=,
-- highlighting the list entry). Not platform-only: a company runs its own projects (rows scoped by
-- company like sites). Menu ids 610–619 (revenue statistics) and 620–629 (bills) are kept for the
-- other pages of the directory. Administrator roles hold every menu; other roles by explicit grant.
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only", "hidden", "active_menu")
VALUES
  (600, NULL, 'directory', 300, '/project', 'Project', 'Layout', 'ProjectOutlined', '项目运营', 'Projects & revenue', true, 'noRedirect', NULL, false, false, NULL),
  (601, 600, 'page', 10, 'list', 'ProjectList', 'project/list/index', 'SolutionOutlined', '项目管理', 'Projects', false, NULL, 'project:project:list', false, false, NULL),
  (602, 601, 'button', 1, '', '', NULL, NULL, '新增/编辑项目', 'Add/edit projects', false, NULL, 'project:project:save', false, false, NULL),
  (603, 601, 'button', 2, '', '', NULL, NULL, '删除项目', 'Delete projects', false, NULL, 'project:project:delete', false, false, NULL),
  (604, 601, 'button', 3, '', '', NULL, NULL, '绑定/解绑站点', 'Bind and unbind sites', false, NULL, 'project:project:bind', false, false, NULL),
  (605, 600, 'page', 11, 'detail', 'ProjectDetail', 'project/detail/index', 'FileSearchOutlined', '项目详情', 'Project detail', false, NULL, 'project:project:list', false, true, '/project/list'),
  (606, 601, 'button', 4, '', '', NULL, NULL, '变更项目状态', 'Change project status', false, NULL, 'project:project:status', false, false, NULL)
ON CONFLICT ("id") DO NOTHING;
