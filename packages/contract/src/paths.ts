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
