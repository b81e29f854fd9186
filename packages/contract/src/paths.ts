/**
 * Call paths (spec §7), so that console and server name each call once.
 */
export const ApiPath = {
  login: '/api-bms/user/login',
  getUserInfo: '/api-bms/user/getUserInfo',
  getLanguageMenu: '/api-bms/user/getLanguageMenu',
  refreshToken: '/api-bms/user/refreshToken',
  loginOut: '/api-bms/user/loginOut',
  getPermission: '/api-bms/user/getPermission',
  updatePassword: '/api-bms/employee/updatePassword',
  getEmail: '/api-bms/employee/getEmail',
  updateEmail: '/api-bms/employee/updateEmail',
  menuList: '/api-bms/menu/menuList',
} as const;

/** Devices issue: sites and devices (paths ours; spec §2 names the screen only). */
export const RegistryPath = {
  sitePageList: '/api-bms/site/pageList',
  siteSave: '/api-bms/site/save',
  siteUpdate: '/api-bms/site/update',
  siteDelete: '/api-bms/site/delete',
  devicePageList: '/api-bms/device/pageList',
  deviceSave: '/api-bms/device/save',
  deviceUpdate: '/api-bms/device/update',
  deviceDelete: '/api-bms/device/delete',
  deviceResetSecret: '/api-bms/device/resetSecret',
} as const;

/** Devices issue: the operational overview (path ours). */
export const DashboardPath = {
  overview: '/api-bms/dashboard/overview',
} as const;
