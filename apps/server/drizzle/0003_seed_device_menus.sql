-- Devices issue: site configuration (/deviceconfig) under a "Devices" directory, with buttons.
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms")
VALUES
  (200, NULL, 'directory', 100, '/device', 'Device', 'Layout', 'ClusterOutlined', '设备管理', 'Devices', true, 'noRedirect', NULL),
  (201, 200, 'page', 10, '/deviceconfig', 'DeviceConfig', 'device/deviceconfig/index', 'ApartmentOutlined', '站点配置', 'Site configuration', false, NULL, 'device:site:list'),
  (202, 201, 'button', 1, '', '', NULL, NULL, '新增/编辑站点', 'Add/edit site', false, NULL, 'device:site:save'),
  (203, 201, 'button', 2, '', '', NULL, NULL, '删除站点', 'Delete site', false, NULL, 'device:site:delete'),
  (204, 201, 'button', 3, '', '', NULL, NULL, '新增/编辑设备', 'Add/edit device', false, NULL, 'device:device:save'),
  (205, 201, 'button', 4, '', '', NULL, NULL, '删除设备', 'Delete device', false, NULL, 'device:device:delete'),
  (206, 201, 'button', 5, '', '', NULL, NULL, '重新生成设备密钥', 'Re-issue device secret', false, NULL, 'device:device:secret')
ON CONFLICT ("id") DO NOTHING;
