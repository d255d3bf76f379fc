import pg from 'pg';
import { inject } from 'vitest';

/** This test file's own database, migrated (test/setup/file-database.ts). */
export function fileDatabaseUrl(): string {
  return process.env.SENDLINE_TEST_DATABASE_URL!;
}

/** A new, empty database on the test run's PostgreSQL, for tests that need a schema of their own. */
export async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: inject('databaseUrl') });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` with a connection to `url`. */
export async function withClient<T>(url: string, work: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}
