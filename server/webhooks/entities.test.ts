import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from '../db/orm.ts';
import { createLogger } from '../logger.ts';
import { freshDatabase } from '../../test/databases.ts';

describe('webhook entities', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await openDatabase(await freshDatabase('webhook_entities'), createLogger('warn'), 2);
  });
  afterAll(() => orm?.close());

  it('map every column of webhooks and webhook_deliveries as the migrations create it', async () => {
    // What the schema generator would change to make the migrated tables match the entities.
    const diff = (await orm.schema.getUpdateSchemaSQL({ wrap: false })).split('\n');
    const touching = (table: string) => diff.filter((s) => s.includes(`"${table}"`) && /column|table if exists|unique/.test(s));
    expect(touching('webhooks')).toEqual([]);
    expect(touching('webhook_deliveries')).toEqual([]);
    expect(diff.filter((s) => s.includes('"dispatched"'))).toEqual([]);
  });
});
