-- Monitoring (issue 4): the "Monitoring" directory under the path 'zdjk' (spec §2: kept alive)
-- with site monitoring (/zdjkshow, kept alive), real-time data (/realTimeShow), history, alarms
-- (+ acknowledge), data export and the mail outbox; and the "Big screens" directory whose pages
-- open the full-screen dashboards (/newscreen, /screen/sys|pcs|bms|dhxx, /syfscreen/syfsys).
-- Not platform-only: every company's administrator role holds them (menu-service holdableMenus).
INSERT INTO "sys_menu" ("id", "parent_id", "type", "sort", "path", "name", "component", "icon", "title_zh", "title_en", "always_show", "redirect", "perms", "keep_alive", "platform_only")
VALUES
  (500, NULL, 'directory', 50, '/zdjk', 'Monitoring', 'Layout', 'MonitorOutlined', '监控中心', 'Monitoring', true, 'noRedirect', NULL, true, false),
  (501, 500, 'page', 10, '/zdjkshow', 'SiteMonitoring', 'monitor/zdjkshow/index', 'EnvironmentOutlined', '站点监控', 'Site monitoring', false, NULL, 'monitor:site:list', true, false),
  (502, 500, 'page', 20, '/realTimeShow', 'RealTimeData', 'monitor/realtime/index', 'DashboardOutlined', '实时数据', 'Real-time data', false, NULL, 'monitor:realtime:list', false, false),
  (503, 500, 'page', 30, '/history', 'HistoryData', 'monitor/history/index', 'LineChartOutlined', '历史数据', 'History', false, NULL, 'monitor:history:list', false, false),
  (504, 500, 'page', 40, '/alarm', 'Alarms', 'monitor/alarm/index', 'AlertOutlined', '告警管理', 'Alarms', false, NULL, 'monitor:alarm:list', false, false),
  (505, 504, 'button', 1, '', '', NULL, NULL, '确认告警', 'Acknowledge alarms', false, NULL, 'monitor:alarm:ack', false, false),
  (506, 500, 'page', 50, '/export', 'DataExport', 'monitor/export/index', 'ExportOutlined', '数据导出', 'Data export', false, NULL, 'monitor:export:run', false, false),
  (507, 500, 'page', 60, '/mailOutbox', 'MailOutbox', 'monitor/outbox/index', 'MailOutlined', '邮件发件箱', 'Mail outbox', false, NULL, 'monitor:mail:list', false, false),
  (520, NULL, 'directory', 60, '/bigscreen', 'BigScreens', 'Layout', 'FundProjectionScreenOutlined', '大屏展示', 'Big screens', true, 'noRedirect', NULL, false, false),
  (521, 520, 'page', 10, 'cockpit', 'ScreenCockpit', 'bigscreen/cockpit/index', 'GlobalOutlined', '驾驶舱', 'Cockpit', false, NULL, 'screen:view:list', false, false),
  (522, 520, 'page', 20, 'sys', 'ScreenSys', 'bigscreen/sys/index', 'ClusterOutlined', '系统总览大屏', 'System overview screen', false, NULL, 'screen:view:list', false, false),
  (523, 520, 'page', 30, 'pcs', 'ScreenPcs', 'bigscreen/pcs/index', 'ThunderboltOutlined', 'PCS大屏', 'PCS screen', false, NULL, 'screen:view:list', false, false),
  (524, 520, 'page', 40, 'bms', 'ScreenBms', 'bigscreen/bms/index', 'HeatMapOutlined', 'BMS大屏', 'BMS screen', false, NULL, 'screen:view:list', false, false),
  (525, 520, 'page', 50, 'dhxx', 'ScreenDhxx', 'bigscreen/dhxx/index', 'CloudOutlined', '动环信息大屏', 'Environment screen', false, NULL, 'screen:view:list', false, false),
  (526, 520, 'page', 60, 'syfsys', 'ScreenSyfsys', 'bigscreen/syfsys/index', 'InfoCircleOutlined', '系统信息大屏', 'System information screen', false, NULL, 'screen:view:list', false, false)
ON CONFLICT ("id") DO NOTHING;
