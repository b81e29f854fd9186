-- Organisation and access control (issue 5): system pages with their buttons, the partner
-- directory (agents, investors, construction parties, users and companies), and menu management
-- marked platform-only (menus are global; only the platform operator's roles may hold them).
UPDATE "sys_menu" SET "platform_only" = true WHERE "id" = 101;
--> statement-breakpoint
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only")
VALUES
  (102, 101, 'button', 1, '', '', NULL, NULL, '新增/编辑菜单', 'Add/edit menu', false, NULL, 'system:menu:save', true),
  (103, 101, 'button', 2, '', '', NULL, NULL, '删除菜单', 'Delete menu', false, NULL, 'system:menu:delete', true),
  (110, 100, 'page', 10, 'dept', 'Dept', 'system/dept/index', 'PartitionOutlined', '部门管理', 'Departments', false, NULL, 'system:dept:list', false),
  (111, 110, 'button', 1, '', '', NULL, NULL, '新增/编辑部门', 'Add/edit department', false, NULL, 'system:dept:save', false),
  (112, 110, 'button', 2, '', '', NULL, NULL, '删除部门', 'Delete department', false, NULL, 'system:dept:delete', false),
  (120, 100, 'page', 20, 'employee', 'Employee', 'system/employee/index', 'UserOutlined', '员工管理', 'Employees', false, NULL, 'system:employee:list', false),
  (121, 120, 'button', 1, '', '', NULL, NULL, '新增/编辑员工', 'Add/edit employee', false, NULL, 'system:employee:save', false),
  (122, 120, 'button', 2, '', '', NULL, NULL, '删除员工', 'Delete employee', false, NULL, 'system:employee:delete', false),
  (123, 120, 'button', 3, '', '', NULL, NULL, '启用/禁用员工', 'Enable/disable employee', false, NULL, 'system:employee:status', false),
  (124, 120, 'button', 4, '', '', NULL, NULL, '重置密码', 'Reset password', false, NULL, 'system:employee:resetPwd', false),
  (130, 100, 'page', 30, 'role', 'Role', 'system/role/index', 'SafetyCertificateOutlined', '角色管理', 'Roles', false, NULL, 'system:role:list', false),
  (131, 130, 'button', 1, '', '', NULL, NULL, '新增/编辑角色', 'Add/edit role', false, NULL, 'system:role:save', false),
  (132, 130, 'button', 2, '', '', NULL, NULL, '删除角色', 'Delete role', false, NULL, 'system:role:delete', false),
  (133, 130, 'button', 3, '', '', NULL, NULL, '复制角色', 'Copy role', false, NULL, 'system:role:copy', false),
  (140, 100, 'page', 50, 'log', 'OperationLog', 'system/log/index', 'FileSearchOutlined', '操作日志', 'Operation log', false, NULL, 'system:log:list', false),
  (300, NULL, 'directory', 800, '/org', 'Org', 'Layout', 'TeamOutlined', '客户管理', 'Partners', true, 'noRedirect', NULL, false),
  (301, 300, 'page', 10, 'agent', 'Agent', 'org/agent/index', 'ShopOutlined', '代理商', 'Agents', false, NULL, 'org:agent:list', false),
  (302, 301, 'button', 1, '', '', NULL, NULL, '新增/编辑代理商', 'Add/edit agent', false, NULL, 'org:agent:save', false),
  (303, 301, 'button', 2, '', '', NULL, NULL, '启用/禁用代理商', 'Enable/disable agent', false, NULL, 'org:agent:status', false),
  (304, 301, 'button', 3, '', '', NULL, NULL, '分配设备', 'Assign devices', false, NULL, 'org:agent:assign', false),
  (310, 300, 'page', 20, 'investor', 'Investor', 'org/investor/index', 'BankOutlined', '投资方', 'Investors', false, NULL, 'org:investor:list', false),
  (311, 310, 'button', 1, '', '', NULL, NULL, '新增/编辑投资方', 'Add/edit investor', false, NULL, 'org:investor:save', false),
  (312, 310, 'button', 2, '', '', NULL, NULL, '启用/禁用投资方', 'Enable/disable investor', false, NULL, 'org:investor:status', false),
  (320, 300, 'page', 30, 'construction', 'Construction', 'org/construction/index', 'ToolOutlined', '施工方', 'Construction parties', false, NULL, 'org:construction:list', false),
  (321, 320, 'button', 1, '', '', NULL, NULL, '新增/编辑施工方', 'Add/edit construction party', false, NULL, 'org:construction:save', false),
  (322, 320, 'button', 2, '', '', NULL, NULL, '启用/禁用施工方', 'Enable/disable construction party', false, NULL, 'org:construction:status', false),
  (330, 300, 'page', 40, 'owner', 'Owner', 'org/owner/index', 'HomeOutlined', '用户与公司', 'Users and companies', false, NULL, 'org:owner:list', false),
  (331, 330, 'button', 1, '', '', NULL, NULL, '新增/编辑用户公司', 'Add/edit company', false, NULL, 'org:owner:save', false),
  (332, 330, 'button', 2, '', '', NULL, NULL, '启用/禁用用户公司', 'Enable/disable company', false, NULL, 'org:owner:status', false)
ON CONFLICT ("id") DO NOTHING;
