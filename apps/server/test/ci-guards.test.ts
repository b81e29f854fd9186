/**
 * Guards against artefacts that drift from their source:
 * - the SQL migrations in `drizzle/` are what drizzle-kit generates from `core/db/schema.ts`:
 *   generating again into a copy of the folder produces no new migration;
 * - every permission string of the contract (`Perm`) sits on a seeded menu row (a page or a
 *   button the role dialog can grant), and every seeded menu row's permission is a `Perm`: a
 *   right that no role can be given, or a button that no route checks, fails here.
 * (Every audit action the server records has a zh/en label: packages/contract's endpoint tests.)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Perm } from '@ess/contract';
import { isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { menu } from '../src/core/db/schema';
import { createTestApp, type TestContext } from './support/test-app';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('migrations', () => {
  it('drizzle-kit generates nothing new from the schema', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ess-drizzle-check-'));
    try {
      cpSync(path.join(serverDir, 'drizzle'), path.join(dir, 'drizzle'), { recursive: true });
      const before = readdirSync(path.join(dir, 'drizzle')).sort();
      const config = path.join(dir, 'drizzle.config.mjs');
      writeFileSync(
        config,
        `export default ${JSON.stringify({
          dialect: 'postgresql',
          schema: path.join(serverDir, 'src/core/db/schema.ts'),
          out: path.join(dir, 'drizzle'),
        })};\n`,
      );
      const output = execFileSync(
        path.join(serverDir, '../../node_modules/.bin/drizzle-kit'),
        ['generate', '--config', config],
        { cwd: serverDir, encoding: 'utf8', stdio: 'pipe' },
      );
      const after = readdirSync(path.join(dir, 'drizzle')).sort();
      expect(after, `drizzle-kit generated a migration: run npm run db:generate\n${output}`).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('permissions and seeded menus', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp('pglite');
  });
  afterAll(async () => ctx?.close());

  it('every Perm is on a seeded menu row, and every seeded permission is a Perm', async () => {
    const rows = await ctx.database.db
      .select({ perms: menu.perms, type: menu.type })
      .from(menu)
      .where(isNotNull(menu.perms));
    const seeded = new Set(rows.map((r) => r.perms!).filter((p) => p !== ''));
    const contract = new Set<string>(Object.values(Perm));
    expect(
      [...contract].filter((p) => !seeded.has(p)),
      'permissions no menu row carries',
    ).toEqual([]);
    expect(
      [...seeded].filter((p) => !contract.has(p)),
      'seeded permissions unknown to the contract',
    ).toEqual([]);
  });
});
