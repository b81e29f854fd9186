/**
 * Field rules (spec §5, §9) with their zh/en messages.
 */
import { describe, expect, it } from 'vitest';
import {
  checkLoginForm,
  isValidEmail,
  isValidIpv4,
  isValidPhone,
  normaliseAccount,
  PASSWORD_HASH_PATTERN,
  PASSWORD_MIN_LENGTH,
  SUB_ALARM_VALUES,
  validationMessages,
} from '../src/validation';

describe('login form', () => {
  it('accepts an account and a password of at least 6 characters', () => {
    expect(PASSWORD_MIN_LENGTH).toBe(6);
    expect(checkLoginForm({ account: 'admin', password: '123456' })).toEqual({});
  });

  it('requires an account after trimming', () => {
    expect(checkLoginForm({ account: '', password: '123456' })).toEqual({ account: 'accountRequired' });
    expect(checkLoginForm({ account: ' \t ', password: '123456' })).toEqual({ account: 'accountRequired' });
  });

  it('refuses a password shorter than 6 characters', () => {
    expect(checkLoginForm({ account: 'admin', password: '12345' })).toEqual({ password: 'passwordTooShort' });
    expect(checkLoginForm({ account: 'admin', password: '' })).toEqual({ password: 'passwordTooShort' });
  });

  it('reports both fields at once', () => {
    expect(checkLoginForm({ account: ' ', password: 'x' })).toEqual({
      account: 'accountRequired',
      password: 'passwordTooShort',
    });
  });

  it('has the spec’s texts for its messages', () => {
    expect(validationMessages.accountRequired).toEqual({
      zh: '请输入正确的用户名',
      en: 'Please enter the correct user name',
    });
    expect(validationMessages.passwordTooShort).toEqual({
      zh: '密码不能少于6位',
      en: 'The password can not be less than 6 digits',
    });
    expect(validationMessages.passwordsInconsistent.en).toBe('The two passwords are inconsistent');
    expect(validationMessages.phoneInvalid.en).toBe('Please enter the correct phone number');
    expect(validationMessages.ipInvalid.en).toBe('Please enter the correct Ip address');
    expect(validationMessages.numberPositive.en).toBe('Number must be greater than 0');
  });

  it('every message has non-empty zh and en texts', () => {
    for (const [key, text] of Object.entries(validationMessages)) {
      expect(text.zh.trim(), key).not.toBe('');
      expect(text.en.trim(), key).not.toBe('');
      expect(text.zh, key).not.toBe(text.en);
    }
  });

  it('trims the account', () => {
    expect(normaliseAccount('  admin \n')).toBe('admin');
    expect(normaliseAccount('ad min')).toBe('ad min');
  });
});

describe('password digest pattern', () => {
  it('accepts 64 lower-case hex digits only', () => {
    expect(PASSWORD_HASH_PATTERN.test('a'.repeat(64))).toBe(true);
    expect(PASSWORD_HASH_PATTERN.test('0123456789abcdef'.repeat(4))).toBe(true);
    expect(PASSWORD_HASH_PATTERN.test('A'.repeat(64))).toBe(false);
    expect(PASSWORD_HASH_PATTERN.test('a'.repeat(63))).toBe(false);
    expect(PASSWORD_HASH_PATTERN.test('a'.repeat(65))).toBe(false);
    expect(PASSWORD_HASH_PATTERN.test('g'.repeat(64))).toBe(false);
  });
});

describe('phone', () => {
  it.each(['13800138000', '19912345678', '15000000000'])('accepts %s', (phone) => {
    expect(isValidPhone(phone)).toBe(true);
  });
  it.each([
    '12800138000',
    '1380013800',
    '138001380001',
    '23800138000',
    '+8613800138000',
    '138 0013 8000',
    '',
  ])('refuses %j', (phone) => {
    expect(isValidPhone(phone)).toBe(false);
  });
});

describe('IPv4 address', () => {
  it.each(['0.0.0.0', '255.255.255.255', '192.168.1.1', '10.0.0.254', '1.2.3.4'])('accepts %s', (ip) => {
    expect(isValidIpv4(ip)).toBe(true);
  });
  it.each([
    '256.1.1.1',
    '1.2.3',
    '1.2.3.4.5',
    '1.2.3.256',
    '01.2.3.4',
    '1..2.3',
    ' 1.2.3.4',
    '1.2.3.4 ',
    'a.b.c.d',
    '-1.2.3.4',
    '',
  ])('refuses %j', (ip) => {
    expect(isValidIpv4(ip)).toBe(false);
  });
});

describe('e-mail', () => {
  it.each(['ops@example.com', 'a.b+c@sub.example.cn', 'x@y.co'])('accepts %s', (email) => {
    expect(isValidEmail(email)).toBe(true);
  });
  it.each(['', 'plain', 'a@b', '@example.com', 'a@.com ', 'a b@example.com', 'a@b c.com', 'a@@b.com'])(
    'refuses %j',
    (email) => {
      expect(isValidEmail(email)).toBe(false);
    },
  );
  it('refuses more than 254 characters', () => {
    const local = 'a'.repeat(64);
    const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(`${local}@${domain}`.length).toBe(254);
    expect(isValidEmail(`${local}@${domain}`)).toBe(true);
    expect(isValidEmail(`${local}a@${domain}`)).toBe(false);
  });
});

describe('alarm subscription flag', () => {
  it('is Y or N', () => {
    expect(SUB_ALARM_VALUES).toEqual(['Y', 'N']);
  });
});
