/**
 * Vite config of the console (apps/web).
 *
 * - `npm run build --workspace @ess/web` writes the SPA to apps/web/dist, which the server serves.
 * - `npm run dev --workspace @ess/web` serves it on :5173 and forwards `/api-bms/*` and the live
 *   WebSocket `/ws` to the server on http://localhost:8080 (override with ESS_API_TARGET).
 * - `@/…` resolves to `src/…` (tsconfig `paths`).
 */
import react from '@vitejs/plugin-react';
import { defineConfig, loadEnv, type Plugin } from 'vite';

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

export default defineConfig(({ mode }) => {
  const env = loadEnv(mode, '.', 'ESS_');
  const apiTarget = env.ESS_API_TARGET ?? 'http://localhost:8080';
  return {
    plugins: [contractZodStub(), react()],
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
