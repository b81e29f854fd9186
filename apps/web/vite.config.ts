/**
 * Vite config of the console (apps/web).
 *
 * - `npm run build --workspace @ess/web` writes the SPA to apps/web/dist, which the server serves.
 * - `npm run dev --workspace @ess/web` serves it on :5173 and forwards `/api-bms/*` and the live
 *   WebSocket `/ws` to the server on http://localhost:8080 (override with ESS_API_TARGET).
 * - `@/…` resolves to `src/…` (tsconfig `paths`).
 * - `virtual:ess/china-outline` is the site map's outline, built from its GeoJSON (mapOutline).
 * - The build writes `.br` and `.gz` copies of the assets (vite-plugin-compression2), served as is.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, loadEnv, type Plugin } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { buildOutline } from './src/shared/map/outline';

const ZOD_STUB_ID = '\0ess-contract-zod-stub';

/**
 * @ess/contract declares zod schemas (used by the server) in the same modules as the constants
 * the console needs (KEEP_ALIVE_PATHS, LAYOUT_COMPONENT, TOKEN_HEADER…). The schema builders are
 * not side-effect free to the bundler, so importing one constant would pull all of zod (~20 KB
 * gzipped) into the first load of /login. The console never validates with the contract's
 * schemas, so for imports made *by contract files* `zod` resolves to an inert stub whose every
 * property and call returns itself. The console's own code would still get the real zod.
 * If a contract function the console calls ever needs zod at run time, remove this plugin.
 */
function contractZodStub(): Plugin {
  return {
    name: 'ess-contract-zod-stub',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === 'zod' && importer && /[\\/]packages[\\/]contract[\\/]src[\\/]/.test(importer)) {
        return ZOD_STUB_ID;
      }
      return null;
    },
    load(id) {
      if (id !== ZOD_STUB_ID) return null;
      return [
        'const stub = new Proxy(function zodStub() {}, {',
        '  get: (_target, key) => (key === Symbol.toPrimitive ? () => "" : stub),',
        '  apply: () => stub,',
        '});',
        'export const z = stub;',
        'export default stub;',
      ].join('\n');
    },
  };
}

const SCHEMA_STUB_PREFIX = '\0ess-contract-schemas:';

/**
 * The contract's endpoint table is split per area (packages/contract/src/endpoints/<area>.ts) so
 * that a page imports only the areas it calls; the console's client reads an endpoint's `path`
 * and `file`, never its schemas (inert anyway: see contractZodStub). So when an area module
 * imports a schema module (`../api/…`), it gets a stand-in exporting the same names: schemas
 * become the inert stub, string and number constants (e.g. `XLSX_MIME`) keep their value. A
 * page thus carries its endpoints' paths, not their schema code. The console's own imports of
 * those modules (TEXT_LIMITS, EXPORT_ROWS_HEADER…) still get the real ones.
 */
function contractSchemaStub(): Plugin {
  const area = /[\\/]packages[\\/]contract[\\/]src[\\/]endpoints[\\/]/;
  return {
    name: 'ess-contract-schema-stub',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (!importer || !area.test(importer) || !source.startsWith('../api/')) return null;
      const real = await this.resolve(source, importer, { skipSelf: true });
      return real ? SCHEMA_STUB_PREFIX + real.id : null;
    },
    load(id) {
      if (!id.startsWith(SCHEMA_STUB_PREFIX)) return null;
      const code = readFileSync(id.slice(SCHEMA_STUB_PREFIX.length), 'utf8');
      const exports = [
        ...code.matchAll(/^export (?:const|function) (\w+)(?:\s*=\s*('[^'\n]*'|[\d_.]+);)?/gm),
      ].map(([, name, literal]) => `export const ${name} = ${literal ?? 'stub'};`);
      return [
        'const stub = new Proxy(function schemaStub() {}, {',
        '  get: (_target, key) => (key === Symbol.toPrimitive ? () => "" : stub),',
        '  apply: () => stub,',
        '});',
        ...exports,
      ].join('\n');
    },
  };
}

const OUTLINE_ID = 'virtual:ess/china-outline';
const CHINA_GEOJSON = fileURLToPath(new URL('./src/shared/map/data/china.json', import.meta.url));

/**
 * `virtual:ess/china-outline`: the province outlines of the site map as short SVG paths, projected
 * and simplified at build time from src/shared/map/data/china.json (src/shared/map/outline.ts), so
 * the browser downloads neither the GeoJSON nor a map library. Replacing the GeoJSON with another
 * of the same shape needs no code change.
 */
function mapOutline(): Plugin {
  const resolved = `\0${OUTLINE_ID}`;
  return {
    name: 'ess-map-outline',
    resolveId: (source) => (source === OUTLINE_ID ? resolved : null),
    load(id) {
      if (id !== resolved) return null;
      this.addWatchFile(CHINA_GEOJSON);
      const outline = buildOutline(JSON.parse(readFileSync(CHINA_GEOJSON, 'utf8')));
      return `export default ${JSON.stringify(outline)};`;
    },
  };
}

export default defineConfig(({ mode }) => {
  const env = loadEnv(mode, '.', 'ESS_');
  const apiTarget = env.ESS_API_TARGET ?? 'http://localhost:8080';
  return {
    plugins: [
      contractZodStub(),
      contractSchemaStub(),
      mapOutline(),
      react(),
      // Brotli and gzip copies of every script, style sheet and data file next to it; the server
      // sends them (@fastify/static `preCompressed`) to browsers that accept them, so first loads
      // cost their compressed size with no compression work per request.
      // index.html stays as it is: it is tiny and must be revalidated on every load.
      compression({ algorithms: ['brotliCompress', 'gzip'], include: /\.(js|mjs|css|json|svg)$/ }),
    ],
    resolve: { tsconfigPaths: true },
    server: {
      port: 5173,
      proxy: {
        '/api-bms': { target: apiTarget, changeOrigin: true },
        '/ws': { target: apiTarget, ws: true },
      },
    },
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      sourcemap: false,
    },
  };
});
