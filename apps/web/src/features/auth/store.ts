/**
 * Who is signed in (spec §3 "Session user": name, avatar, user info; roles and permissions),
 * filled from `user/getUserInfo`. Credentials live in shared/storage/session.ts, the route table
 * in shared/routing.
 */
import { ALL_PERMISSIONS, allows, type InvitationAnswer, type UserInfo } from '@ess/contract';
import { create } from 'zustand';
import { onPasswordChangeRequired } from '@/shared/api/client';

/** User info without the tokens and the menu (kept elsewhere). */
export type SessionUser = Omit<UserInfo, 'token' | 'refreshToken' | 'tokenExpiresAt' | 'menuList'>;

export { ALL_PERMISSIONS };

interface SessionState {
  user: SessionUser | null;
  setUser: (info: UserInfo) => void;
  setPermissions: (permissions: string[]) => void;
  /** The user chose a new password: no longer asked to (`mustChangePassword` false). */
  passwordChanged: () => void;
  /** The server refused a call with 5058: ask for the new password (`mustChangePassword` true). */
  passwordChangeRequired: () => void;
  /** An invitation was answered: the company pick and the invitations still open. */
  setInvitations: (answer: InvitationAnswer) => void;
  clear: () => void;
}

/** Zustand store of the signed-in user; `useSession.getState()` outside React. */
export const useSession = create<SessionState>((set) => ({
  user: null,
  setUser: (info) => {
    const { token: _t, refreshToken: _r, tokenExpiresAt: _e, menuList: _m, ...user } = info;
    set({ user });
  },
  setPermissions: (permissions) => set((s) => (s.user ? { user: { ...s.user, permissions } } : s)),
  passwordChanged: () => set((s) => (s.user ? { user: { ...s.user, mustChangePassword: false } } : s)),
  passwordChangeRequired: () =>
    set((s) =>
      s.user && !s.user.mustChangePassword ? { user: { ...s.user, mustChangePassword: true } } : s,
    ),
  setInvitations: ({ companyList, invitations }) =>
    set((s) => (s.user ? { user: { ...s.user, companyList, invitations } } : s)),
  clear: () => set({ user: null }),
}));

// A 5058 answer (the server's side of the forced change) opens the forced dialog.
onPasswordChangeRequired(() => useSession.getState().passwordChangeRequired());

/** True when the signed-in user holds `perm` (or every permission). */
export function hasPermission(user: SessionUser | null, perm: string): boolean {
  if (!user) return false;
  return allows(user.permissions, perm);
}

/** `usePermission('system:menu:list')`: re-renders when the user's permissions change. */
export function usePermission(perm: string): boolean {
  return useSession((s) => hasPermission(s.user, perm));
}
