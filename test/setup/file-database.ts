import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * Each test file gets a database of its own, copied from the run's migrated template: its
 * servers' periodic jobs and send jobs never meet another file's (every process on a database
 * may send any of its campaigns), and whole-table checks see only the file's own rows.
 */
const name = `file_${randomBytes(8).toString('hex')}`;
const admin = new pg.Client({ connectionString: inject('databaseUrl') });
await admin.connect();
try {
  await admin.query(`create database ${name} template ${inject('templateDatabase')}`);
} finally {
  await admin.end();
}
const url = new URL(inject('databaseUrl'));
url.pathname = `/${name}`;
process.env.SENDLINE_TEST_DATABASE_URL = url.href;
