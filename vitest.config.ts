import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn real servers and processes; two workers match the 2-core machines.
    maxWorkers: 2,
    globalSetup: ['test/helpers/cache-dir.ts'],
  },
});
