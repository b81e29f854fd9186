import { defineConfig } from 'vitest/config';

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
    fileParallelism: false,
    // A browser on a busy two-core CI machine can take seconds to settle: poll for up to 10 s
    // (vitest's default of 1 s made waits for a page's state flaky).
    expect: { poll: { timeout: 10_000, interval: 100 } },
    reporters: ['default', ['json', { outputFile: '.tmp/vitest-e2e.json' }]],
  },
});
