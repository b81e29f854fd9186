/**
 * Auth feature: login page, session store and actions, navigation guard, language switch.
 */

export { fetchPermissions } from './api';
export { AuthGuard, safeRedirect } from './components/AuthGuard';
export { LanguageSwitch } from './components/LanguageSwitch';
export { enterCompany, logout, refreshMenu, resetAll, restoreSession, switchLanguage } from './session';
export { ALL_PERMISSIONS, hasPermission, type SessionUser, usePermission, useSession } from './store';
