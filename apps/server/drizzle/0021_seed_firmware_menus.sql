-- Issue 16 item 4: firmware packages (/firmware), upgrade records (/upgradeRecord) and a record's
-- detail (/upgradeRecordDetail, hidden: opened from a record with ?id=, highlighting the records
-- entry) under the device directory (200). Not platform-only: a company upgrades its own devices.
-- Grants: a role that sees site configuration (201) sees the packages, the records and a record's
-- detail. Uploading, publishing, deleting packages and starting or managing batches write
-- firmware to devices: only by explicit grant (administrator roles hold every menu anyway).
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "platform_only", "hidden", "active_menu")
VALUES
  (230, 200, 'page', 40, '/firmware', 'Firmware', 'device/firmware/index', 'CloudUploadOutlined', '固件管理', 'Firmware packages', false, NULL, 'firmware:package:list', false, false, NULL),
  (231, 230, 'button', 1, '', '', NULL, NULL, '上传固件包', 'Upload firmware packages', false, NULL, 'firmware:package:upload', false, false, NULL),
  (232, 230, 'button', 2, '', '', NULL, NULL, '发布/禁用固件包', 'Publish and disable firmware packages', false, NULL, 'firmware:package:publish', false, false, NULL),
  (233, 230, 'button', 3, '', '', NULL, NULL, '删除固件包', 'Delete firmware packages', false, NULL, 'firmware:package:delete', false, false, NULL),
  (234, 200, 'page', 50, '/upgradeRecord', 'UpgradeRecord', 'device/upgradeRecord/index', 'HistoryOutlined', '升级记录', 'Upgrade records', false, NULL, 'firmware:upgrade:list', false, false, NULL),
  (235, 234, 'button', 1, '', '', NULL, NULL, '创建升级批次', 'Start upgrade batches', false, NULL, 'firmware:upgrade:create', false, false, NULL),
  (236, 234, 'button', 2, '', '', NULL, NULL, '重试/取消/暂停/继续升级', 'Retry, cancel, pause and resume upgrades', false, NULL, 'firmware:upgrade:manage', false, false, NULL),
  (237, 200, 'page', 51, '/upgradeRecordDetail', 'UpgradeRecordDetail', 'device/upgradeRecordDetail/index', 'FileSearchOutlined', '升级记录详情', 'Upgrade record detail', false, NULL, 'firmware:upgrade:list', false, true, '/upgradeRecord')
ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
INSERT INTO "role_menu" ("role_id", "menu_id")
SELECT rm."role_id", m."id" FROM "role_menu" rm CROSS JOIN (VALUES (230), (234), (237)) AS m("id")
WHERE rm."menu_id" = 201
ON CONFLICT DO NOTHING;
