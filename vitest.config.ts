import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end suites each start a real server with a worker pool; on 2 cores run files one at a time.
    fileParallelism: false,
    pool: 'forks',
  },
});
