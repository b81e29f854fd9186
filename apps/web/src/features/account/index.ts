/**
 * Account feature: the signed-in user's change-password, e-mail subscription and company
 * invitation dialogs. The
 * dialogs are loaded on first use (they bring antd Form and Modal).
 */
import { lazy } from 'react';

export { getEmail } from './api';

/** Lazily loaded change-password dialog (props: `open`, `onClose`). */
export const ChangePasswordDialog = lazy(() =>
  import('./components/ChangePasswordDialog').then((m) => ({ default: m.ChangePasswordDialog })),
);

/** Lazily loaded dialog of the companies that invited the account (props: `InvitationsDialogProps`). */
export const InvitationsDialog = lazy(() =>
  import('./components/InvitationsDialog').then((m) => ({ default: m.InvitationsDialog })),
);

/** Lazily loaded e-mail subscription dialog (props: `settings`, `onClose`). */
export const EmailDialog = lazy(() =>
  import('./components/EmailDialog').then((m) => ({ default: m.EmailDialog })),
);
