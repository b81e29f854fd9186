/**
 * The budgets of docs/architecture.md "Budgets" (= design §6), checked against the figures of
 * `npm run bench`. The rows are read from the document's table, so a row added there without a
 * check here shows as "not checked by the bench" instead of passing silently.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Figures a run collected (absent = section not run). */
export interface Measured {
  bundles?: { route: string; servedKb: number }[];
  api?: { ratio: number; p99AtRateMs: number };
  ingestEmbedded?: { oursMedian: number; lost: number };
  /** Medians, msg/s: ours with one instance, bare subscriber, plain pipeline, ours with two instances. */
  ingestExternal?: { ours: number; bare: number; plain: number; two: number };
  history?: { p95Ms: number; fromRollups: boolean };
  live?: { p95Ms: number };
  storage?: { bytesPerPoint: number };
  /** OTA runs (bench/ota.ts): the server's peak RSS (upload and batch), devices final of those in the batch. */
  otaPostgres?: OtaMeasured;
  otaPglite?: OtaMeasured;
  /** Monthly bills (bench/bills.ts, with history): projects drafted, the drafts once the days are closed, refusals. */
  billsPglite?: BillsMeasured;
  billsPostgres?: BillsMeasured;
  /** Sections that stopped with an error. */
  errors: Record<string, string>;
}

export interface BillsMeasured {
  projects: number;
  draftMs: number;
  failed: number;
}

export interface OtaMeasured {
  devices: number;
  packageMiB: number;
  final: number;
  rssPeakMb: number;
  wallS: number;
}

/** The budget's size: a run with fewer devices or a smaller package (BENCH_OTA_*) proves nothing. */
const OTA_BUDGET_DEVICES = 200;
const OTA_BUDGET_MIB = 20;

export interface CheckRow {
  budget: string;
  check: string;
  figure: string;
  status: 'met' | 'MISSED' | 'not run' | 'ERROR' | 'not measured';
}

const docPath = fileURLToPath(new URL('../docs/architecture.md', import.meta.url));

/** The `| what | budget |` rows of the Budgets section. */
export function budgetRows(): { what: string; budget: string }[] {
  const text = readFileSync(docPath, 'utf8');
  const start = text.indexOf('\n## Budgets');
  if (start < 0) throw new Error('docs/architecture.md has no "## Budgets" section');
  const section = text.slice(start + 1).split('\n## ')[0]!;
  return section
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l) && !/^\|\s*what\s*\|/.test(l))
    .map((l) => {
      const [what, budget] = l
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim());
      return { what: what!, budget: budget! };
    });
}

const row = (
  budget: string,
  check: string,
  value: number | undefined,
  ok: (v: number) => boolean,
  show: (v: number) => string,
  section: keyof Measured,
  m: Measured,
): CheckRow => {
  if (m.errors[section]) return { budget, check, figure: m.errors[section]!.slice(0, 60), status: 'ERROR' };
  if (value === undefined || Number.isNaN(value)) return { budget, check, figure: '—', status: 'not run' };
  return { budget, check, figure: show(value), status: ok(value) ? 'met' : 'MISSED' };
};

/** One line per condition of every budget row. */
export function checkBudgets(m: Measured): CheckRow[] {
  const out: CheckRow[] = [];
  for (const { what } of budgetRows()) {
    if (what.startsWith('gzipped JS')) {
      const routes = m.bundles ?? [
        { route: '/login', servedKb: Number.NaN },
        { route: 'others', servedKb: Number.NaN },
      ];
      for (const r of routes) {
        const limit = r.route === '/login' ? 200 : 350;
        out.push(
          row(
            what,
            `${r.route} ≤ ${limit} KB served`,
            r.servedKb,
            (v) => v <= limit,
            (v) => `${v} KB`,
            'bundles',
            m,
          ),
        );
      }
    } else if (what.startsWith('scoped list call')) {
      out.push(
        row(
          what,
          '≥ 0.7 × bare Fastify + pg',
          m.api?.ratio,
          (v) => v >= 0.7,
          (v) => `${v.toFixed(2)}×`,
          'api',
          m,
        ),
      );
      out.push(
        row(
          what,
          'p99 ≤ 50 ms at 200 req/s',
          m.api?.p99AtRateMs,
          (v) => v <= 50,
          (v) => `${v} ms`,
          'api',
          m,
        ),
      );
    } else if (what.startsWith('telemetry ingest')) {
      out.push(
        row(
          what,
          'embedded ≥ 2,000 msg/s',
          m.ingestEmbedded?.oursMedian,
          (v) => v >= 2000,
          (v) => `${v} msg/s`,
          'ingestEmbedded',
          m,
        ),
      );
      out.push(
        row(
          what,
          'embedded QoS 1 lossless',
          m.ingestEmbedded?.lost,
          (v) => v === 0,
          (v) => `${v} lost`,
          'ingestEmbedded',
          m,
        ),
      );
      const ext = m.ingestExternal;
      out.push(
        row(
          what,
          'PostgreSQL + Mosquitto ≥ 0.5 × bare',
          ext && ext.ours / ext.bare,
          (v) => v >= 0.5,
          (v) => `${v.toFixed(2)}×`,
          'ingestExternal',
          m,
        ),
      );
      out.push(
        row(
          what,
          'PostgreSQL + Mosquitto ≥ 0.8 × plain unnest',
          ext && ext.ours / ext.plain,
          (v) => v >= 0.8,
          (v) => `${v.toFixed(2)}×`,
          'ingestExternal',
          m,
        ),
      );
      out.push(
        row(
          what,
          'two instances ≥ 1.7 × one',
          ext && ext.two / ext.ours,
          (v) => v >= 1.7,
          (v) => `${v.toFixed(2)}×`,
          'ingestExternal',
          m,
        ),
      );
    } else if (what.startsWith('year chart')) {
      out.push(
        row(
          what,
          'p95 ≤ 50 ms from rollups',
          m.history?.p95Ms,
          (v) => v <= 50,
          (v) => `${v} ms`,
          'history',
          m,
        ),
      );
    } else if (what.startsWith('device → browser')) {
      out.push(
        row(
          what,
          'p95 ≤ 500 ms, 100 dashboards',
          m.live?.p95Ms,
          (v) => v <= 500,
          (v) => `${v} ms`,
          'live',
          m,
        ),
      );
    } else if (what.startsWith('storage')) {
      out.push(
        row(
          what,
          '≤ 40 B per raw point',
          m.storage?.bytesPerPoint,
          (v) => v <= 40,
          (v) => `${v.toFixed(1)} B`,
          'storage',
          m,
        ),
      );
    } else if (what.startsWith('monthly bills')) {
      for (const [key, label] of [
        ['billsPglite', 'PGlite'],
        ['billsPostgres', 'PostgreSQL'],
      ] as const) {
        const b = m[key];
        const all = b && b.projects >= 100 && b.failed === 0 ? b : undefined;
        out.push(
          row(
            what,
            `100 projects drafted ≤ 2 s on ${label}`,
            all?.draftMs,
            (v) => v <= 2000,
            (v) => `${v} ms`,
            key,
            m,
          ),
        );
      }
    } else if (what.startsWith('OTA')) {
      const full = (o: OtaMeasured | undefined) =>
        o && o.devices >= OTA_BUDGET_DEVICES && o.packageMiB >= OTA_BUDGET_MIB ? o : undefined;
      // a reduced run (BENCH_OTA_DEVICES / BENCH_OTA_MIB) says so instead of "not run"
      const reduced = (key: 'otaPostgres' | 'otaPglite', check: string): CheckRow | undefined => {
        const o = m[key];
        return o && !full(o) && !m.errors[key]
          ? { budget: what, check, figure: `${o.devices} × ${o.packageMiB} MiB run`, status: 'not measured' }
          : undefined;
      };
      const pgOta = full(m.otaPostgres);
      const rssCheck = 'server RSS ≤ 300 MB on PostgreSQL';
      out.push(
        reduced('otaPostgres', rssCheck) ??
          row(
            what,
            rssCheck,
            pgOta?.rssPeakMb,
            (v) => v <= 300,
            (v) => `${v} MB peak`,
            'otaPostgres',
            m,
          ),
      );
      for (const [key, label] of [
        ['otaPostgres', 'PostgreSQL'],
        ['otaPglite', 'PGlite'],
      ] as const) {
        const o = full(m[key]);
        const check = `every device final, 200 × 20 MiB on ${label}`;
        out.push(
          reduced(key, check) ??
            row(
              what,
              check,
              o && o.devices - o.final,
              (v) => v === 0,
              (v) => `${v} of ${o!.devices} not final; ${o!.wallS} s`,
              key,
              m,
            ),
        );
      }
    } else {
      out.push({ budget: what, check: '', figure: '—', status: 'not measured' });
    }
  }
  return out;
}

export function printChecks(rows: CheckRow[]): void {
  console.log('\nBudgets (docs/architecture.md "Budgets" = design §6)');
  const w = Math.max(...rows.map((r) => r.check.length), 10);
  let last = '';
  for (const r of rows) {
    if (r.budget !== last) console.log(`  ${r.budget}`);
    last = r.budget;
    console.log(`    ${r.status.padEnd(12)} ${r.check.padEnd(w)}  ${r.figure}`);
  }
}

/** Missed or failed conditions make `--check` fail; "not measured" rows do not. */
export const failed = (rows: CheckRow[]) => rows.filter((r) => r.status === 'MISSED' || r.status === 'ERROR');
