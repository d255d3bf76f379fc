import pg from 'pg';
import type { Config } from '../config.ts';
import { distribute } from '../db/citus.ts';
import { openDatabase } from '../db/orm.ts';
import { entities } from '../entities.ts';
import type { Logger } from '../logger.ts';

/**
 * `sendline distribute`: on a Citus coordinator, applies the pending migrations, then makes each
 * table distributed by account or a reference table (server/db/citus.ts), moving its rows onto
 * the workers. Run once before the first start on a cluster, and after an upgrade whose
 * migrations add a table; servers refuse to start until it has. Answers the exit code.
 */
export async function distributeCommand(config: Config, log: Logger): Promise<number> {
  if (!config.databaseUrl) {
    console.error('distribute needs DATABASE_URL: the embedded database is a single node.');
    return 2;
  }
  await (await openDatabase(config.databaseUrl, entities, log, 2)).close();
  const db = new pg.Client({ connectionString: config.databaseUrl });
  await db.connect();
  try {
    const started = Date.now();
    const tables = await distribute(db);
    console.log(
      tables.length
        ? `Distributed ${tables.length} tables in ${((Date.now() - started) / 1000).toFixed(1)} s:\n${tables.map((t) => `  ${t}`).join('\n')}`
        : 'Nothing to do: every table is distributed.',
    );
    return 0;
  } finally {
    await db.end();
  }
}
