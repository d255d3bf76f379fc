import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, waitFor, type TestAccount } from '../helpers.ts';
import { fileDatabaseUrl } from '../databases.ts';

let sendline: Sendline;
beforeAll(async () => {
  sendline = await startTestServer();
});
afterAll(() => sendline.stop());

const query = <Row extends object>(text: string, values: unknown[]) => sendline.orm.em.getConnection().execute<Row[]>(text, values);

describe('contact counts under concurrent writers', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'counts');
  });

  it('stay exact when many connections create, change and delete contacts at once, spread over shards', async () => {
    const created = await Promise.all(
      Array.from({ length: 120 }, (_, i) => account.api('POST', '/api/contacts', { body: { email: `many-${i}@counts.example`, tags: ['many'] } })),
    );
    expect(created.map((res) => res.status)).toEqual(created.map(() => 201));
    const ids = created.map((res) => res.body.id as string);
    const changed = await Promise.all(ids.slice(0, 30).map((id) => account.api('PATCH', `/api/contacts/${id}`, { body: { status: 'unsubscribed' } })));
    expect(changed.every((res) => res.status === 200)).toBe(true);
    // Deleted through connections other than the ones that counted them: shards may go below zero.
    const deleted = await Promise.all([...ids.slice(20, 40), ...ids.slice(100)].map((id) => account.api('DELETE', `/api/contacts/${id}`)));
    expect(deleted.every((res) => res.status === 204)).toBe(true);

    const stored = await query<{ status: string; count: number }>('select status, count(*)::int as count from contacts where account_id = ? group by status', [
      account.accountId,
    ]);
    const byStatus = Object.fromEntries(stored.map((row) => [row.status, row.count]));
    expect(byStatus).toEqual({ subscribed: 60, unsubscribed: 20 });
    const overview = await account.api('GET', '/api/analytics/overview');
    expect(overview.body.contacts).toEqual({ total: 80, subscribed: 60, unsubscribed: 20, bounced: 0, complained: 0 });
    // Concurrent writers counted in rows of their own rather than queueing on one.
    const [{ shards }] = await query<{ shards: number }>(
      "select count(*)::int as shards from contact_status_counts where account_id = ? and status = 'subscribed'",
      [account.accountId],
    );
    expect(shards).toBeGreaterThan(1);
  });
});

describe('contact counts by writer', () => {
  it('agree with the contacts after every statement that writes them', async () => {
    const account = await newAccount(sendline.url, 'writers');
    const counted = async () => {
      const rows = await query<{ status: string; n: number }>(
        'select status, sum(count)::int as n from contact_status_counts where account_id = ? group by 1 having sum(count) <> 0 order by 1',
        [account.accountId],
      );
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    };
    const stored = async () => {
      const rows = await query<{ status: string; n: number }>('select status, count(*)::int as n from contacts where account_id = ? group by 1 order by 1', [
        account.accountId,
      ]);
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    };
    const agree = async (step: string) => expect(await counted(), step).toEqual(await stored());
    const imported = async (csv: string, query = '') => {
      const res = await account.api('POST', `/api/contacts/import${query}`, { raw: csv, headers: { 'content-type': 'text/csv' } });
      expect(res.status).toBe(202);
      await waitFor(async () => ['completed', 'failed'].includes((await account.api('GET', `/api/contacts/import/${res.body.id}`)).body.status));
    };

    const ids: string[] = [];
    for (const i of [1, 2, 3, 4]) ids.push((await account.api('POST', '/api/contacts', { body: { email: `w${i}@writers.example` } })).body.id);
    await agree('created one by one');
    await imported('email,status\nw1@writers.example,unsubscribed\nw5@writers.example,subscribed\nw6@writers.example,bounced\n');
    await agree('imported, merging');
    await imported('email,status\nw5@writers.example,complained\nw9@writers.example,subscribed\n', '?mode=update_only');
    await agree('imported, updating only');
    expect((await account.api('PATCH', `/api/contacts/${ids[1]}`, { body: { status: 'unsubscribed' } })).status).toBe(200);
    await agree('changed through the API');
    expect((await account.api('POST', '/api/suppressions', { body: { emails: ['w3@writers.example'] } })).status).toBeLessThan(300);
    await agree('suppressed');
    const entry = (await account.api('GET', '/api/suppressions')).body.data.find((e: { email: string }) => e.email === 'w3@writers.example');
    expect((await account.api('DELETE', `/api/suppressions/${entry.id}?reason=asked`)).status).toBe(204);
    await agree('resubscribed');
    expect((await account.api('DELETE', `/api/contacts/${ids[0]}`)).status).toBe(204);
    await agree('deleted');
    expect((await account.api('POST', '/api/contacts/bulk', { body: { action: 'delete', contact_ids: [ids[1], ids[2]] } })).status).toBe(200);
    await agree('deleted in bulk');
    expect(await stored()).toEqual({ bounced: 1, complained: 1, subscribed: 1 });
  });
});

describe('event announcements', () => {
  let listener: pg.Client;
  const heard: string[] = [];
  beforeAll(async () => {
    listener = new pg.Client({ connectionString: fileDatabaseUrl() });
    await listener.connect();
    listener.on('notification', (msg) => heard.push(msg.payload ?? ''));
    await listener.query('listen sendline_events');
  });
  afterAll(() => listener.end());

  const heardFor = (account: TestAccount) => heard.filter((payload) => payload.startsWith(`${account.accountId}:`));
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('are made only for accounts someone listens to: a WebSocket client or a webhook', async () => {
    const quiet = await newAccount(sendline.url, 'quiet');
    expect((await quiet.api('POST', '/api/contacts', { body: { email: 'unheard@quiet.example' } })).status).toBe(201);
    // Announced events arrive within milliseconds; nothing came for this account.
    await pause(300);
    expect(heardFor(quiet)).toEqual([]);

    const socket = new WebSocket(`${sendline.url.replace('http://', 'ws://')}/api/ws`, { headers: { authorization: `Bearer ${quiet.token}` } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    await quiet.api('POST', '/api/contacts', { body: { email: 'heard@quiet.example' } });
    await waitFor(() => heardFor(quiet).length === 1, 5000);
    socket.close();

    const hooked = await newAccount(sendline.url, 'hooked');
    await hooked.api('POST', '/api/webhooks', { body: { url: 'https://hooks.example/in', events: ['contact.created'] } });
    await hooked.api('POST', '/api/contacts', { body: { email: 'delivered@hooked.example' } });
    await waitFor(() => heardFor(hooked).length === 1, 5000);
  });
});
