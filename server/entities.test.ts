import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from './db/orm.ts';
import { entities } from './entities.ts';
import { createLogger } from './logger.ts';
import { freshDatabase } from '../test/databases.ts';

/** Tables that belong to libraries, not to a module of Sendline. */
const NOT_OURS = ['mikro_orm_migrations', 'agenda_jobs'];

describe('the entities', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await openDatabase(await freshDatabase('entities_match_schema'), entities, createLogger('warn'), 2);
  });
  afterAll(() => orm?.close());

  it('map every table the migrations create', async () => {
    const tables = await orm.em.getConnection().execute<{ tablename: string }[]>("select tablename from pg_tables where schemaname = 'public' order by 1");
    const mapped = new Set(entities.map((e) => e.meta.tableName));
    expect(tables.map((t) => t.tablename).filter((t) => !NOT_OURS.includes(t) && !mapped.has(t))).toEqual([]);
  });

  it('name every column the migrations create, and no other', async () => {
    // What the schema generator would change to make the migrated tables match the entities. Types
    // and defaults are the migrations' to say (text, not varchar(255)); which columns exist is not.
    const diff = (await orm.schema.getUpdateSchemaSQL({ wrap: false })).split('\n');
    expect(diff.filter((statement) => /\b(add|drop) column\b|create table|drop table/.test(statement))).toEqual([]);
  });
});
