/**
 * Account feature: the signed-in user's change-password and e-mail subscription dialogs. The
 * dialogs are loaded on first use (they bring antd Form and Modal).
 */
import { lazy } from 'react';

export { getEmail } from './api';

export const ChangePasswordDialog = lazy(() =>
  import('./components/ChangePasswordDialog').then((m) => ({ default: m.ChangePasswordDialog })),
);

export const EmailDialog = lazy(() =>
  import('./components/EmailDialog').then((m) => ({ default: m.EmailDialog })),
);
