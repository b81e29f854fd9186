/**
 * Sign-in and session calls (spec §7): `endpoints.user.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import { getLanguageMenuRequest, getLanguageMenuResponse } from '../api/menu';
import { nullResponse } from '../api/primitives';
import {
  getPermissionRequest,
  getPermissionResponse,
  getUserInfoRequest,
  invitationAnswerRequest,
  invitationAnswerResponse,
  loginOutRequest,
  loginRequest,
  loginResponse,
  refreshTokenRequest,
  refreshTokenResponse,
  userInfoResponse,
} from '../api/user';
import { defineEndpoint } from './define';

export const userEndpoints = {
  login: defineEndpoint({
    path: '/api-bms/user/login',
    request: loginRequest,
    response: loginResponse,
    access: { public: true },
    audit: { action: 'user.login', targetType: 'account' },
    summary: 'Sign in: check account and password digest; answer companies and a login ticket',
    description:
      'Errors: 5080 unknown account or wrong password, 5052 employee disabled, 6001 company disabled, 5082 throttled.',
    tags: ['user'],
  }),
  getUserInfo: defineEndpoint({
    path: '/api-bms/user/getUserInfo',
    request: getUserInfoRequest,
    response: userInfoResponse,
    access: { public: true },
    summary: 'User info: open a session with a login ticket, or reload it with X-Token',
    description:
      'With loginTicket: 5081 ticket unknown/used/expired, 5051 not an employee of companyId, 5052, 6001. ' +
      'With X-Token: the token errors (9999, 50012, 50014, -102) and 5081 when userId/companyId are not the session’s.',
    tags: ['user'],
  }),
  getLanguageMenu: defineEndpoint({
    path: '/api-bms/user/getLanguageMenu',
    request: getLanguageMenuRequest,
    response: getLanguageMenuResponse,
    access: { signedIn: true },
    beforePasswordChange: true,
    summary: "The caller's menu tree in 'cn' (Chinese) or 'en', filtered by the caller's roles",
    tags: ['user'],
  }),
  refreshToken: defineEndpoint({
    path: '/api-bms/user/refreshToken',
    request: refreshTokenRequest,
    response: refreshTokenResponse,
    access: { public: true },
    summary: 'Rotate the refresh token and issue a new access token',
    description:
      'Errors: 9999 unknown token, 50012 session revoked or rotated token reused (the session is then revoked), -102 session past its absolute end.',
    tags: ['user'],
  }),
  loginOut: defineEndpoint({
    path: '/api-bms/user/loginOut',
    request: loginOutRequest,
    response: nullResponse,
    access: { signedIn: true },
    beforePasswordChange: true,
    audit: { action: 'user.logout', targetType: 'session' },
    summary: "Log out: revoke this terminal's session",
    tags: ['user'],
  }),
  getPermission: defineEndpoint({
    path: '/api-bms/user/getPermission',
    request: getPermissionRequest,
    response: getPermissionResponse,
    access: { signedIn: true },
    beforePasswordChange: true,
    summary: "The caller's permission strings (`module:resource:action`; administrators also `*:*:*`)",
    tags: ['user'],
  }),
  acceptInvitation: defineEndpoint({
    path: '/api-bms/user/acceptInvitation',
    request: invitationAnswerRequest,
    response: invitationAnswerResponse,
    access: { signedIn: true },
    audit: { action: 'account.acceptInvitation', targetType: 'employee' },
    summary:
      "Accept a company's invitation (user info `invitations`): the company joins the account's company pick",
    description:
      'Recorded in the inviting company’s operation log. Errors: 5060 no pending invitation of the account from that company.',
    tags: ['user'],
  }),
  declineInvitation: defineEndpoint({
    path: '/api-bms/user/declineInvitation',
    request: invitationAnswerRequest,
    response: invitationAnswerResponse,
    access: { signedIn: true },
    audit: { action: 'account.declineInvitation', targetType: 'employee' },
    summary: "Decline a company's invitation: it is no longer offered; the company is not told",
    description:
      'The employee row stays "awaiting first sign-in" for the inviting company (which can delete it), so a ' +
      'decline does not reveal that the account exists; for the same reason its log entry belongs to no ' +
      'company (only the platform operator reads it). Errors: 5060 no pending invitation of the account from ' +
      'that company.',
    tags: ['user'],
  }),
};
