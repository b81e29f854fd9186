/**
 * Call schemas (api/*.ts): what the server accepts and how it normalises it.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { updateEmailRequest, updatePasswordRequest } from '../src/api/employee';
import { envelopeOf } from '../src/api/envelope';
import { getLanguageMenuRequest } from '../src/api/menu';
import { getUserInfoRequest, loginRequest, refreshTokenRequest, terminalIdSchema } from '../src/api/user';

const hex = 'ab'.repeat(32);

describe('loginRequest', () => {
  it('trims the account', () => {
    const parsed = loginRequest.parse({ account: '  admin\t', password: hex, terminalId: 'abcdefgh' });
    expect(parsed).toEqual({ account: 'admin', password: hex, terminalId: 'abcdefgh' });
  });

  it.each([
    ['plain text', 'admin123'],
    ['upper-case hex', hex.toUpperCase()],
    ['63 digits', hex.slice(1)],
    ['non-hex letters', 'z'.repeat(64)],
  ])('rejects a %s password', (_label, password) => {
    const result = loginRequest.safeParse({ account: 'admin', password, terminalId: 'abcdefgh' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['password']);
  });

  it('rejects a blank or too long account', () => {
    expect(loginRequest.safeParse({ account: '   ', password: hex, terminalId: 'abcdefgh' }).success).toBe(
      false,
    );
    expect(
      loginRequest.safeParse({ account: 'a'.repeat(65), password: hex, terminalId: 'abcdefgh' }).success,
    ).toBe(false);
    expect(
      loginRequest.safeParse({ account: 'a'.repeat(64), password: hex, terminalId: 'abcdefgh' }).success,
    ).toBe(true);
  });
});

describe('terminalId', () => {
  it.each(['abcdefgh', 'A-b_0123', 'x'.repeat(64)])('accepts %s', (id) => {
    expect(terminalIdSchema.safeParse(id).success).toBe(true);
  });
  it.each(['abcdefg', 'x'.repeat(65), 'abc defgh', 'abcdefgh!', 'ééééééééé'])('rejects %j', (id) => {
    expect(terminalIdSchema.safeParse(id).success).toBe(false);
  });
});

describe('other requests', () => {
  it('getUserInfo needs positive integer ids; ticket and terminal are optional', () => {
    expect(getUserInfoRequest.safeParse({ userId: 1, companyId: 2 }).success).toBe(true);
    expect(getUserInfoRequest.safeParse({ userId: 0, companyId: 2 }).success).toBe(false);
    expect(getUserInfoRequest.safeParse({ userId: 1.5, companyId: 2 }).success).toBe(false);
    expect(getUserInfoRequest.safeParse({ userId: '1', companyId: 2 }).success).toBe(false);
    expect(getUserInfoRequest.safeParse({ userId: 1, companyId: 2, loginTicket: '' }).success).toBe(false);
  });

  it('refreshToken needs userId, terminalId and refreshToken', () => {
    expect(
      refreshTokenRequest.safeParse({ userId: 1, terminalId: 'abcdefgh', refreshToken: 'rt_x' }).success,
    ).toBe(true);
    expect(refreshTokenRequest.safeParse({ userId: 1, terminalId: 'abcdefgh' }).success).toBe(false);
  });

  it("getLanguageMenu takes 'cn' or 'en', 'cn' by default", () => {
    expect(getLanguageMenuRequest.parse({})).toEqual({ language: 'cn' });
    expect(getLanguageMenuRequest.parse({ language: 'en' }).language).toBe('en');
    expect(getLanguageMenuRequest.safeParse({ language: 'zh' }).success).toBe(false);
  });

  it('accepts and keeps any userInfo echo', () => {
    expect(getLanguageMenuRequest.parse({ userInfo: { userId: 3 } }).userInfo).toEqual({ userId: 3 });
  });

  it('updatePassword needs three digests', () => {
    expect(
      updatePasswordRequest.safeParse({ oldPassword: hex, newPassword: hex, confirmPassword: hex }).success,
    ).toBe(true);
    const result = updatePasswordRequest.safeParse({
      oldPassword: hex,
      newPassword: 'abc',
      confirmPassword: hex,
    });
    expect(result.error?.issues.map((i) => i.path[0])).toEqual(['newPassword']);
  });

  it('updateEmail trims the e-mail and takes Y or N', () => {
    expect(updateEmailRequest.parse({ email: ' ops@example.com ', isSubAlarm: 'Y' })).toEqual({
      email: 'ops@example.com',
      isSubAlarm: 'Y',
    });
    expect(updateEmailRequest.safeParse({ email: 'ops@example.com', isSubAlarm: 'y' }).success).toBe(false);
    expect(updateEmailRequest.safeParse({ email: 'ops', isSubAlarm: 'N' }).success).toBe(false);
  });
});

describe('envelopeOf', () => {
  it('checks {code, msg, data} around a data schema', () => {
    const schema = envelopeOf(z.object({ n: z.number() }));
    expect(schema.safeParse({ code: 0, msg: 'ok', data: { n: 1 } }).success).toBe(true);
    expect(schema.safeParse({ code: 0, msg: 'ok', data: { n: '1' } }).success).toBe(false);
    expect(schema.safeParse({ code: 0.5, msg: 'ok', data: { n: 1 } }).success).toBe(false);
    expect(schema.safeParse({ code: 0, data: { n: 1 } }).success).toBe(false);
  });
});
