import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Config } from '../config.ts';
import { migrate, openDatabase } from '../db/orm.ts';
import { entities } from '../entities.ts';
import { readSchemaState, requireKnownSchema, type SchemaState } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { databaseOf } from './database.ts';

const level = (state: SchemaState) =>
  state.applied.length ? `The schema is at ${state.applied.at(-1)} (${state.applied.length} migrations applied).` : 'The database has no schema yet.';

/**
 * `sendline migrate [--dry-run]`: applies the pending migrations (as a server does when it
 * starts), or only lists them. Answers the exit code.
 */
export async function migrateCommand(args: string[], config: Config, log: Logger): Promise<number> {
  const { values } = parseArgs({ args, options: { 'dry-run': { type: 'boolean', default: false } } });
  const database = await databaseOf(config, log);
  try {
    if (values['dry-run']) {
      const db = new pg.Client({ connectionString: database.url });
      await db.connect();
      const state = await readSchemaState(db).finally(() => db.end());
      requireKnownSchema(state);
      console.log(level(state));
      console.log(
        state.pending.length ? `${state.pending.length} migrations would run:\n${state.pending.map((name) => `  ${name}`).join('\n')}` : 'Nothing would run.',
      );
      return 0;
    }
    const orm = await openDatabase(database.url, entities, log, 2, { migrate: false });
    try {
      const applied = await migrate(orm, database.url, log);
      console.log(
        applied.length
          ? `Applied ${applied.length} migrations:\n${applied.map((name) => `  ${name}`).join('\n')}`
          : 'Nothing to run: the schema is up to date.',
      );
    } finally {
      await orm.close();
    }
    return 0;
  } finally {
    await database.stop();
  }
}
