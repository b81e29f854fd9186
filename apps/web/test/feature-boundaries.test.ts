/**
 * Feature boundaries of the console (design §5, bulletproof-react): imports
 * flow one way, shared → features → app.
 * - A feature is entered from outside only through its `index.ts` (`@/features/<name>`); what
 *   several features use lives in `src/shared`.
 * - `src/shared` imports no feature and not the app; a feature never imports the app.
 * - The one exception: the app's view registry and router load pages with a dynamic `import()`
 *   of the page file, so that every page stays its own chunk.
 * Biome's `noRestrictedImports` (biome.json) flags the `@/features/<x>/<deep>` spelling in the
 * editor; this test resolves every specifier, relative ones too, and so sees every path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

interface Import {
  specifier: string;
  dynamic: boolean;
}

/** Every module specifier of `code`: static imports and re-exports, side-effect and dynamic imports. */
export function importsOf(code: string): Import[] {
  const out: Import[] = [];
  const staticRe =
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]/g;
  for (const m of code.matchAll(staticRe)) out.push({ specifier: (m[1] ?? m[2])!, dynamic: false });
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    out.push({ specifier: m[1]!, dynamic: true });
  }
  return out;
}

/** `specifier` imported from `file` (both relative to src, '/'-separated) → path relative to src, or null for packages. */
function resolve(file: string, specifier: string): string | null {
  if (specifier.startsWith('@/')) return posix.normalize(specifier.slice(2));
  if (specifier.startsWith('.')) return posix.normalize(posix.join(posix.dirname(file), specifier));
  return null;
}

/** The broken rules of one import, as messages (empty: allowed). */
export function violation(file: string, { specifier, dynamic }: Import): string | null {
  const target = resolve(file, specifier);
  if (target === null) return null;
  const [fromLayer, fromFeature] = file.split('/');
  const [toLayer, toFeature, ...rest] = target.split('/');
  const where = `${file} imports '${specifier}'`;
  if (fromLayer === 'shared' && (toLayer === 'features' || toLayer === 'app')) {
    return `${where}: src/shared never imports a feature or the app`;
  }
  if (fromLayer === 'features' && toLayer === 'app') return `${where}: a feature never imports the app`;
  if (toLayer !== 'features' || !toFeature) return null;
  if (fromLayer === 'features' && fromFeature === toFeature) return null;
  const deep = rest.length > 0 && !(rest.length === 1 && /^index(\.tsx?)?$/.test(rest[0]!));
  if (!deep) return null;
  if (fromLayer === 'app' && dynamic) return null;
  return `${where}: enter feature '${toFeature}' through its index.ts ('@/features/${toFeature}') or move the shared part to src/shared`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('feature boundaries', () => {
  it('the checker flags deep, relative and upward imports and allows the rest', () => {
    const check = (file: string, code: string) =>
      importsOf(code)
        .map((i) => violation(file, i))
        .filter(Boolean);
    // Allowed.
    expect(
      check('features/cockpit/CockpitPage.tsx', "import { fetchCockpit } from '@/features/bigscreen';"),
    ).toEqual([]);
    expect(check('features/bigscreen/pages/Sys.tsx', "import { x } from '../components/common';")).toEqual(
      [],
    );
    expect(
      check('features/cockpit/A.tsx', "import { Stage } from '@/shared/screen';\nimport './a.css';"),
    ).toEqual([]);
    expect(check('app/views.tsx', "lazy(() => import('@/features/alarm/AlarmPage'))")).toEqual([]);
    expect(check('features/x/A.tsx', "export { y } from '@/features/auth/index';")).toEqual([]);
    // Refused.
    expect(
      check(
        'features/cockpit/A.tsx',
        "import ScreenChart from '@/features/bigscreen/components/ScreenChart';",
      ),
    ).toHaveLength(1);
    expect(
      check('features/export/sub/A.tsx', "import { typeLabel } from '../../devices/labels';"),
    ).toHaveLength(1);
    expect(check('features/export/A.tsx', "import type { T } from '../devices/labels';")).toHaveLength(1);
    expect(
      check('features/export/A.tsx', "const m = await import('@/features/devices/labels');"),
    ).toHaveLength(1);
    expect(check('app/router.tsx', "import { Frame } from '@/features/layout/Frame';")).toHaveLength(1);
    expect(check('shared/ui/A.tsx', "import { useSession } from '@/features/auth';")).toHaveLength(1);
    expect(check('shared/ui/A.tsx', "import { RouteView } from '../../app/views';")).toHaveLength(1);
    expect(check('features/layout/A.tsx', "import { RouteView } from '@/app/views';")).toHaveLength(1);
  });

  it('no file of apps/web/src breaks them', () => {
    const broken: string[] = [];
    for (const path of sourceFiles(SRC)) {
      const file = relative(SRC, path).split(sep).join('/');
      for (const i of importsOf(readFileSync(path, 'utf8'))) {
        const message = violation(file, i);
        if (message) broken.push(message);
      }
    }
    expect(broken).toEqual([]);
  });
});
