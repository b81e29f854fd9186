/**
 * Forced password change (contract `userInfoResponse.mustChangePassword`): while the signed-in
 * user still has a password an administrator set (new account, reset), the change-password
 * dialog stays open in forced mode over every page of the frame, after sign-in and after a
 * reload alike, and when the server refuses a call with 5058 (shared/api/client.ts). Until then
 * the server answers the page's calls 5058 (quietly); success clears the flag in the session
 * (the server keeps this session and ends the account's others), reloads the page's queries
 * and closes the dialog; its log-out link signs out.
 * Test hooks: those of the dialog in forced mode (`password-dialog`, `password-forced-note`,
 * `password-logout`, …).
 */
import { Suspense, useCallback, useState } from 'react';
import { ChangePasswordDialog } from '@/features/account';
import { logout, useSession } from '@/features/auth';
import { queryClient } from '@/shared/api/query';

const forced = { onLogout: () => void logout() };

/** Mounted once in the frame; renders nothing until the user must change the password. */
export function ForcedPasswordChange() {
  const mustChange = useSession((s) => s.user?.mustChangePassword === true);
  const passwordChanged = useSession((s) => s.passwordChanged);
  const onChanged = useCallback(() => {
    passwordChanged();
    // The page behind the dialog was refused (5058) until now: load it again.
    void queryClient.invalidateQueries();
  }, [passwordChanged]);
  /** Stays mounted after success so the dialog closes animated; loads its chunk only when needed. */
  const [mounted, setMounted] = useState(mustChange);
  if (mustChange && !mounted) setMounted(true);
  if (!mounted) return null;
  return (
    <Suspense fallback={null}>
      <ChangePasswordDialog open={mustChange} onClose={onChanged} forced={forced} />
    </Suspense>
  );
}
