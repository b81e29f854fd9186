/**
 * Database schema (Drizzle pg-core): one SQL dialect for PGlite and PostgreSQL.
 * Migrations in `apps/server/drizzle/` are generated from this file (`npm run db:generate`)
 * or hand-written for seed data (menu entries), and applied at start-up.
 *
 * Times are UTC `timestamptz`. Rows that belong to a customer carry `company_id` (design §4).
 */

import type { BillResult, TouSchemeDocument, TwoPartTariff } from '@ess/contract';
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  char,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
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
  (t) => [uniqueIndex('company_name_uq').on(t.name), index('company_parent_idx').on(t.parentId)],
);

/** A department of a company: a tree per company (RuoYi's sys_dept; spec §3). */
export const department = pgTable(
  'department',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    parentId: integer('parent_id'),
    name: text('name').notNull(),
    sort: integer('sort').notNull().default(0),
    leader: text('leader'),
    phone: text('phone'),
    /** enabled | disabled */
    status: text('status').notNull().default('enabled'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('department_company_idx').on(t.companyId), index('department_parent_idx').on(t.parentId)],
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
    departmentId: integer('department_id').references(() => department.id),
    name: text('name').notNull(),
    phone: text('phone'),
    email: text('email'),
    /** 'Y' = e-mail me device alarms (spec §3). */
    isSubAlarm: char('is_sub_alarm', { length: 1 }).notNull().default('N'),
    /** Language of alarm mails ('zh' | 'en'): the one the employee last saved the e-mail setting in; null = zh. */
    mailLang: text('mail_lang'),
    /** enabled | disabled */
    status: text('status').notNull().default('enabled'),
    isAdmin: boolean('is_admin').notNull().default(false),
    /**
     * Consent of an existing account that a company outside its own added (docs/api.md "Adding
     * an existing account"): 'pending' until the account holder accepts (`user/acceptInvitation`),
     * 'declined' once they decline; null for every other membership. A membership with an
     * invitation is not in the account's company pick and opens no session.
     */
    invitation: text('invitation', { enum: ['pending', 'declined'] }),
    /**
     * When the membership was taken up: the first session in the company (a new account), or the
     * invitation accepted. Null = awaiting first sign-in, which the employee list shows alike for
     * a new and an invited account. Rows written otherwise (seed, migrations) count as joined.
     */
    joinedAt: timestamp('joined_at', { withTimezone: true }).defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('employee_company_user_uq').on(t.companyId, t.userId),
    index('employee_user_idx').on(t.userId),
  ],
);

/** A role within a company; `isAdmin` roles hold every menu. */
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
  (t) => [
    uniqueIndex('role_company_code_uq').on(t.companyId, t.code),
    uniqueIndex('role_company_name_uq').on(t.companyId, t.name),
  ],
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
    /** Only roles of the platform operator can hold it (menus are global: menu management). */
    platformOnly: boolean('platform_only').notNull().default(false),
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

/**
 * A storage site (station) of a company (spec §2 "site configuration"). Coordinates are WGS84
 * degrees; `timezone` is an IANA name used for local days and ToU periods.
 */
export const site = pgTable(
  'site',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    code: text('code').notNull(),
    name: text('name').notNull(),
    address: text('address'),
    timezone: text('timezone').notNull().default('Asia/Shanghai'),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    /** Part of the simulated demo fleet (its gateways get fresh secrets at every start). */
    isDemo: boolean('is_demo').notNull().default(false),
    /** The ToU scheme the site's EMS runs; null = none (3060 on push). */
    touSchemeId: integer('tou_scheme_id').references((): AnyPgColumn => touScheme.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('site_code_uq').on(t.code),
    index('site_company_idx').on(t.companyId),
    index('site_tou_scheme_idx').on(t.touSchemeId),
  ],
);

/**
 * A time-of-use scheme of a company (spec §3, §5, §9): time tariffs and charge strategy
 * in one document (packages/contract tou/scheme.ts), validated by tou/rules.ts before it is
 * stored. `version` grows with every update (optimistic locking, 3093) and is what the EMS
 * acknowledges.
 */
export const touScheme = pgTable(
  'tou_scheme',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    name: text('name').notNull(),
    version: integer('version').notNull().default(1),
    document: jsonb('document').$type<TouSchemeDocument>().notNull(),
    /**
     * Two-part (basic) charge entered with the scheme (contract money/valuation.ts
     * `TwoPartTariff`); null = single-part. Kept out of `document`, so `set_tou_plan` keeps its shape.
     */
    twoPart: jsonb('two_part').$type<TwoPartTariff>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('tou_scheme_company_name_uq').on(t.companyId, t.name)],
);

/**
 * Desired-state delivery to devices (devices/delivery.ts; docs/device-protocol.md "Delivery of
 * desired state"): one row per kind and target — what the target should run (`desired`, a small
 * JSON identity or document, at `version`) and how its delivery went.
 *
 * `kind`: 'tou' (the site's ToU scheme, `set_tou_plan`; target `site:<id>`, desired
 * `{schemeId}`); device parameters and OTA come later. `target` is the kind's key of the
 * receiver (`site:<id>` or `device:<id>`); `site_id` (and `device_id` for a device target) tie
 * the row to the registry (deleted with it) and to its company for scoping.
 * What the device is known to run is kept apart from what the last send did (issue 14):
 * `applied_version`/`applied_at` (columns `sent_version`/`settled_at`) the version of `desired`
 * the device last confirmed and when; `state` the delivery of `version`: pending (not sent yet) |
 * sent (waiting for the reply) | applied (the device runs `version`; a re-send keeps it, with its
 * outcome in `reason`: 'timeout' = re-sent, no answer) | failed (`reason`: the device's refusal,
 * 'timeout', or the send error; the device runs `applied_version`). `attempt` counts sends;
 * `command_id` is the id of the last one (sent at `sent_at`), the only one whose reply settles
 * the row. `claimed_by`/`lease_until` hold the send while its command is out (one per target at
 * a time, across instances); a lease that runs out frees the row for any instance.
 * `resend_after`: a resend asked for (gateway reconnected, push): due while `sent_at` is older.
 */
export const deviceDelivery = pgTable(
  'device_delivery',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    kind: text('kind').notNull(),
    target: text('target').notNull(),
    siteId: integer('site_id')
      .notNull()
      .references(() => site.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id').references(() => device.id, { onDelete: 'cascade' }),
    /** The version the target should run (grows with each change of the desired document). */
    version: integer('version').notNull(),
    /** What the target should run, as the kind identifies it (ToU: `{schemeId}`). */
    desired: jsonb('desired').$type<Record<string, unknown>>().notNull(),
    /**
     * The version of `desired` the device last confirmed running (answered ok); null: none
     * known. Kept when a later send fails or gets no answer; reset when `desired` changes
     * identity. (Column named when it was the last sent version; renaming it needs a migration.)
     */
    appliedVersion: integer('sent_version'),
    /** pending | sent | applied | failed */
    state: text('state').notNull().default('pending'),
    attempt: integer('attempt').notNull().default(0),
    commandId: text('command_id'),
    claimedBy: text('claimed_by'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    resendAfter: timestamp('resend_after', { withTimezone: true }),
    reason: text('reason'),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    /** When the device last confirmed `applied_version` (column named as `sent_version` was). */
    appliedAt: timestamp('settled_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('device_delivery_kind_target_uq').on(t.kind, t.target),
    uniqueIndex('device_delivery_command_uq').on(t.commandId),
    index('device_delivery_site_idx').on(t.siteId, t.kind),
    index('device_delivery_lease_idx').on(t.leaseUntil).where(sql`lease_until IS NOT NULL`),
  ],
);

/**
 * A device of a site (spec §3: SN, type, MQTT client ID, connection address, port). A gateway
 * (`gatewayId` null, usually the EMS) holds the MQTT connection and its secret; the other
 * devices report through it (docs/device-protocol.md).
 */
export const device = pgTable(
  'device',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => site.id),
    /** The device this one reports through; null for a gateway. */
    gatewayId: integer('gateway_id'),
    sn: text('sn').notNull(),
    /** ems | pcs | bms | meter | pv | air_conditioner | env_sensor */
    type: text('type').notNull(),
    model: text('model'),
    ratedPowerKw: doublePrecision('rated_power_kw'),
    capacityKwh: doublePrecision('capacity_kwh'),
    mqttClientId: text('mqtt_client_id'),
    /** Field-bus address of the device (e.g. its Modbus-TCP IP) and port. */
    connAddress: text('conn_address'),
    connPort: integer('conn_port'),
    firmwareVersion: text('firmware_version'),
    /** The agent company the device is assigned to (6003 when another agent has it). */
    agentId: integer('agent_id').references(() => company.id),
    /** The project the device's site is bound to (project_site); while set, its agent is fixed (6004). */
    projectId: integer('project_id'),
    /** SHA-256 hex of the gateway's MQTT secret (256-bit random, so a fast hash suffices). */
    secretHash: text('secret_hash'),
    secretIssuedAt: timestamp('secret_issued_at', { withTimezone: true }),
    online: boolean('online').notNull().default(false),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    /** lwt | clean | timeout, while offline */
    offlineReason: text('offline_reason'),
    statusChangedAt: timestamp('status_changed_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('device_sn_uq').on(t.sn),
    index('device_site_idx').on(t.siteId),
    index('device_gateway_idx').on(t.gatewayId),
  ],
);

/**
 * Raw telemetry, one row per device and device timestamp: the message's points as JSON
 * (`{"p_kw": -49.8, …}`). Wide rows keep storage near 25–35 bytes per point, and the primary
 * key (device_id, ts) both serves range reads and makes QoS 1 redeliveries idempotent.
 * Partitioned by month of `ts` in the migration (docs/architecture.md "Telemetry store").
 */
export const telemetry = pgTable(
  'telemetry',
  {
    deviceId: integer('device_id').notNull(),
    ts: timestamp('ts', { withTimezone: true }).notNull(),
    points: jsonb('points').$type<Record<string, number>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.ts] })],
);

/**
 * Rollups of every numeric point per device over 15-minute, hourly and (site-local) daily
 * buckets, maintained as data arrives: count, sum, min, max and the first/last value with their
 * times (first/last give energy per bucket from registers that only grow).
 */
export const telemetryRollup = pgTable(
  'telemetry_rollup',
  {
    deviceId: integer('device_id').notNull(),
    /** 900, 3600 or 86400 */
    bucketS: integer('bucket_s').notNull(),
    bucketStart: timestamp('bucket_start', { withTimezone: true }).notNull(),
    point: text('point').notNull(),
    n: integer('n').notNull(),
    sum: doublePrecision('sum').notNull(),
    min: doublePrecision('min').notNull(),
    max: doublePrecision('max').notNull(),
    firstTs: timestamp('first_ts', { withTimezone: true }).notNull(),
    firstValue: doublePrecision('first_value').notNull(),
    lastTs: timestamp('last_ts', { withTimezone: true }).notNull(),
    lastValue: doublePrecision('last_value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.bucketS, t.point, t.bucketStart] })],
);

/**
 * Hour and site-local day rollup buckets whose stored aggregate is behind their 15-minute ones
 * (devices/rollup-derive.ts): written by a large ingest batch, which merges only its 15-minute
 * buckets and leaves the hour and day ones to be derived from those later, in one pass for many
 * batches. `bucket_end` (exclusive) is the next bucket's start: an hour later, or the next local
 * midnight (23 or 25 h around a DST change). Claimed and deleted by the derivation, in the
 * transaction that writes the derived rows, so a crash leaves them to the next pass.
 */
export const rollupDirty = pgTable(
  'rollup_dirty',
  {
    deviceId: integer('device_id').notNull(),
    /** 3600 or 86400 */
    bucketS: integer('bucket_s').notNull(),
    bucketStart: timestamp('bucket_start', { withTimezone: true }).notNull(),
    bucketEnd: timestamp('bucket_end', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.bucketS, t.bucketStart] })],
);

/**
 * Latest value of every point per device, for instant reads. Merged as messages arrive: a newer
 * message overrides the points it carries; a late (older) one only fills points not yet known.
 */
export const deviceLatest = pgTable('device_latest', {
  deviceId: integer('device_id').primaryKey(),
  ts: timestamp('ts', { withTimezone: true }).notNull(),
  points: jsonb('points').$type<Record<string, number>>().notNull(),
  cells: jsonb('cells').$type<{ u_v?: number[]; t_c?: number[] }>(),
  cellsTs: timestamp('cells_ts', { withTimezone: true }),
});

/** Alarm events as devices report them (spec §3: EMS number, report time, event type, alarm type, level, content). */
export const alarmEvent = pgTable(
  'alarm_event',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id').notNull(),
    siteId: integer('site_id').notNull(),
    deviceId: integer('device_id').notNull(),
    /** The gateway whose message carried it, and the message id + index: idempotency key. */
    gatewayId: integer('gateway_id').notNull(),
    msgId: text('msg_id').notNull(),
    msgIndex: integer('msg_index').notNull(),
    ts: timestamp('ts', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    /** produce | disappear */
    kind: text('kind').notNull(),
    code: text('code').notNull(),
    /** warning | fault */
    level: text('level').notNull(),
    content: text('content').notNull(),
    value: doublePrecision('value'),
    /** The alarm (lifecycle row) this event raised or cleared; null when it matched none. */
    alarmId: integer('alarm_id'),
  },
  (t) => [
    uniqueIndex('alarm_event_msg_uq').on(t.gatewayId, t.msgId, t.msgIndex),
    index('alarm_event_site_ts_idx').on(t.siteId, t.ts),
    index('alarm_event_company_ts_idx').on(t.companyId, t.ts),
    // Ingest looks for a stored, unlinked `disappear` of a newly raised alarm's key
    // (devices/alarm-lifecycle.ts); only such rows are in this index, so it stays small.
    index('alarm_event_unlinked_disappear_idx')
      .on(t.deviceId, t.code, t.level, t.ts)
      .where(sql`${t.kind} = 'disappear' AND ${t.alarmId} IS NULL`),
  ],
);

/**
 * Alarms: one row per raised alarm, from its `produce` event until the
 * `disappear` event of the same device, code and level (a code's warning and fault are separate
 * alarms, docs/device-protocol.md "Alarm codes"). Maintained by the ingest in the transaction
 * that stores the events (devices/alarm-lifecycle.ts); at most one active row per key.
 * `notifyState`: pending (subscribers not yet worked out) | done (modules/alarm/alarm-mail.ts).
 */
export const alarm = pgTable(
  'alarm',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id').notNull(),
    siteId: integer('site_id').notNull(),
    deviceId: integer('device_id').notNull(),
    /** The gateway (EMS) whose message raised it: its SN is the spec's "EMS number". */
    gatewayId: integer('gateway_id').notNull(),
    code: text('code').notNull(),
    /** warning | fault */
    level: text('level').notNull(),
    content: text('content').notNull(),
    value: doublePrecision('value'),
    producedAt: timestamp('produced_at', { withTimezone: true }).notNull(),
    produceEventId: integer('produce_event_id').notNull(),
    clearedAt: timestamp('cleared_at', { withTimezone: true }),
    clearEventId: integer('clear_event_id'),
    clearContent: text('clear_content'),
    ackAt: timestamp('ack_at', { withTimezone: true }),
    ackEmployeeId: integer('ack_employee_id'),
    /** Who acknowledged, as shown: "account (name)" at the time. */
    ackBy: text('ack_by'),
    notifyState: text('notify_state').notNull().default('pending'),
  },
  (t) => [
    uniqueIndex('alarm_active_uq').on(t.deviceId, t.code, t.level).where(sql`cleared_at IS NULL`),
    index('alarm_company_produced_idx').on(t.companyId, t.producedAt),
    index('alarm_site_produced_idx').on(t.siteId, t.producedAt),
    index('alarm_notify_pending_idx').on(t.id).where(sql`notify_state = 'pending'`),
  ],
);

/** Alarms a subscriber still has to be told about, waiting for their digest mail. */
export const alarmMailPending = pgTable(
  'alarm_mail_pending',
  {
    employeeId: integer('employee_id')
      .notNull()
      .references(() => employee.id, { onDelete: 'cascade' }),
    alarmId: integer('alarm_id')
      .notNull()
      .references(() => alarm.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.employeeId, t.alarmId] })],
);

/**
 * Mails to employees (alarm digests), kept whatever happens to them: `state` queued (not yet
 * delivered; with no SMTP_URL mails stay here for the administrators to read) | sent | failed
 * (the last attempt failed: `lastError`, retried at `nextAttemptAt` with backoff). `leaseUntil`
 * claims a row for one sender across instances (modules/alarm/alarm-mail.ts).
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    /** The recipient employee's company (who may read it in the outbox). */
    companyId: integer('company_id').notNull(),
    employeeId: integer('employee_id'),
    toAddress: text('to_address').notNull(),
    /** zh | en */
    lang: text('lang').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    alarmIds: jsonb('alarm_ids').$type<number[]>().notNull(),
    state: text('state').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [
    index('mail_outbox_due_idx').on(t.state, t.nextAttemptAt),
    index('mail_outbox_company_idx').on(t.companyId, t.createdAt),
    index('mail_outbox_employee_idx').on(t.employeeId, t.createdAt),
  ],
);

/**
 * Device messages the database refused for a reason in their data (docs/device-protocol.md
 * "Dead letters"): one row per message, kept so administrators can see what a gateway sent and
 * why it was not stored, while everything else in its batch is stored (devices/ingest.ts).
 * `kind` telemetry | event; `gatewaySn` the gateway whose topic carried it; `deviceSn` the
 * message's device when it names one; `company_id`/`site_id` the gateway's, for scoping (null
 * when the gateway is no longer known). `payload` is the message as received (JSON text, after
 * validation); `error` the database's message and `errorCode` its SQLSTATE (e.g. 22P05), when any.
 */
export const deviceDeadLetter = pgTable(
  'device_dead_letter',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    companyId: integer('company_id'),
    siteId: integer('site_id'),
    gatewaySn: text('gateway_sn').notNull(),
    deviceSn: text('device_sn'),
    /** telemetry | event */
    kind: text('kind').notNull(),
    payload: text('payload').notNull(),
    error: text('error').notNull(),
    errorCode: text('error_code'),
  },
  (t) => [
    index('device_dead_letter_received_idx').on(t.receivedAt),
    index('device_dead_letter_company_idx').on(t.companyId, t.receivedAt),
  ],
);

/** Online/offline changes of gateways, with the reason (lwt, clean, timeout). */
export const deviceConnectionLog = pgTable(
  'device_connection_log',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    deviceId: integer('device_id').notNull(),
    ts: timestamp('ts', { withTimezone: true }).notNull().defaultNow(),
    online: boolean('online').notNull(),
    reason: text('reason'),
  },
  (t) => [index('device_connection_log_device_ts_idx').on(t.deviceId, t.ts)],
);

/**
 * Operation log: every change made through the API and every sign-in attempt, with
 * before → after (secrets masked) and the answer code. `company_id` is the caller's company
 * (or the target company of a failed sign-in, when known).
 */
export const operationLog = pgTable(
  'operation_log',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    ts: timestamp('ts', { withTimezone: true }).notNull().defaultNow(),
    companyId: integer('company_id'),
    employeeId: integer('employee_id'),
    account: text('account'),
    operatorName: text('operator_name'),
    /** `<resource>.<verb>`, e.g. `role.update`, `user.login`. */
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    code: integer('code').notNull(),
    ip: text('ip'),
  },
  (t) => [
    index('operation_log_company_ts_idx').on(t.companyId, t.ts),
    index('operation_log_ts_idx').on(t.ts),
  ],
);

/**
 * Runs of the scheduler's claimed tasks (jobs/scheduler.ts; docs/operations.md "Scheduled
 * jobs"). One row per task and fire time: the instance that inserts it (`ON CONFLICT DO
 * NOTHING`) runs it, so a fire runs once across server instances. `claimedBy` holds the run
 * until `leaseUntil` (renewed while it runs); an unfinished run whose lease ran out is taken over
 * by another instance (`attempts` + 1). `state` running | succeeded | failed, with the task's
 * `result` (JSON) or `error`. Rows older than the run retention are deleted (job `job-runs`).
 */
/**
 * An operator's scheduled task (issue 18; contract api/job.ts): a kind from the server's registry
 * (jobs/task-kinds.ts) with its parameters, a six-field cron read in `timezone`, a fire window
 * `[start_at, end_at)`, misfire policy `run_once | skip`, overlap, timeout, status
 * `normal | pause`. `system` rows are seeded at start (one per kind) and cannot be deleted. Its
 * runs are `job_run` rows with `task = 'job:<id>'` and `job_id` (deleted with it).
 */
export const scheduledTask = pgTable(
  'scheduled_task',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    name: text('name').notNull(),
    group: text('group').notNull(),
    kind: text('kind').notNull(),
    params: jsonb('params').$type<Record<string, number | boolean | string>>().notNull().default({}),
    cron: text('cron').notNull(),
    timezone: text('timezone').notNull().default('UTC'),
    startAt: timestamp('start_at', { withTimezone: true }),
    endAt: timestamp('end_at', { withTimezone: true }),
    /** run_once | skip */
    misfire: text('misfire').notNull().default('run_once'),
    allowOverlap: boolean('allow_overlap').notNull().default(false),
    timeoutS: integer('timeout_s').notNull(),
    /** normal | pause */
    status: text('status').notNull().default('normal'),
    remark: text('remark'),
    system: boolean('system').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('scheduled_task_group_name_uq').on(t.group, t.name),
    uniqueIndex('scheduled_task_system_kind_uq').on(t.kind).where(sql`system`),
  ],
);

export const jobRun = pgTable(
  'job_run',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    task: text('task').notNull(),
    /** The operator's task this run is of (`task = 'job:<id>'`); null for code-registered tasks. */
    jobId: integer('job_id').references(() => scheduledTask.id, { onDelete: 'cascade' }),
    /** schedule | manual | misfire */
    trigger: text('trigger').notNull().default('schedule'),
    /** The scheduled time this run is for (UTC), not when it started. */
    fireAt: timestamp('fire_at', { withTimezone: true }).notNull(),
    /** Instance id (`host:pid:random`) of the current runner. */
    claimedBy: text('claimed_by').notNull(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }).notNull(),
    state: text('state').notNull().default('running'),
    attempts: integer('attempts').notNull().default(1),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    result: jsonb('result'),
    error: text('error'),
  },
  (t) => [
    uniqueIndex('job_run_task_fire_uq').on(t.task, t.fireAt),
    index('job_run_unfinished_idx').on(t.task, t.leaseUntil).where(sql`finished_at IS NULL`),
    index('job_run_fire_idx').on(t.fireAt),
    index('job_run_job_idx').on(t.jobId, t.startedAt.desc()),
  ],
);

/* ───────────── Device parameters (issue 15; devices/params-*.ts, modules/params) ─────────────
 * Scoped like `device_delivery`: through the device (and its site), whose `company_id` is the
 * one truth — a device moved to another company (issue 14) takes its parameters along, so these
 * rows carry no company id of their own that a move could leave behind.
 */

/**
 * A device's parameter shadow (AWS IoT / Azure twin style): `version` is the server's last
 * parameter version of the device (0: none; contract params/messages.ts `nextParamsVersion`),
 * `reported` what the device last reported running (every key it has, ours or not) with its
 * version and time (null: never reported).
 */
export const deviceParams = pgTable('device_params', {
  deviceId: integer('device_id')
    .primaryKey()
    .references(() => device.id, { onDelete: 'cascade' }),
  version: integer('version').notNull().default(0),
  reported: jsonb('reported').$type<Record<string, number | string>>().notNull().default({}),
  reportedVersion: integer('reported_version'),
  reportedAt: timestamp('reported_at', { withTimezone: true }),
  updatedAt: updatedAt(),
});

/**
 * One parameter of a device: what the operator wants (`desired`, a number or a string; null:
 * nothing of ours) since `desired_version`, and its state (contract api/params.ts PARAM_STATES)
 * with the device's reason (`reason` English, `message_key`/`message_params` of the contract's
 * validator) and when the state last changed.
 */
export const deviceParamKey = pgTable(
  'device_param_key',
  {
    deviceId: integer('device_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    desired: jsonb('desired').$type<number | string | null>(),
    desiredVersion: integer('desired_version').notNull().default(0),
    /** in_sync | pending | sent | applied | refused | timeout | drift */
    state: text('state').notNull().default('in_sync'),
    reason: text('reason'),
    messageKey: text('message_key'),
    messageParams: jsonb('message_params').$type<Record<string, string | number>>(),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.key] })],
);

/**
 * Every change of a device's parameters, kept: who (`employee_id`, and the name at the time),
 * when, where from (operator | copy | initialize | device), old → new, the version it went out
 * in, and the device's answer (applied | refused | timeout, with the reason and when).
 */
export const paramChange = pgTable(
  'param_change',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    employeeId: integer('employee_id'),
    byName: text('by_name'),
    source: text('source').notNull(),
    key: text('key').notNull(),
    oldValue: jsonb('old_value').$type<number | string | null>(),
    newValue: jsonb('new_value').$type<number | string | null>(),
    version: integer('version').notNull(),
    outcome: text('outcome'),
    reason: text('reason'),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
  },
  (t) => [
    index('param_change_device_at_idx').on(t.deviceId, t.at),
    index('param_change_open_idx').on(t.deviceId, t.key).where(sql`outcome IS NULL OR outcome = 'timeout'`),
  ],
);

/**
 * The one-time initialization (commissioning) of a site (spec §8 "initialization already
 * performed", code 3049): when, by whom, the network settings written, and the gateway's answer
 * to the `initialize` command (`command_state` pending | sent | applied | failed, `reason`).
 */
export const siteParamsInit = pgTable('site_params_init', {
  siteId: integer('site_id')
    .primaryKey()
    .references(() => site.id, { onDelete: 'cascade' }),
  initializedAt: timestamp('initialized_at', { withTimezone: true }).notNull().defaultNow(),
  employeeId: integer('employee_id'),
  network: jsonb('network').$type<Record<string, number | string>>().notNull().default({}),
  commandState: text('command_state').notNull().default('pending'),
  reason: text('reason'),
  answeredAt: timestamp('answered_at', { withTimezone: true }),
});

/* ───────────── Transparent debugging (issue 15 item 5; modules/debug) ───────────── */

/**
 * A debugging session of an employee on a gateway (modules/debug/debug-service.ts; rules in
 * packages/contract api/debug.ts). Open while `closed_at` is null and `expires_at` (UTC) is
 * ahead: each frame moves `expires_at` to its time + DEBUG_IDLE_TIMEOUT_S. One open session per
 * gateway across server instances: the partial unique index `debug_session_open_uq`; a session
 * found expired is closed (`closed_at` = its `expires_at`, reason 'expired') in the same
 * transaction that opens the next. `close_reason`: closed | expired. `company_id`: the gateway's
 * company when opened (scoping). `id`: a random UUID, the API's `sessionId`.
 */
export const debugSession = pgTable(
  'debug_session',
  {
    id: text('id').primaryKey(),
    gatewayId: integer('gateway_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    employeeId: integer('employee_id')
      .notNull()
      .references(() => employee.id, { onDelete: 'cascade' }),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull(),
    lastFrameAt: timestamp('last_frame_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    closeReason: text('close_reason'),
  },
  (t) => [
    uniqueIndex('debug_session_open_uq').on(t.gatewayId).where(sql`closed_at IS NULL`),
    index('debug_session_employee_idx').on(t.employeeId),
  ],
);

/**
 * The frames sent through a gateway in debugging sessions, with their answers: `request_hex` /
 * `response_hex` as upper-case spaced hex (`01 03 00 00 00 0A C5 CD`), `rtt_ms` the round trip
 * server → broker → EMS → bus → back (null on timeout or error), `timeout` true when the bus (or
 * the EMS) stayed silent, `write` when the frame writes (function 05/06/15/16/21/22/23).
 * `error`: what the answer cannot show by itself, as data the reader's language renders —
 * `{kind: 'ems', text}` (the EMS refused), `{kind: 'noReply'}`, `{kind: 'offline'}`,
 * `{kind: 'sendFailed', detail}`, `{kind: 'badReply'}`; a response that does not decode is
 * decoded again on every read (device/modbus.ts), so its reason is not stored. A row is written
 * before the frame goes out (the per-minute count sees frames in flight on every instance) and
 * completed when the answer comes.
 */
export const debugFrame = pgTable(
  'debug_frame',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    sessionId: text('session_id')
      .notNull()
      .references(() => debugSession.id, { onDelete: 'cascade' }),
    gatewayId: integer('gateway_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    employeeId: integer('employee_id')
      .notNull()
      .references(() => employee.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull(),
    /** rs485_1 | rs485_2 | internal (contract DEBUG_PORTS) */
    port: text('port').notNull(),
    requestHex: text('request_hex').notNull(),
    responseHex: text('response_hex'),
    rttMs: integer('rtt_ms'),
    timeout: boolean('timeout').notNull().default(false),
    write: boolean('write').notNull().default(false),
    error: jsonb('error').$type<DebugFrameErrorRecord>(),
  },
  (t) => [
    index('debug_frame_session_at_idx').on(t.sessionId, t.at),
    index('debug_frame_gateway_at_idx').on(t.gatewayId, t.at),
    index('debug_frame_company_at_idx').on(t.companyId, t.at),
  ],
);

/** What `debug_frame.error` holds (see the table). */
export type DebugFrameErrorRecord =
  | { kind: 'ems'; text: string }
  | { kind: 'noReply' }
  | { kind: 'offline' }
  | { kind: 'sendFailed'; detail: string }
  | { kind: 'badReply' };

/* ───────────── Upgrade batches (issue 16 item 3; devices/ota-*.ts, modules/upgrade) ───────────── */

/**
 * An upgrade batch (spec §3 "upgrade records": batch number, operator, time; contract
 * api/firmware.ts): a published package sent to chosen devices in waves. `state`: running |
 * paused (`paused_reason`: operator | failure_rate) | finished (every device final, at
 * `finished_at`). `current_wave` is the 1-based wave now allowed to start (0 before the first);
 * `passed_wave` the highest wave whose failure rate was accepted (by the rollout, or by the
 * operator resuming a batch the failure rate paused), so a wave pauses the batch at most once.
 * `phase_timeouts_s`: the contract's `UpgradePhaseTimeouts`. `company_id`: the operator's
 * company (scoping); its devices may be any the operator's scope holds.
 */
export const upgradeBatch = pgTable(
  'upgrade_batch',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    /** `UP<yyyymmdd>-<id, 4 digits at least>` (UTC date of creation), set in the creating transaction. */
    batchNo: text('batch_no').notNull(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    /** The package sent (never deleted while a batch names it: 7036). */
    packageId: integer('package_id')
      .notNull()
      .references((): AnyPgColumn => firmwarePackage.id),
    operatorId: integer('operator_id').references(() => employee.id, { onDelete: 'set null' }),
    /** The operator's name when the batch was made (kept when the employee goes). */
    operatorName: text('operator_name').notNull(),
    state: text('state').notNull().default('running'),
    pausedReason: text('paused_reason'),
    firstWaveSize: integer('first_wave_size').notNull(),
    waveSize: integer('wave_size').notNull(),
    waveCount: integer('wave_count').notNull(),
    currentWave: integer('current_wave').notNull().default(0),
    passedWave: integer('passed_wave').notNull().default(0),
    failureRateThresholdPct: integer('failure_rate_threshold_pct').notNull(),
    maxConcurrentDownloads: integer('max_concurrent_downloads').notNull(),
    phaseTimeoutsS: jsonb('phase_timeouts_s').$type<Record<string, number>>().notNull(),
    includeOffline: boolean('include_offline').notNull().default(false),
    remark: text('remark'),
    deadlineAt: timestamp('deadline_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('upgrade_batch_no_uq').on(t.batchNo),
    index('upgrade_batch_company_idx').on(t.companyId, t.createdAt),
    index('upgrade_batch_package_idx').on(t.packageId),
    index('upgrade_batch_open_idx').on(t.state).where(sql`state <> 'finished'`),
  ],
);

/**
 * One device of an upgrade batch and its timeline (devices/ota-batches.ts). `state`: waiting |
 * sent | downloading | downloaded | verifying | installing | rebooting | success | failed |
 * cancelled (contract UPGRADE_DEVICE_STATES); `reason` (UPGRADE_FAIL_REASONS) and `detail` when
 * failed. `attempt` counts starts (1 + retries); the claim that moves a row waiting → sent is one
 * conditional UPDATE (under a lock of the batch row), so one instance sends `ota_upgrade` once
 * per attempt, with `command_id` stored before it goes out (the reply settles it on any
 * instance). `started_by`: the instance that sent it (its download slots, OTA_MAX_DOWNLOADS).
 * `phase_deadline_at`: when the current started state fails with `timeout` (null while waiting —
 * the batch's `deadline_at` bounds it — and once final). `timeline`: the states entered, oldest
 * first (contract `UpgradeTimelineEntry`). One non-final row per device across batches
 * (`upgrade_device_active_uq`).
 */
export const upgradeDevice = pgTable(
  'upgrade_device',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    batchId: integer('batch_id')
      .notNull()
      .references(() => upgradeBatch.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    /** 1-based wave. */
    wave: integer('wave').notNull(),
    fromVersion: text('from_version'),
    toVersion: text('to_version').notNull(),
    state: text('state').notNull().default('waiting'),
    percent: integer('percent'),
    reason: text('reason'),
    detail: text('detail'),
    attempt: integer('attempt').notNull().default(1),
    commandId: text('command_id'),
    startedBy: text('started_by'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    phaseDeadlineAt: timestamp('phase_deadline_at', { withTimezone: true }),
    updatedAt: updatedAt(),
    timeline: jsonb('timeline').$type<UpgradeTimelineRecord[]>().notNull().default(sql`'[]'::jsonb`),
  },
  (t) => [
    uniqueIndex('upgrade_device_batch_device_uq').on(t.batchId, t.deviceId),
    uniqueIndex('upgrade_device_command_uq').on(t.commandId),
    uniqueIndex('upgrade_device_active_uq')
      .on(t.deviceId)
      .where(sql`state NOT IN ('success', 'failed', 'cancelled')`),
    index('upgrade_device_batch_state_idx').on(t.batchId, t.state, t.wave),
    index('upgrade_device_deadline_idx').on(t.phaseDeadlineAt).where(sql`phase_deadline_at IS NOT NULL`),
  ],
);

/** One entry of `upgrade_device.timeline` (contract `UpgradeTimelineEntry`). */
export interface UpgradeTimelineRecord {
  state: string;
  at: string;
  percent: number | null;
  reason: string | null;
  detail: string | null;
}

/* ───────────── Firmware packages (issue 16 item 1; devices/firmware-store.ts, modules/firmware) ───────────── */

/** PostgreSQL `bytea` (Drizzle 0.45 has no built-in): a Buffer in, a Buffer or Uint8Array out. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
});

/**
 * A firmware package (contract api/firmware.ts). `state`: `uploading` (its chunks are being
 * written; invisible to every call, deleted when the upload fails, and swept when its
 * `updated_at` — touched by every chunk — is older than the stale-upload age: the instance
 * died) → `unused` → `published` ⇄ `disabled`. `size_bytes`, `sha256` (lower-case hex) and
 * `uploaded_at` are set when the whole file is in. `chunk_bytes`: the size of every chunk but
 * the last. A version is unique per device type among finished packages
 * (`firmware_package_type_version_uq`; a second upload of it fails at the end with 7032).
 * `company_id`: the uploader's company (a platform package is offered to every company).
 */
export const firmwarePackage = pgTable(
  'firmware_package',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    name: text('name').notNull(),
    version: text('version').notNull(),
    /** contract DEVICE_TYPES */
    deviceType: text('device_type').notNull(),
    /** Models it is for; empty: every model of the type. */
    models: jsonb('models').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    releaseNoteZh: text('release_note_zh'),
    releaseNoteEn: text('release_note_en'),
    fileName: text('file_name').notNull(),
    sizeBytes: integer('size_bytes').notNull().default(0),
    sha256: text('sha256'),
    chunkBytes: integer('chunk_bytes').notNull(),
    state: text('state').notNull().default('uploading'),
    uploaderId: integer('uploader_id').references(() => employee.id, { onDelete: 'set null' }),
    /** The uploader's name at the upload (kept when the employee goes). */
    uploaderName: text('uploader_name').notNull(),
    uploadedAt: timestamp('uploaded_at', { withTimezone: true }),
    stateChangedAt: timestamp('state_changed_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('firmware_package_type_version_uq')
      .on(t.deviceType, t.version)
      .where(sql`state <> 'uploading'`),
    index('firmware_package_company_idx').on(t.companyId, t.uploadedAt),
    index('firmware_package_uploading_idx').on(t.updatedAt).where(sql`state = 'uploading'`),
  ],
);

/** The bytes of a package: chunk `seq` (0-based) holds bytes `seq × chunk_bytes …`. */
export const firmwareChunk = pgTable(
  'firmware_chunk',
  {
    packageId: integer('package_id')
      .notNull()
      .references(() => firmwarePackage.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.packageId, t.seq] })],
);

/**
 * A device download token (`GET /ota/<token>`): stored as its SHA-256 (hex), bound to one
 * package and one device, valid until `expires_at`; used as often as the device needs (resume)
 * until then. Expired rows are swept with stale uploads.
 */
export const firmwareDownloadToken = pgTable(
  'firmware_download_token',
  {
    tokenHash: text('token_hash').primaryKey(),
    packageId: integer('package_id')
      .notNull()
      .references(() => firmwarePackage.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('firmware_download_token_expires_idx').on(t.expiresAt)],
);

/* ───────────── Projects (issue 17 item 1; modules/project, contract api/project.ts) ─────────────
 * A project is a company's contract around one or more storage sites: who built it (construction
 * party), who brought it (agent), whose premises (owner), who financed it (investors with ratios)
 * and how the benefit is shared (self-investment) or the rent paid (leasing). Every row carries the
 * project's `company_id` (the company that runs it), scoped like sites (access/company-scope.ts).
 * Money is `numeric` (exact decimals, read as numbers); ratios are percent with two decimals.
 * Monthly bills (issue 17 item 5) read these tables: the contract, the meters with their CT/PT and
 * the site bindings by local date.
 */

/**
 * A project. `status`: to_be_started | under_construction | in_operation | suspended | ended
 * (transitions in contract `PROJECT_STATUS_TRANSITIONS`). Contract cycle: `contract_start` (local
 * date) for `contract_years` (1–30) years. `income_mode` self_investment (owner keeps
 * `owner_share_pct`, investors share the rest by their ratios) | leasing (the owner pays rent to
 * the investors: `rent_basis` monthly → `rent_cny` CNY/month; per_kwh_capacity → `rent_cny` CNY
 * per kWh of `capacity_kwh` per month). Maintenance and insurance are CNY/month, borne by
 * `cost_bearer` investors | owner | shared (by the ratios).
 */
export const project = pgTable(
  'project',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    name: text('name').notNull(),
    address: text('address'),
    longitude: doublePrecision('longitude'),
    latitude: doublePrecision('latitude'),
    /** Partner companies (company.type construction / agent / owner). */
    constructionCompanyId: integer('construction_company_id').references(() => company.id),
    agentCompanyId: integer('agent_company_id').references(() => company.id),
    ownerCompanyId: integer('owner_company_id').references(() => company.id),
    contractStart: date('contract_start', { mode: 'string' }).notNull(),
    contractYears: integer('contract_years').notNull(),
    status: text('status').notNull().default('to_be_started'),
    /** Installed storage capacity (kWh) the per-capacity rent is charged on. */
    capacityKwh: numeric('capacity_kwh', { precision: 14, scale: 3, mode: 'number' }),
    incomeMode: text('income_mode').notNull(),
    /** self_investment: the owner's share of the benefit, percent (owner + investors = 100). */
    ownerSharePct: numeric('owner_share_pct', { precision: 5, scale: 2, mode: 'number' }),
    /** leasing: monthly | per_kwh_capacity */
    rentBasis: text('rent_basis'),
    /** leasing: CNY/month (monthly) or CNY per kWh of capacity per month (per_kwh_capacity). */
    rentCny: numeric('rent_cny', { precision: 14, scale: 4, mode: 'number' }),
    maintenanceCnyPerMonth: numeric('maintenance_cny_per_month', { precision: 14, scale: 2, mode: 'number' })
      .notNull()
      .default(0),
    insuranceCnyPerMonth: numeric('insurance_cny_per_month', { precision: 14, scale: 2, mode: 'number' })
      .notNull()
      .default(0),
    /** investors | owner | shared */
    costBearer: text('cost_bearer').notNull().default('investors'),
    remark: text('remark'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('project_company_name_uq').on(t.companyId, t.name),
    index('project_company_idx').on(t.companyId),
  ],
);

/** An investor of a project (company.type investor) and its ratio, percent with two decimals. */
export const projectInvestor = pgTable(
  'project_investor',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    projectId: integer('project_id')
      .notNull()
      .references(() => project.id, { onDelete: 'cascade' }),
    investorCompanyId: integer('investor_company_id')
      .notNull()
      .references(() => company.id),
    ratioPct: numeric('ratio_pct', { precision: 5, scale: 2, mode: 'number' }).notNull(),
    sort: integer('sort').notNull().default(0),
  },
  (t) => [uniqueIndex('project_investor_uq').on(t.projectId, t.investorCompanyId)],
);

/**
 * A site's binding to a project over local dates `[bound_from, bound_to)` in the site's time zone
 * (`bound_to` null = still bound). A site is bound to at most one project at a time; a site moved
 * mid-month has two rows, so a bill splits by date. While bound, the site's devices carry
 * `device.project_id`.
 */
export const projectSite = pgTable(
  'project_site',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    projectId: integer('project_id')
      .notNull()
      .references(() => project.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => site.id, { onDelete: 'cascade' }),
    boundFrom: date('bound_from', { mode: 'string' }).notNull(),
    boundTo: date('bound_to', { mode: 'string' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('project_site_open_uq').on(t.siteId).where(sql`bound_to IS NULL`),
    index('project_site_project_idx').on(t.projectId),
  ],
);

/**
 * A storage meter of a project (device.type meter of a bound site): CT and PT ratio (> 0) and
 * whether it reads the secondary side (then energy = reading × CT × PT; otherwise the reading is
 * primary energy and the ratios are recorded only).
 */
export const projectMeter = pgTable(
  'project_meter',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    projectId: integer('project_id')
      .notNull()
      .references(() => project.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    ctRatio: numeric('ct_ratio', { precision: 12, scale: 4, mode: 'number' }).notNull(),
    ptRatio: numeric('pt_ratio', { precision: 12, scale: 4, mode: 'number' }).notNull(),
    readsSecondary: boolean('reads_secondary').notNull().default(false),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('project_meter_uq').on(t.projectId, t.deviceId)],
);

/**
 * A recorded replacement of a project's storage meter (issue 17 "a meter reading that goes
 * backwards (meter replaced: record the swap, bill both parts)"). The gateway keeps the same
 * `device` row (`device_id`, the declared storage meter); the physical meter changes at
 * `swapped_at`. The old meter's final and the new meter's initial import/export total registers
 * (kWh, the meter's own side: secondary kWh when it reads the secondary) close and open the two
 * parts; the old meter's CT, PT and side are kept here (the `project_meter` row holds the new
 * meter's). devices/tier-energy.ts splits the period holding the instant in two; the bills bill
 * both parts (money/bill.ts, a swap is two meters). One swap per meter and instant.
 */
export const projectMeterSwap = pgTable(
  'project_meter_swap',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    projectId: integer('project_id')
      .notNull()
      .references(() => project.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    swappedAt: timestamp('swapped_at', { withTimezone: true }).notNull(),
    oldImportKwh: doublePrecision('old_import_kwh').notNull(),
    oldExportKwh: doublePrecision('old_export_kwh').notNull(),
    newImportKwh: doublePrecision('new_import_kwh').notNull(),
    newExportKwh: doublePrecision('new_export_kwh').notNull(),
    oldCtRatio: numeric('old_ct_ratio', { precision: 12, scale: 4, mode: 'number' }).notNull(),
    oldPtRatio: numeric('old_pt_ratio', { precision: 12, scale: 4, mode: 'number' }).notNull(),
    oldReadsSecondary: boolean('old_reads_secondary').notNull(),
    oldSerial: text('old_serial'),
    newSerial: text('new_serial'),
    note: text('note'),
    createdBy: integer('created_by').references(() => employee.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('project_meter_swap_uq').on(t.deviceId, t.swappedAt),
    index('project_meter_swap_project_idx').on(t.projectId),
  ],
);

/**
 * History of a project: who did what when. `action` create | update | status | bind | unbind;
 * `changes` the changed fields with before/after values (contract `ProjectChangeEntry`).
 */
export const projectChange = pgTable(
  'project_change',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    projectId: integer('project_id')
      .notNull()
      .references(() => project.id, { onDelete: 'cascade' }),
    action: text('action').notNull(),
    changes: jsonb('changes')
      .$type<{ field: string; before: unknown; after: unknown }[]>()
      .notNull()
      .default([]),
    employeeId: integer('employee_id').references(() => employee.id, { onDelete: 'set null' }),
    userName: text('user_name'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('project_change_project_idx').on(t.projectId, t.at.desc())],
);

/* ======================================================================================
 * Tariff history and energy per tier (issue 17 items 2 and 3; H-money). Revenue statistics,
 * big screens and monthly bills read these (modules/revenue, contract money/valuation.ts).
 * ==================================================================================== */

/**
 * The tariff a site is billed at from a site-local date on (issue 17 item 2): one row per version.
 * A version holds a snapshot of the ToU scheme document (the prices as they were), the scheme it
 * came from (id, name, version) and the two-part charge. The version of a day is the one with the
 * latest `effective_from` ≤ that day (devices/tariff-history.ts `tariffForDay`); days before
 * a site's first version have no tariff. Written when a scheme is assigned to a site or edited, from
 * the date the operator picks; a second version on the same date replaces the first.
 */
export const siteTariff = pgTable(
  'site_tariff',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => site.id, { onDelete: 'cascade' }),
    /** First site-local day the version prices. */
    effectiveFrom: date('effective_from', { mode: 'string' }).notNull(),
    /** The scheme it was taken from (null once that scheme is deleted; the snapshot stays). */
    touSchemeId: integer('tou_scheme_id').references(() => touScheme.id, { onDelete: 'set null' }),
    schemeName: text('scheme_name').notNull(),
    schemeVersion: integer('scheme_version').notNull(),
    document: jsonb('document').$type<TouSchemeDocument>().notNull(),
    twoPart: jsonb('two_part').$type<TwoPartTariff>(),
    createdAt: createdAt(),
    /** Who wrote the version (user name), null for the system (migration, demo). */
    createdBy: text('created_by'),
  },
  (t) => [
    uniqueIndex('site_tariff_site_from_uq').on(t.siteId, t.effectiveFrom),
    index('site_tariff_company_idx').on(t.companyId),
  ],
);

/**
 * Charged and discharged energy of a storage metering device per ToU period of a site-local day
 * (issue 17 item 3; devices/tier-energy.ts). One row per device and period: the period's
 * bounds (UTC instants and local `HH:MM`), tier and price from the day's tariff version
 * (`site_tariff_id`; null tier/price: no tariff that day), the energy (kWh, primary side:
 * register difference × `multiplier` = CT × PT) and where it came from: `registers` (the
 * cumulative registers at the period's bounds, `*_start`/`*_end` readings kept for the bill) or
 * `power` (a bound reading was missing or went backwards: the 15-minute rollups' mean power ×
 * time). Recomputed whole per device and day.
 */
export const energyTierDay = pgTable(
  'energy_tier_day',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => site.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => device.id, { onDelete: 'cascade' }),
    /** Site-local day. */
    day: date('day', { mode: 'string' }).notNull(),
    startAt: timestamp('start_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    startHhmm: text('start_hhmm').notNull(),
    endHhmm: text('end_hhmm').notNull(),
    /** sharp | peak | shoulder | off_peak; null: no tariff that day. */
    tier: text('tier'),
    priceCnyPerKwh: numeric('price_cny_per_kwh', { precision: 12, scale: 6, mode: 'number' }),
    siteTariffId: integer('site_tariff_id').references(() => siteTariff.id, { onDelete: 'set null' }),
    chargedKwh: numeric('charged_kwh', { precision: 16, scale: 3, mode: 'number' }).notNull(),
    dischargedKwh: numeric('discharged_kwh', { precision: 16, scale: 3, mode: 'number' }).notNull(),
    /** registers | power */
    source: text('source').notNull(),
    /** The registers read (import/export of a meter, charge/discharge of a PCS) at the bounds. */
    chargeStart: doublePrecision('charge_start'),
    chargeEnd: doublePrecision('charge_end'),
    dischargeStart: doublePrecision('discharge_start'),
    dischargeEnd: doublePrecision('discharge_end'),
    /** CT × PT applied to register differences (1 on the primary side). */
    multiplier: doublePrecision('multiplier').notNull().default(1),
    computedAt: timestamp('computed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.deviceId, t.startAt] }),
    index('energy_tier_day_site_day_idx').on(t.siteId, t.day),
    index('energy_tier_day_company_day_idx').on(t.companyId, t.day),
  ],
);

/**
 * Maximum demand of a closed site-local day (issue 17 item 5; devices/site-demand.ts): the day's
 * highest 15-minute grid import with storage and without (contract money/demand.ts), kW, null when
 * no grid figure was measured. Stored when the day closes, with the energy per tier
 * (devices/closed-days.ts `closeDays`), so a month's bills read 31 rows a site instead of every
 * quarter hour of its meters. A row holds for the zone and the grid/battery sources (`sources`, e.g.
 * `batteryKw:13:p_kw;gridKw:12:p_kw`) it was computed with: when the site's differ (a storage
 * meter declared, a device moved, the zone changed) the row is ignored and computed again.
 */
export const siteDemandDay = pgTable(
  'site_demand_day',
  {
    siteId: integer('site_id')
      .notNull()
      .references(() => site.id, { onDelete: 'cascade' }),
    /** Site-local day. */
    day: date('day', { mode: 'string' }).notNull(),
    timezone: text('timezone').notNull(),
    sources: text('sources').notNull(),
    maxDemandKw: doublePrecision('max_demand_kw'),
    baselineMaxDemandKw: doublePrecision('baseline_max_demand_kw'),
    computedAt: timestamp('computed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day] })],
);

/* ───────────── Monthly bills (issue 17 item 5; H-bill: modules/bill, contract money/bill.ts) ─────────────
 * One row per project × site-local month × version. `state` draft | confirmed. A draft may be
 * drafted again (recomputed in place, version kept); a confirmed version is never changed: a
 * correction is a new version (`reason` required) drafted and confirmed in its turn, and the
 * month's settlement is its highest confirmed version. Confirming a confirmed bill, or drafting
 * over one, answers 7060 (electricity settlement already done). `document` is the contract's
 * `BillResult` (lines, demand, parties, totals) as computed; the money columns repeat its totals
 * for lists and sums.
 */
export const bill = pgTable(
  'bill',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    companyId: integer('company_id')
      .notNull()
      .references(() => company.id),
    projectId: integer('project_id')
      .notNull()
      .references(() => project.id, { onDelete: 'cascade' }),
    /** `YYYY-MM`, local to the project's sites. */
    month: text('month').notNull(),
    version: integer('version').notNull(),
    /** draft | confirmed */
    state: text('state').notNull().default('draft'),
    /** Why a correction was made (versions > 1). */
    reason: text('reason'),
    incomeMode: text('income_mode').notNull(),
    costCny: numeric('cost_cny', { precision: 16, scale: 2, mode: 'number' }).notNull(),
    valueCny: numeric('value_cny', { precision: 16, scale: 2, mode: 'number' }).notNull(),
    netBenefitCny: numeric('net_benefit_cny', { precision: 16, scale: 2, mode: 'number' }).notNull(),
    document: jsonb('document').$type<BillResult>().notNull(),
    createdAt: createdAt(),
    /** Name of the employee who drafted it when drafted (kept if the employee is deleted); null = the monthly task. */
    createdBy: text('created_by'),
    /** The employee who drafted it (reads show the employee's current name); null = the monthly task or deleted. */
    createdById: integer('created_by_id').references(() => employee.id, { onDelete: 'set null' }),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
    /** Name of the employee who settled it, when settled. */
    confirmedBy: text('confirmed_by'),
    /** The employee who settled it; null when not settled or the employee was deleted. */
    confirmedById: integer('confirmed_by_id').references(() => employee.id, { onDelete: 'set null' }),
  },
  (t) => [
    uniqueIndex('bill_project_month_version_uq').on(t.projectId, t.month, t.version),
    index('bill_company_month_idx').on(t.companyId, t.month),
  ],
);
