import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { distribute } from '../../server/db/citus.ts';
import { openDatabase } from '../../server/db/orm.ts';
import { entities } from '../../server/entities.ts';
import { createLogger } from '../../server/logger.ts';
import { clusterDatabase, dropClusterDatabase } from '../citus/cluster.ts';

/**
 * On the Citus cluster, each test file gets a database of its own as on a single node
 * (file-database.ts), migrated and distributed as `sendline distribute` does: a template cannot
 * be copied there, its shards being on the workers.
 */
const name = `file_${randomBytes(8).toString('hex')}`;
const url = await clusterDatabase(inject('clusterPorts'), name);
// After the file's own hooks (they run in reverse order): its servers are closed by then.
afterAll(() => dropClusterDatabase(inject('clusterPorts'), name));
await (await openDatabase(url, entities, createLogger('warn'), 2)).close();
const db = new pg.Client({ connectionString: url });
await db.connect();
try {
  await distribute(db);
} finally {
  await db.end();
}
process.env.SENDLINE_TEST_DATABASE_URL = url;
// For the few tests that read a single node's plans.
process.env.SENDLINE_TEST_ON_CLUSTER = 'true';
