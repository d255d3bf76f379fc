import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase } from '../../server/db/embedded.ts';
import { createLogger } from '../../server/logger.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** One real PostgreSQL for the whole run; every test file makes its own accounts in it. */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-test-'));
  const database = await startEmbeddedDatabase(dir, 'test-password', createLogger('warn'));
  project.provide('databaseUrl', database.url);
  return async () => {
    await database.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
