import { defineConfig } from 'vitest/config';

const e2eWorkers = Math.max(1, Number(process.env.E2E_WORKERS || 2));

/**
 * Browser tests: the real built console served by the real server (fresh data folder, free
 * port), driven in Debian's headless Chromium through playwright-core.
 */
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    globalSetup: ['e2e/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two files at a time, each worker with its own server (global-setup.ts): the browser tests
    // mostly wait on the fleet's 2 s ticks and 10 s refreshes, so on a two-core machine two of
    // them side by side take about half as long. E2E_WORKERS=1 runs them one after another.
    fileParallelism: true,
    maxWorkers: e2eWorkers,
    // A browser on a busy two-core CI machine can take seconds to settle: poll for up to 10 s
    // (vitest's default of 1 s made waits for a page's state flaky).
    expect: { poll: { timeout: 10_000, interval: 100 } },
    reporters: ['default', ['json', { outputFile: '.tmp/vitest-e2e.json' }]],
  },
});
