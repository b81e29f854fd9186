/**
 * Shared schema primitives (api/primitives.ts): ids, texts and their limits, pages.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { updateEmailRequest } from '../src/api/employee';
import { menuInput } from '../src/api/menu';
import {
  companyInput,
  departmentInput,
  employeeSaveRequest,
  roleCopyRequest,
  roleSaveRequest,
} from '../src/api/organisation';
import {
  createdIdResponse,
  INT4_MAX,
  idOnlyRequest,
  idRequest,
  idSchema,
  MAX_PAGE_SIZE,
  maxLengthOf,
  optionalText,
  pageRequest,
  pageResponse,
  TEXT_LIMITS,
  trimmedText,
} from '../src/api/primitives';
import { deviceInput, siteInput, siteListRequest } from '../src/api/registry';
import { touSchemeSaveRequest } from '../src/api/tou';
import { touSchemeDocumentSchema } from '../src/tou/scheme';

describe('idSchema', () => {
  it('accepts 1 … the int4 maximum', () => {
    expect(idSchema.safeParse(1).success).toBe(true);
    expect(idSchema.safeParse(INT4_MAX).success).toBe(true);
  });

  it.each([0, -1, 1.5, INT4_MAX + 1, Number.MAX_SAFE_INTEGER, '1'])('refuses %j', (value) => {
    expect(idSchema.safeParse(value).success).toBe(false);
  });

  it('bounds ids in bodies and answers alike', () => {
    expect(idRequest.safeParse({ id: INT4_MAX + 1 }).error?.issues[0]?.path).toEqual(['id']);
    expect(createdIdResponse.safeParse({ id: 0 }).success).toBe(false);
    expect(idOnlyRequest).toBe(idRequest);
  });
});

describe('texts', () => {
  it('trims required text and refuses blank or too long', () => {
    const name = trimmedText(4);
    expect(name.parse('  ab ')).toBe('ab');
    expect(name.safeParse('   ').success).toBe(false);
    expect(name.safeParse('abcde').success).toBe(false);
    expect(name.maxLength).toBe(4);
  });

  it('turns absent, null and blank optional text into null', () => {
    const note = optionalText(4);
    expect(note.parse(undefined)).toBeNull();
    expect(note.parse(null)).toBeNull();
    expect(note.parse('  ')).toBeNull();
    expect(note.parse(' ab ')).toBe('ab');
    expect(note.safeParse('abcde').success).toBe(false);
    expect(maxLengthOf(note)).toBe(4);
  });

  it('reads no limit from a non-string', () => {
    expect(maxLengthOf(z.number())).toBeNull();
    expect(maxLengthOf(z.string())).toBeNull();
  });

  const daily = touSchemeDocumentSchema.shape.dailyPlans.element.shape;

  /** Every form field with a maxLength in the console, and the schema field the server checks. */
  const FORM_FIELDS: [keyof typeof TEXT_LIMITS, z.ZodType][] = [
    ['keyword', siteListRequest.shape.keyword],
    ['account', employeeSaveRequest.shape.account],
    ['phone', companyInput.shape.phone],
    ['phone', departmentInput.shape.phone],
    ['phone', employeeSaveRequest.shape.phone],
    ['email', employeeSaveRequest.shape.email],
    ['email', updateEmailRequest.shape.email],
    ['siteName', siteInput.shape.name],
    ['siteAddress', siteInput.shape.address],
    ['deviceModel', deviceInput.shape.model],
    ['mqttClientId', deviceInput.shape.mqttClientId],
    ['companyName', companyInput.shape.name],
    ['companyContact', companyInput.shape.contact],
    ['departmentName', departmentInput.shape.name],
    ['departmentLeader', departmentInput.shape.leader],
    ['employeeName', employeeSaveRequest.shape.name],
    ['roleName', roleSaveRequest.shape.name],
    ['roleName', roleCopyRequest.shape.name],
    ['roleRemark', roleSaveRequest.shape.remark],
    ['menuTitle', menuInput.shape.titleZh],
    ['menuTitle', menuInput.shape.titleEn],
    ['menuPath', menuInput.shape.path],
    ['menuName', menuInput.shape.name],
    ['menuComponent', menuInput.shape.component],
    ['menuVueName', menuInput.shape.vueName],
    ['menuIcon', menuInput.shape.icon],
    ['menuRedirect', menuInput.shape.redirect],
    ['menuActiveMenu', menuInput.shape.activeMenu],
    ['touSchemeName', touSchemeSaveRequest.shape.name],
    ['touPlanName', daily.name],
  ];

  it.each(FORM_FIELDS)('%s is the limit the schema checks', (key, schema) => {
    expect(maxLengthOf(schema)).toBe(TEXT_LIMITS[key]);
  });

  /** Limits set by a pattern: the longest value it accepts, and one more refused. */
  it.each([
    ['siteCode', siteInput.shape.code, 'S'],
    ['deviceSn', deviceInput.shape.sn, 'N'],
    ['roleCode', roleSaveRequest.shape.code, 'r'],
  ] as const)('%s matches its pattern’s longest value', (key, schema, ch) => {
    expect(schema.safeParse(ch.repeat(TEXT_LIMITS[key])).success).toBe(true);
    expect(schema.safeParse(ch.repeat(TEXT_LIMITS[key] + 1)).success).toBe(false);
  });

  it('menuPerms is the longest permission string the pattern accepts', () => {
    const part = 'a'.repeat(32);
    const perms = menuInput.shape.perms;
    expect(`${part}:${part}:${part}`).toHaveLength(TEXT_LIMITS.menuPerms);
    expect(perms.safeParse(`${part}:${part}:${part}`).success).toBe(true);
    expect(perms.safeParse(`${part}a:${part}:${part}`).success).toBe(false);
  });
});

describe('pages', () => {
  it('defaults pageNum 1 and pageSize 20, up to MAX_PAGE_SIZE', () => {
    expect(pageRequest.parse({})).toEqual({ pageNum: 1, pageSize: 20 });
    expect(pageRequest.safeParse({ pageSize: MAX_PAGE_SIZE }).success).toBe(true);
    expect(pageRequest.safeParse({ pageSize: MAX_PAGE_SIZE + 1 }).error?.issues[0]?.path).toEqual([
      'pageSize',
    ]);
    expect(pageRequest.safeParse({ pageNum: 0 }).success).toBe(false);
  });

  it('answers {list, total}', () => {
    const page = pageResponse(z.object({ id: idSchema }));
    expect(page.parse({ list: [{ id: 1 }], total: 1 })).toEqual({ list: [{ id: 1 }], total: 1 });
    expect(page.safeParse({ list: [{ id: 1 }] }).success).toBe(false);
  });
});
