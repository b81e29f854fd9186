/**
 * Firmware packages (issue 16 item 1; contract api/firmware.ts): the SQL of the list, the detail
 * and the state changes. The bytes are devices/firmware-store.ts's.
 *
 * Rules, in check order:
 * - a package outside what the caller sees (devices/firmware-store.ts `firmwareVisibleSql`), or
 *   still uploading, answers 7030 as if absent;
 * - publish, disable and delete need the package's company in the caller's scope (a platform
 *   package seen by another company: 5034);
 * - publish: `unused` or `disabled` → `published`; disable: `published` → `disabled`; else 7035
 *   naming the state (conditional UPDATEs: two operators at once cannot both change it);
 * - delete: refused with 7036 while an upgrade batch names the package (also when one is
 *   created meanwhile: the batch's foreign key refuses the delete, 23503 → 7036).
 */
import {
  ErrorCode,
  FIRMWARE_PACKAGE_STATE_LABELS,
  type FirmwarePackage,
  type FirmwarePackageState,
  type Lang,
  type Page,
} from '@ess/contract';
import { type SQL, sql } from 'drizzle-orm';
import { type CompanyScope, inScopeSql, scopeIncludes } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { rowsOf } from '../../core/db/rows';
import { sqlState } from '../../core/db/sql-errors';
import { ApiError } from '../../core/http/api-error';
import { firmwareVisibleSql } from '../../devices/firmware-store';

interface PackageRow {
  id: number;
  name: string;
  version: string;
  device_type: FirmwarePackage['deviceType'];
  models: string[] | string;
  release_note_zh: string | null;
  release_note_en: string | null;
  file_name: string;
  size_bytes: number | string;
  sha256: string;
  state: FirmwarePackageState;
  company_id: number;
  company_name: string;
  uploader_name: string;
  uploaded_at: Date | string;
  state_changed_at: Date | string | null;
  batch_count: number | string;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

function toPackage(r: PackageRow): FirmwarePackage {
  return {
    id: Number(r.id),
    name: r.name,
    version: r.version,
    deviceType: r.device_type,
    models: typeof r.models === 'string' ? (JSON.parse(r.models) as string[]) : r.models,
    releaseNoteZh: r.release_note_zh,
    releaseNoteEn: r.release_note_en,
    fileName: r.file_name,
    sizeBytes: Number(r.size_bytes),
    sha256: r.sha256,
    state: r.state,
    companyId: Number(r.company_id),
    companyName: r.company_name,
    uploaderName: r.uploader_name,
    uploadedAt: iso(r.uploaded_at)!,
    stateChangedAt: iso(r.state_changed_at),
    batchCount: Number(r.batch_count),
  };
}

const SELECT_PACKAGE = sql`
  SELECT p.id, p.name, p.version, p.device_type, p.models, p.release_note_zh, p.release_note_en,
         p.file_name, p.size_bytes, p.sha256, p.state, p.company_id, c.name AS company_name,
         p.uploader_name, p.uploaded_at, p.state_changed_at,
         (SELECT count(*) FROM upgrade_batch b WHERE b.package_id = p.id) AS batch_count
  FROM firmware_package p JOIN company c ON c.id = p.company_id`;

export interface PackageListFilter {
  pageNum: number;
  pageSize: number;
  keyword?: string | undefined;
  deviceType?: string | undefined;
  state?: FirmwarePackageState | undefined;
}

export class FirmwareService {
  constructor(private readonly db: Db) {}

  /** Packages the caller sees, newest upload first. */
  async pageList(scope: CompanyScope, filter: PackageListFilter): Promise<Page<FirmwarePackage>> {
    const where: SQL[] = [sql`p.state <> 'uploading'`, firmwareVisibleSql(scope)];
    if (filter.keyword) {
      const like = `%${filter.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(sql`(p.name ILIKE ${like} OR p.version ILIKE ${like} OR p.file_name ILIKE ${like})`);
    }
    if (filter.deviceType) where.push(sql`p.device_type = ${filter.deviceType}`);
    if (filter.state) where.push(sql`p.state = ${filter.state}`);
    const condition = sql.join(where, sql` AND `);
    const [count] = rowsOf<{ n: number | string }>(
      await this.db.execute(
        sql`SELECT count(*) AS n FROM firmware_package p JOIN company c ON c.id = p.company_id WHERE ${condition}`,
      ),
    );
    const rows = rowsOf<PackageRow>(
      await this.db.execute(sql`${SELECT_PACKAGE} WHERE ${condition}
        ORDER BY p.uploaded_at DESC, p.id DESC
        LIMIT ${filter.pageSize} OFFSET ${(filter.pageNum - 1) * filter.pageSize}`),
    );
    return { list: rows.map(toPackage), total: Number(count?.n ?? 0) };
  }

  /** One package the caller sees; 7030 otherwise. */
  async detail(scope: CompanyScope, id: number): Promise<FirmwarePackage> {
    const [row] = rowsOf<PackageRow>(
      await this.db.execute(
        sql`${SELECT_PACKAGE} WHERE p.id = ${id} AND p.state <> 'uploading' AND ${firmwareVisibleSql(scope)}`,
      ),
    );
    if (!row) throw new ApiError(ErrorCode.INSTALL_PACKAGE_NOT_FOUND);
    return toPackage(row);
  }

  /** The package if the caller may change it: 7030 unseen, 5034 seen but another company's. */
  private async changeable(scope: CompanyScope, id: number): Promise<FirmwarePackage> {
    const pkg = await this.detail(scope, id);
    if (!scopeIncludes(scope, pkg.companyId)) throw new ApiError(ErrorCode.NO_PERMISSION);
    return pkg;
  }

  private stateError(state: FirmwarePackageState, lang: Lang): ApiError {
    return new ApiError(ErrorCode.FIRMWARE_STATE_INVALID, {
      state: FIRMWARE_PACKAGE_STATE_LABELS[state][lang],
    });
  }

  /** Moves the package `from` one of the states to `to`; answers it before and after. */
  private async transition(
    scope: CompanyScope,
    id: number,
    from: readonly FirmwarePackageState[],
    to: FirmwarePackageState,
    lang: Lang,
  ): Promise<{ before: FirmwarePackage; after: FirmwarePackage }> {
    const before = await this.changeable(scope, id);
    const moved = rowsOf<{ id: number }>(
      await this.db.execute(sql`
        UPDATE firmware_package SET state = ${to}, state_changed_at = now(), updated_at = now()
        WHERE id = ${id} AND state IN (${sql.join(
          from.map((s) => sql`${s}`),
          sql`, `,
        )}) AND ${inScopeSql(scope, 'company_id')}
        RETURNING id`),
    );
    if (moved.length === 0) {
      const now = await this.detail(scope, id);
      throw this.stateError(now.state, lang);
    }
    return { before, after: await this.detail(scope, id) };
  }

  publish(scope: CompanyScope, id: number, lang: Lang) {
    return this.transition(scope, id, ['unused', 'disabled'], 'published', lang);
  }

  disable(scope: CompanyScope, id: number, lang: Lang) {
    return this.transition(scope, id, ['published'], 'disabled', lang);
  }

  /** Deletes the package and its bytes; answers it as it was. */
  async remove(scope: CompanyScope, id: number): Promise<FirmwarePackage> {
    const before = await this.changeable(scope, id);
    if (before.batchCount > 0) throw new ApiError(ErrorCode.FIRMWARE_IN_USE);
    try {
      const gone = rowsOf<{ id: number }>(
        await this.db.execute(sql`
          DELETE FROM firmware_package p
          WHERE p.id = ${id} AND p.state <> 'uploading'
            AND NOT EXISTS (SELECT 1 FROM upgrade_batch b WHERE b.package_id = p.id)
          RETURNING p.id`),
      );
      if (gone.length === 0) {
        // Gone meanwhile, or a batch named it meanwhile.
        await this.detail(scope, id);
        throw new ApiError(ErrorCode.FIRMWARE_IN_USE);
      }
    } catch (err) {
      if (sqlState(err) === '23503') throw new ApiError(ErrorCode.FIRMWARE_IN_USE);
      throw err;
    }
    return before;
  }
}
