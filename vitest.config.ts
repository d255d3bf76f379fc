import { defineConfig } from 'vitest/config';
import LongFirst from './test/setup/long-first.ts';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/setup/database.ts'],
    setupFiles: ['test/setup/temp-dir.ts', 'test/setup/file-database.ts'],
    pool: 'forks',
    // Two files at a time on two cores: much of a file's time is spent waiting (on servers,
    // PostgreSQL, SMTP sinks, browsers, other runtimes), and each file has its own database,
    // data folder and ports. vitest's default on two cores is one.
    maxWorkers: 2,
    minWorkers: 1,
    sequence: { sequencer: LongFirst },
    reporters: ['default', './test/setup/slowest-files.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
