/**
 * Database schema (Drizzle pg-core): one SQL dialect for PGlite and PostgreSQL.
 * Migrations in `apps/server/drizzle/` are generated from this file (`npm run db:generate`)
 * or hand-written for seed data (menu entries), and applied at start-up.
 *
 * Times are UTC `timestamptz`. Rows that belong to a customer carry `company_id` (design §4).
 */

import {
  boolean,
  char,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

/** Platform operator, agents, investors, construction parties and site owners (spec §1, §3). */
export const company = pgTable(
  'company',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    parentId: integer('parent_id'),
    /** platform | agent | investor | construction | owner */
    type: text('type').notNull(),
    name: text('name').notNull(),
    contact: text('contact'),
    phone: text('phone'),
    /** enabled | disabled */
    status: text('status').notNull().default('enabled'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('company_name_uq').on(t.name)],
);

/** A person's sign-in identity; one account may be an employee of several companies. */
export const userAccount = pgTable(
  'user_account',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    account: text('account').notNull(),
    /** `scrypt$<logN>$<r>$<p>$<salt b64>$<hash b64>` over the browser's SHA-256 hex digest. */
    passwordHash: text('password_hash').notNull(),
    mustChangePassword: boolean('must_change_password').notNull().default(false),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('user_account_account_uq').on(t.account)],
);

/** Membership of an account in a company, with its own status, roles and alarm e-mail. */
export const employee = pgTable(
  'employee',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    userId: integer('user_id')
      .notNull()
      .references(() => userAccount.id),
    departmentId: integer('department_id'),
    name: text('name').notNull(),
    phone: text('phone'),
    email: text('email'),
    /** 'Y' = e-mail me device alarms (spec §3). */
    isSubAlarm: char('is_sub_alarm', { length: 1 }).notNull().default('N'),
    /** enabled | disabled */
    status: text('status').notNull().default('enabled'),
    isAdmin: boolean('is_admin').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('employee_company_user_uq').on(t.companyId, t.userId),
    index('employee_user_idx').on(t.userId),
  ],
);

/** A role within a company; `isAdmin` roles hold every menu (issue 2). */
export const role = pgTable(
  'role',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    name: text('name').notNull(),
    code: text('code').notNull(),
    remark: text('remark'),
    status: text('status').notNull().default('enabled'),
    isAdmin: boolean('is_admin').notNull().default(false),
    /** all | company | department_and_below | department | self (RuoYi's data scopes). */
    dataScope: text('data_scope').notNull().default('company'),
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('role_company_code_uq').on(t.companyId, t.code)],
);

export const employeeRole = pgTable(
  'employee_role',
  {
    employeeId: integer('employee_id')
      .notNull()
      .references(() => employee.id, { onDelete: 'cascade' }),
    roleId: integer('role_id')
      .notNull()
      .references(() => role.id),
  },
  (t) => [primaryKey({ columns: [t.employeeId, t.roleId] }), index('employee_role_role_idx').on(t.roleId)],
);

/**
 * Directories, pages and buttons in one tree (spec §2, §3; RuoYi's sys_menu).
 * Ids below 10000 are reserved for entries seeded by migrations.
 */
export const menu = pgTable(
  'sys_menu',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity({ startWith: 10000 }),
    parentId: integer('parent_id'),
    /** directory | page | button */
    type: text('type').notNull(),
    sort: integer('sort').notNull().default(0),
    path: text('path').notNull().default(''),
    name: text('name').notNull().default(''),
    component: text('component'),
    vueName: text('vue_name'),
    icon: text('icon'),
    titleZh: text('title_zh').notNull(),
    titleEn: text('title_en').notNull(),
    keepAlive: boolean('keep_alive').notNull().default(false),
    hidden: boolean('hidden').notNull().default(false),
    alwaysShow: boolean('always_show').notNull().default(false),
    redirect: text('redirect'),
    breadcrumb: boolean('breadcrumb').notNull().default(true),
    activeMenu: text('active_menu'),
    /** `module:resource:action`, checked by console and server. */
    perms: text('perms'),
    createdAt: createdAt(),
  },
  (t) => [index('sys_menu_parent_idx').on(t.parentId)],
);

export const roleMenu = pgTable(
  'role_menu',
  {
    roleId: integer('role_id')
      .notNull()
      .references(() => role.id, { onDelete: 'cascade' }),
    menuId: integer('menu_id')
      .notNull()
      .references(() => menu.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.menuId] })],
);

/**
 * One signed-in terminal of one employee. Tokens are stored as SHA-256 hex digests only.
 * `refreshExpiresAt` is absolute (fixed at sign-in; rotation does not extend it).
 */
export const authSession = pgTable(
  'auth_session',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => userAccount.id),
    employeeId: integer('employee_id')
      .notNull()
      .references(() => employee.id, { onDelete: 'cascade' }),
    companyId: integer('company_id').notNull(),
    terminalId: text('terminal_id').notNull(),
    accessTokenHash: text('access_token_hash').notNull(),
    accessExpiresAt: timestamp('access_expires_at', { withTimezone: true }).notNull(),
    refreshTokenHash: text('refresh_token_hash').notNull(),
    refreshExpiresAt: timestamp('refresh_expires_at', { withTimezone: true }).notNull(),
    clientIp: text('client_ip'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    lastRefreshedAt: timestamp('last_refreshed_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** logout | new-login | refresh-reuse | expired | password-changed | disabled */
    revokeReason: text('revoke_reason'),
  },
  (t) => [
    uniqueIndex('auth_session_access_uq').on(t.accessTokenHash),
    uniqueIndex('auth_session_refresh_uq').on(t.refreshTokenHash),
    index('auth_session_user_terminal_idx').on(t.userId, t.terminalId),
    index('auth_session_employee_idx').on(t.employeeId),
  ],
);

/** Refresh tokens already rotated away; presenting one again revokes its session. */
export const usedRefreshToken = pgTable(
  'used_refresh_token',
  {
    tokenHash: text('token_hash').primaryKey(),
    sessionId: integer('session_id')
      .notNull()
      .references(() => authSession.id, { onDelete: 'cascade' }),
    usedAt: timestamp('used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('used_refresh_token_session_idx').on(t.sessionId)],
);

/** Single-use proof that a password was checked, exchanged by `getUserInfo` for a session. */
export const loginTicket = pgTable('login_ticket', {
  ticketHash: text('ticket_hash').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => userAccount.id, { onDelete: 'cascade' }),
  terminalId: text('terminal_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/** Failed sign-in counters per account (`acct:<name>`) and per address (`ip:<addr>`). */
export const loginThrottle = pgTable('login_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull().defaultNow(),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
});
