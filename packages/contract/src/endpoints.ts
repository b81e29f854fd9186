/**
 * The endpoint table (design §2 "Inside the server"): every
 * `/api-bms/*` call once — its path, request and response schemas, who may call it, what the
 * operation log records, and its API-reference summary. The server registers its routes from
 * this table and the console's client is typed from it.
 *
 * Conventions of every call (spec §7, design §4): `POST` with a JSON body; HTTP 200 with
 * `{code, msg, data}`; `data` is the endpoint's `response` on success (`code` 0) and `null` on
 * any error (use {@link envelopeFor}). Bad input answers -100 naming the field. Error codes of
 * each call are listed in its `summary` / `description` (texts in errors.ts).
 *
 * The exceptions: `export.xlsx` (`file` set) — a valid request answers the file itself, a
 * refusal the usual envelope with `data: null`; `firmware.upload` (`upload` set) — the body is
 * the file, streamed, and the request schema describes the query string.
 *
 * Organised as `endpoints.<area>.<call>`; {@link ALL_ENDPOINTS} lists them flat. Each area is
 * its own module (endpoints/<area>.ts, exporting e.g. `touEndpoints`), so that the console
 * imports only the areas a page calls: an area pulls in its schemas, and the package is
 * `"sideEffects": false`, so the others stay out of that page's bundle. The server and the
 * checks use the whole table from here.
 */
import { accountEndpoints } from './endpoints/account';
import { alarmEndpoints } from './endpoints/alarm';
import { billEndpoints } from './endpoints/bill';
import {
  agentEndpoints,
  companyEndpoints,
  constructionEndpoints,
  investorEndpoints,
  ownerEndpoints,
} from './endpoints/company';
import { dashboardEndpoints } from './endpoints/dashboard';
import { debugEndpoints } from './endpoints/debug';
import type { Endpoint } from './endpoints/define';
import { departmentEndpoints } from './endpoints/department';
import { deviceEndpoints } from './endpoints/device';
import { employeeEndpoints } from './endpoints/employee';
import { exportEndpoints } from './endpoints/export';
import { firmwareEndpoints, upgradeEndpoints } from './endpoints/firmware';
import { jobEndpoints } from './endpoints/job';
import { logEndpoints } from './endpoints/log';
import { mailEndpoints } from './endpoints/mail';
import { menuEndpoints } from './endpoints/menu';
import { monitorEndpoints } from './endpoints/monitor';
import { paramsEndpoints } from './endpoints/params';
import { projectEndpoints } from './endpoints/project';
import { revenueEndpoints } from './endpoints/revenue';
import { roleEndpoints } from './endpoints/role';
import { screenEndpoints } from './endpoints/screen';
import { siteEndpoints } from './endpoints/site';
import { siteMonitorEndpoints } from './endpoints/site-monitor';
import { touEndpoints } from './endpoints/tou';
import { userEndpoints } from './endpoints/user';

export * from './endpoints/account';
export * from './endpoints/alarm';
export * from './endpoints/bill';
export * from './endpoints/company';
export * from './endpoints/dashboard';
export * from './endpoints/debug';
export * from './endpoints/define';
export * from './endpoints/department';
export * from './endpoints/device';
export * from './endpoints/employee';
export * from './endpoints/export';
export * from './endpoints/firmware';
export * from './endpoints/job';
export * from './endpoints/log';
export * from './endpoints/mail';
export * from './endpoints/menu';
export * from './endpoints/monitor';
export * from './endpoints/params';
export * from './endpoints/project';
export * from './endpoints/revenue';
export * from './endpoints/role';
export * from './endpoints/screen';
export * from './endpoints/site';
export * from './endpoints/site-monitor';
export * from './endpoints/tou';
export * from './endpoints/user';

/** Every `/api-bms/*` call, by area and call (see the module comment). */
export const endpoints = {
  user: userEndpoints,
  account: accountEndpoints,
  employee: employeeEndpoints,
  department: departmentEndpoints,
  role: roleEndpoints,
  menu: menuEndpoints,
  log: logEndpoints,
  job: jobEndpoints,
  company: companyEndpoints,
  agent: agentEndpoints,
  investor: investorEndpoints,
  construction: constructionEndpoints,
  owner: ownerEndpoints,
  site: siteEndpoints,
  device: deviceEndpoints,
  tou: touEndpoints,
  params: paramsEndpoints,
  debug: debugEndpoints,
  firmware: firmwareEndpoints,
  upgrade: upgradeEndpoints,
  dashboard: dashboardEndpoints,
  monitor: monitorEndpoints,
  siteMonitor: siteMonitorEndpoints,
  screen: screenEndpoints,
  alarm: alarmEndpoints,
  mail: mailEndpoints,
  export: exportEndpoints,
  project: projectEndpoints,
  bill: billEndpoints,
  revenue: revenueEndpoints,
} as const;

/** The areas of {@link endpoints}. */
export type EndpointArea = keyof typeof endpoints;

/** Every call of the table, flat, in table order (for route registration and checks). */
export const ALL_ENDPOINTS: readonly Endpoint[] = Object.values(endpoints).flatMap(
  (area) => Object.values(area) as Endpoint[],
);
