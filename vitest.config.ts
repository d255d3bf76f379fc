import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/setup/database.ts'],
    setupFiles: ['test/setup/temp-dir.ts', 'test/setup/file-database.ts'],
    pool: 'forks',
    reporters: ['default', './test/setup/slowest-files.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
