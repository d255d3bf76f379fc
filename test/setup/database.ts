import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { startEmbeddedDatabase } from '../../server/db/embedded.ts';
import { openDatabase } from '../../server/db/orm.ts';
import { entities } from '../../server/entities.ts';
import { createLogger } from '../../server/logger.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster's own database: for tests that make databases of their own. */
    databaseUrl: string;
    /** Migrated once; each test file's database is a copy of it (file-database.ts). */
    templateDatabase: string;
    runDir: string;
  }
}

const TEMPLATE = 'sendline_template';

/**
 * One real PostgreSQL for the whole run, with a database per test file made from a template
 * migrated here (instead of every file's first server migrating an empty one). Every
 * temporary folder of the run (the tests', the servers' and the SDK runners') is made under one
 * folder, through TMPDIR, which the run removes at its end.
 */
interface RunDatabase {
  runDir: string;
  url: string;
  template: string;
  stop(): Promise<void>;
}

/**
 * vitest runs a global setup once per project (vitest.config.ts has two): they share the one
 * database, started by the first and stopped by the last to finish. Kept on globalThis, which
 * outlives the module if vitest loads it twice.
 */
const shared = globalThis as { sendlineRunDatabase?: { started: Promise<RunDatabase>; users: number } };

async function startRunDatabase(): Promise<RunDatabase> {
  const runDir = mkdtempSync(path.join(tmpdir(), 'sendline-test-'));
  // As root, PostgreSQL runs as a `postgres` user, which must reach the files made for it here.
  chmodSync(runDir, 0o711);
  process.env.TMPDIR = runDir;
  const database = await startEmbeddedDatabase(path.join(runDir, 'database'), 'test-password', createLogger('warn'));
  const template = await migratedTemplate(database.url);
  return {
    runDir,
    url: database.url,
    template,
    async stop() {
      await database.stop();
      const leftOver = postmastersUnder(runDir);
      for (const pid of leftOver) process.kill(pid, 'SIGKILL');
      rmSync(runDir, { recursive: true, force: true });
      if (leftOver.length) throw new Error(`tests left ${leftOver.length} PostgreSQL server(s) running`);
    },
  };
}

export default async function setup(project: TestProject) {
  shared.sendlineRunDatabase ??= { started: startRunDatabase(), users: 0 };
  const run = shared.sendlineRunDatabase;
  run.users++;
  const database = await run.started;
  project.provide('databaseUrl', database.url);
  project.provide('templateDatabase', database.template);
  project.provide('runDir', database.runDir);
  return async () => {
    if (--run.users > 0) return;
    delete shared.sendlineRunDatabase;
    await database.stop();
  };
}

async function migratedTemplate(clusterUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: clusterUrl });
  await admin.connect();
  await admin.query(`create database ${TEMPLATE}`);
  await admin.end();
  const url = new URL(clusterUrl);
  url.pathname = `/${TEMPLATE}`;
  const orm = await openDatabase(url.href, entities, createLogger('warn'));
  await orm.close();
  return TEMPLATE;
}

/** PostgreSQL servers still running on data folders under `dir`, by their lock files. */
function postmastersUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (path.basename(entry) !== 'postmaster.pid') continue;
    const file = path.join(dir, entry);
    if (!existsSync(file)) continue;
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    try {
      process.kill(pid, 0);
      pids.push(pid);
    } catch {
      // already gone
    }
  }
  return pids;
}
