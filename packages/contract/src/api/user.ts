/**
 * Sign-in and session calls (spec §7): `user/login`, `user/getUserInfo`, `user/refreshToken`,
 * `user/loginOut`, `user/getPermission`. The handshake is described in docs/api.md
 * ("Session handshake").
 */
import { z } from 'zod';
import { ACCOUNT_MAX_LENGTH, PASSWORD_HASH_PATTERN } from '../validation';
import { userInfoEcho } from './envelope';
import { menuItemSchema } from './menu';
import { idSchema as id, trimmedText } from './primitives';

/** Random id of one browser (a "terminal"), created once and kept in local storage. */
/** A terminal id: 8–64 characters of A–Z, a–z, 0–9, '_' or '-'. */
export const TERMINAL_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

export const terminalIdSchema = z
  .string()
  .regex(TERMINAL_ID_PATTERN, 'terminalId: 8–64 characters of A–Z, a–z, 0–9, _ or -');

export const passwordHashSchema = z.string().regex(PASSWORD_HASH_PATTERN, 'must be a SHA-256 hex digest');

export const loginRequest = z.object({
  account: trimmedText(ACCOUNT_MAX_LENGTH),
  password: passwordHashSchema,
  terminalId: terminalIdSchema,
});
export type LoginRequest = z.infer<typeof loginRequest>;

export const companyRefSchema = z.object({ id, name: z.string() });
export const loginResponse = z.object({
  userId: id,
  companyList: z.array(companyRefSchema),
  /** Single-use proof of this password check, exchanged by `getUserInfo` for a session. */
  loginTicket: z.string(),
  /** Seconds the ticket stays valid. */
  loginTicketTtlS: z.number().int(),
});
export type LoginResponse = z.infer<typeof loginResponse>;

/** User info (spec §7, path ours): with `loginTicket` it opens a session; with X-Token it reloads one. */
export const getUserInfoRequest = z.object({
  userInfo: userInfoEcho,
  userId: id,
  companyId: id,
  terminalId: terminalIdSchema.optional(),
  loginTicket: z.string().min(1).max(128).optional(),
});
export type GetUserInfoRequest = z.infer<typeof getUserInfoRequest>;

export const roleRefSchema = z.object({ id, name: z.string() });

/**
 * A company that added the caller's existing account as an employee and waits for its consent
 * (docs/api.md "Adding an existing account"): until accepted, the company is not in
 * `companyList` and the account cannot enter it.
 */
export const invitationSchema = z.object({ companyId: id, companyName: z.string() });
export type Invitation = z.infer<typeof invitationSchema>;

export const userInfoResponse = z.object({
  /** Access token for X-Token; the same one when the call was made with a valid token. */
  token: z.string(),
  /** Present only when a new session was opened by this call. */
  refreshToken: z.string().nullable(),
  /** When the access token expires (UTC ms). */
  tokenExpiresAt: z.number().int(),
  userId: id,
  employeeId: id,
  companyId: id,
  companyName: z.string(),
  companyList: z.array(companyRefSchema),
  account: z.string(),
  name: z.string(),
  avatar: z.string().nullable(),
  email: z.string().nullable(),
  isAdmin: z.boolean(),
  /** The password was set by an administrator (new account, reset): the console asks for a new one first. */
  mustChangePassword: z.boolean(),
  /** Pending invitations of the account (enabled companies), oldest first. */
  invitations: z.array(invitationSchema),
  roles: z.array(roleRefSchema),
  menuList: z.array(menuItemSchema),
  permissions: z.array(z.string()),
});
export type UserInfo = z.infer<typeof userInfoResponse>;

export const refreshTokenRequest = z.object({
  userInfo: userInfoEcho,
  userId: id,
  terminalId: terminalIdSchema,
  refreshToken: z.string().min(1).max(128),
});
export const refreshTokenResponse = z.object({
  token: z.string(),
  refreshToken: z.string(),
  tokenExpiresAt: z.number().int(),
});
export type RefreshTokenResponse = z.infer<typeof refreshTokenResponse>;

export const loginOutRequest = z.object({
  userInfo: userInfoEcho,
  userId: id.optional(),
  terminalId: terminalIdSchema.optional(),
});

export const getPermissionRequest = z.object({ userInfo: userInfoEcho });
export const getPermissionResponse = z.object({ permissions: z.array(z.string()) });

/** `user/acceptInvitation`, `user/declineInvitation`: the inviting company. */
export const invitationAnswerRequest = z.object({ userInfo: userInfoEcho, companyId: id });
/** After answering: the companies the account may enter now, and the invitations still open. */
export const invitationAnswerResponse = z.object({
  companyList: z.array(companyRefSchema),
  invitations: z.array(invitationSchema),
});
export type InvitationAnswer = z.infer<typeof invitationAnswerResponse>;
