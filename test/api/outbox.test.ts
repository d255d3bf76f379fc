import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../server/auth/entities.ts';
import { newId } from '../../server/db/ids.ts';
import { sqlOf } from '../../server/db/kysely.ts';
import { nativePool } from '../../server/db/orm.ts';
import { Transactions } from '../../server/db/transactions.ts';
import { Event } from '../../server/events/entities.ts';
import { EVENT_TYPES, type PendingEvent } from '../../server/events/types.ts';
import { append } from '../../server/events/outbox.ts';
import type { Sendline } from '../../server/start.ts';
import { startTestServer, waitFor } from '../helpers.ts';
import { fileDatabaseUrl } from '../databases.ts';

let sendline: Sendline;
beforeAll(async () => {
  // No webhook worker: it would mark events dispatched while the tests look at how they were born.
  sendline = await startTestServer({ SENDLINE_ROLE: 'api' });
});
afterAll(() => sendline.stop());

describe('the transactional outbox', () => {
  it('knows exactly the event types of the contract', async () => {
    const doc = (await (await fetch(sendline.url + '/api/openapi.json')).json()) as {
      components: { schemas: { Event: { discriminator: { mapping: object } } } };
    };
    expect([...EVENT_TYPES].sort()).toEqual(Object.keys(doc.components.schemas.Event.discriminator.mapping).sort());
  });

  it('writes the event with the change, in one transaction', async () => {
    const accountId = newId('acc');
    const [eventId] = await sendline.orm.em.fork().transactional(async (em) => {
      em.create(Account, { id: accountId, name: 'outbox', publicId: accountId });
      return append(em, accountId, [{ type: 'webhook.test', data: { webhook_id: 'wh_x', message: 'hello' } }]);
    });
    const stored = await sendline.orm.em.fork().findOneOrFail(Event, { id: eventId });
    expect(stored).toMatchObject({ accountId, type: 'webhook.test', data: { webhook_id: 'wh_x', message: 'hello' } });
    expect(stored.id).toMatch(/^evt_/);
  });

  it('writes nothing when the change rolls back', async () => {
    const accountId = newId('acc');
    let eventId = '';
    await expect(
      sendline.orm.em.fork().transactional(async (em) => {
        em.create(Account, { id: accountId, name: 'rolled back', publicId: accountId });
        [eventId] = await append(em, accountId, [{ type: 'webhook.test', data: { webhook_id: 'wh_x', message: 'never' } }]);
        await em.flush();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const em = sendline.orm.em.fork();
    expect(await em.findOne(Event, { id: eventId })).toBeNull();
    expect(await em.findOne(Account, { id: accountId })).toBeNull();
  });
});

describe('the dispatched flag', () => {
  const events: PendingEvent[] = [
    { type: 'contact.deleted', data: { contact_id: 'ct_x' } },
    { type: 'email.failed', data: { message_id: 'msg_x', campaign_id: 'cmp_x', contact_id: null, email: 'a@example.com', reason: 'x' } },
    { type: 'webhook.test', data: { webhook_id: 'wh_x', message: 'hello' } },
  ];

  async function accountWatching(...webhooks: { events: string[]; active: boolean }[]): Promise<string> {
    const em = sendline.orm.em.fork();
    const accountId = newId('acc');
    em.create(Account, { id: accountId, name: 'dispatch', publicId: accountId });
    await em.flush();
    const pool = await nativePool(sendline.orm);
    for (const webhook of webhooks) {
      await pool.query(
        "insert into webhooks (id, account_id, url, events, active, secret_sealed) values ($1, $2, 'https://example.com/hook', $3, $4, 'sealed')",
        [newId('wh'), accountId, webhook.events, webhook.active],
      );
    }
    return accountId;
  }

  /** Appends `events` the three ways there are, and answers each way's `dispatched` flags in order. */
  async function appendEveryWay(accountId: string): Promise<Record<string, boolean[]>> {
    const viaUnitOfWork = await sendline.orm.em.fork().transactional((em) => append(em, accountId, events));
    const viaKysely = await sqlOf(sendline.orm.em.fork())
      .transaction()
      .execute((trx) => append(trx, accountId, events));
    const transactions = new Transactions(await nativePool(sendline.orm));
    const viaHandle = await transactions.run((tx) => append(tx, accountId, events));
    const rows = await sqlOf(sendline.orm.em.fork()).selectFrom('events').select(['id', 'dispatched']).where('account_id', '=', accountId).execute();
    const flags = new Map(rows.map((row) => [row.id, row.dispatched]));
    return {
      unitOfWork: viaUnitOfWork.map((id) => flags.get(id)!),
      kysely: viaKysely.map((id) => flags.get(id)!),
      handle: viaHandle.map((id) => flags.get(id)!),
    };
  }

  it('is set at birth when no active webhook of the account subscribes to the type, however events are appended', async () => {
    const watched = await accountWatching({ events: ['email.*'], active: true }, { events: ['*'], active: false });
    const undispatched = [true, false, true];
    expect(await appendEveryWay(watched)).toEqual({ unitOfWork: undispatched, kysely: undispatched, handle: undispatched });

    const unwatched = await accountWatching();
    const dispatched = [true, true, true];
    expect(await appendEveryWay(unwatched)).toEqual({ unitOfWork: dispatched, kysely: dispatched, handle: dispatched });
  });

  it('keeps each payload with its type and flag in large batches, written by COPY or by INSERT', async () => {
    const accountId = await accountWatching({ events: ['email.*'], active: true });
    const batch: PendingEvent[] = Array.from({ length: 1500 }, (_, i) =>
      i % 3
        ? { type: 'contact.deleted', data: { contact_id: `ct_${i}\t"\\\n` } }
        : { type: 'email.failed', data: { message_id: `msg_${i}`, campaign_id: 'cmp_x', contact_id: null, email: 'a@example.com', reason: 'x' } },
    );
    const viaKysely = await sqlOf(sendline.orm.em.fork())
      .transaction()
      .execute((trx) => append(trx, accountId, batch));
    // On a handle bound to one connection (Transactions.run) a batch this large goes by COPY.
    const transactions = new Transactions(await nativePool(sendline.orm));
    const viaHandle = await transactions.run((tx) => append(tx, accountId, batch));
    const rows = await sqlOf(sendline.orm.em.fork())
      .selectFrom('events')
      .select(['id', 'type', 'data', 'dispatched'])
      .where('account_id', '=', accountId)
      .execute();
    const byId = new Map(rows.map((row) => [row.id, { type: row.type, data: row.data, dispatched: row.dispatched }]));
    const expected = batch.map((e) => ({ ...e, dispatched: e.type !== 'email.failed' }));
    expect(viaKysely.map((id) => byId.get(id))).toEqual(expected);
    expect(viaHandle.map((id) => byId.get(id))).toEqual(expected);
  });
});

describe('announcements', () => {
  it('name every appended event of an account someone listens to, however they are appended, and none of one nobody does', async () => {
    const listener = new pg.Client({ connectionString: fileDatabaseUrl() });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (msg) => heard.push(msg.payload ?? ''));
    await listener.query('listen sendline_events');
    try {
      const pool = await nativePool(sendline.orm);
      const [listened, unheard] = [newId('acc'), newId('acc')];
      for (const id of [listened, unheard]) await pool.query('insert into accounts (id, name, public_id) values ($1, $1, $1)', [id]);
      // A process holding WebSocket clients of the account registers it.
      await pool.query("insert into event_subscribers (account_id, listener) values ($1, 'test')", [listened]);
      const transactions = new Transactions(pool);
      const deleted = (n: number): PendingEvent[] => Array.from({ length: n }, (_, i) => ({ type: 'contact.deleted', data: { contact_id: `ct_${i}` } }));
      const ids: string[] = [];
      for (const account of [listened, unheard]) {
        const mine = [
          ...(await transactions.run((tx) => append(tx, account, deleted(3)))),
          ...(await transactions.run((tx) => append(tx, account, deleted(1200)))),
          ...(await sendline.orm.em.fork().transactional((em) => append(em, account, deleted(2)))),
          ...(await append(sqlOf(sendline.orm.em.fork()), account, deleted(1))),
        ];
        if (account === listened) ids.push(...mine);
      }
      const { rows } = await pool.query<{ seq: string }>('select seq::text as seq from events where id = any($1) order by events.seq', [ids]);
      const announced = () =>
        heard
          .filter((payload) => payload.startsWith(`${listened}:`))
          .flatMap((payload) => payload.slice(listened.length + 1).split(','))
          .sort((a, b) => Number(a) - Number(b));
      await waitFor(() => announced().length >= rows.length);
      expect(announced()).toEqual(rows.map((r) => r.seq));
      expect(heard.filter((payload) => payload.startsWith(`${unheard}:`))).toEqual([]);
    } finally {
      await listener.end();
    }
  });
});
