import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../../test/databases.ts';
import { newId } from '../db/ids.ts';
import { sqlOnClient } from '../db/kysely.ts';
import { openDatabase } from '../db/orm.ts';
import { entities } from '../entities.ts';
import { createLogger } from '../logger.ts';
import { EventSubscribers } from './subscribers.ts';

describe('event subscribers', () => {
  let client: pg.Client;
  const accounts = [newId('acc'), newId('acc')];
  const rows = async (listener: string) =>
    (await client.query<{ account_id: string }>('select account_id from event_subscribers where listener = $1 order by account_id', [listener])).rows.map(
      (row) => row.account_id,
    );
  beforeAll(async () => {
    const url = await freshDatabase('event_subscribers');
    await (await openDatabase(url, entities, createLogger('warn'), 1)).close();
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("insert into accounts (id, name, public_id) select a, 'subscribers', a from unnest($1::text[]) a", [accounts]);
  });
  afterAll(() => client?.end());

  it('lists the accounts a process holds clients of, until it releases them, and forgets dead processes', async () => {
    const [a, b] = [...accounts].sort();
    const subscribers = new EventSubscribers(sqlOnClient(client), 'this-process');
    await Promise.all([subscribers.register(a), subscribers.register(b), subscribers.register(a)]);
    expect(await rows('this-process')).toEqual([a, b]);

    // A process that stopped refreshing its rows ten minutes ago.
    await client.query("insert into event_subscribers (account_id, listener, seen_at) values ($1, 'dead-process', now() - interval '11 minutes')", [a]);
    await subscribers.refresh(new Set([b]));
    expect(await rows('this-process')).toEqual([b]);
    expect(await rows('dead-process')).toEqual([]);

    // Released, then registered again: the row comes back.
    await subscribers.register(a);
    expect(await rows('this-process')).toEqual([a, b]);
    await subscribers.close();
    expect(await rows('this-process')).toEqual([]);
  });
});
