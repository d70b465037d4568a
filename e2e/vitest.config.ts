import { defineConfig } from 'vitest/config';

// Browser journeys against the real built server: one file at a time, one worker (2-core CI),
// generous timeouts because each journey drives headless Chromium through several screens.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['./support/globalSetup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: 'forks',
    maxWorkers: 1,
  },
});
