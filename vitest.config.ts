import { defineConfig } from 'vitest/config';
import LongFirst from './test/setup/long-first.ts';

/**
 * Files that hold the server to a latency in milliseconds (no stall of /healthz while hostile
 * content is checked): it runs after all the others, so that what it measures is the server's
 * time and not another test file's use of the two cores.
 */
const ALONE = ['test/api/hostile-content.test.ts'];

/**
 * The API suites that touch data, run again on a Citus cluster of a coordinator and two workers
 * (test/setup/cluster.ts), each file on a database of its own, distributed by account.
 */
const ON_CLUSTER = [
  'test/api/contacts.test.ts',
  'test/api/contacts-bulk.test.ts',
  'test/api/imports.test.ts',
  'test/api/campaigns.test.ts',
  'test/api/campaign-audience.test.ts',
  'test/api/segments.test.ts',
  'test/api/lists.test.ts',
  'test/api/tracking.test.ts',
  'test/api/outbox.test.ts',
  'test/api/webhooks.test.ts',
  'test/api/websocket.test.ts',
  'test/api/emails.test.ts',
  'test/citus/hot-paths.test.ts',
];

export default defineConfig({
  test: {
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
    projects: [
      {
        extends: true,
        test: {
          name: 'together',
          include: ['server/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...ALONE, 'test/citus/hot-paths.test.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
      {
        extends: true,
        test: {
          name: 'citus',
          include: ON_CLUSTER,
          globalSetup: ['test/setup/cluster.ts'],
          setupFiles: ['test/setup/cluster-file-database.ts'],
          // Three PostgreSQL servers on two cores, and a statement's hop from the coordinator to a worker.
          testTimeout: 60_000,
          // After the others: its three PostgreSQL servers and long files would slow theirs.
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
