/**
 * Forms read their length limits from the contract: no `maxLength` in the
 * console is a number literal; each names a `TEXT_LIMITS` key (or a constant set from one), so
 * a form can never take more than the server's schema accepts (the contract's primitives test
 * checks `TEXT_LIMITS` against the schemas).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEXT_LIMITS } from '@ess/contract';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

const files = sources(SRC).map((file) => ({ file: relative(SRC, file), code: readFileSync(file, 'utf8') }));

/** Limits no console form field uses, with the reason. */
const UNUSED: Partial<Record<keyof typeof TEXT_LIMITS, string>> = {
  keyword: 'search boxes send what is typed; the server refuses a longer keyword with -100',
  menuIcon: 'the icon is chosen from a picker, never typed',
};

describe('form length limits', () => {
  it('sets no maxLength from a number literal', () => {
    const literal = files.flatMap(({ file, code }) =>
      [...code.matchAll(/maxLength=\{\s*\d+\s*\}|maxLength:\s*\d+/g)].map((m) => `${file}: ${m[0]}`),
    );
    expect(literal).toEqual([]);
  });

  it('names only TEXT_LIMITS keys that exist', () => {
    const used = files.flatMap(({ code }) => [...code.matchAll(/TEXT_LIMITS\.(\w+)/g)].map((m) => m[1]!));
    expect(used.length).toBeGreaterThan(30);
    for (const key of used) expect(Object.keys(TEXT_LIMITS)).toContain(key);
  });

  it('uses every limit in some form, or says why not', () => {
    const all = files.map(({ code }) => code).join('\n');
    const missing = Object.keys(TEXT_LIMITS).filter(
      (key) => !all.includes(`TEXT_LIMITS.${key}`) && !(key in UNUSED),
    );
    expect(missing).toEqual([]);
  });
});
