import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, uniqueEmail, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

const PUBLIC_URL = 'https://mail.example.test';
let sendline: Sendline;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
});
afterAll(async () => {
  await sendline?.stop();
  await sink?.stop();
});

const sql = (text: string, params: unknown[] = []) => sendline.pool.query(text, params).then((r) => r.rows);

/** The account's rows of `table` whose text holds `needle` (case-insensitive). */
async function rowsHolding(table: 'emails' | 'email_contents', accountId: string, needle: string): Promise<number> {
  const [row] = await sql(`select count(*)::int as n from ${table} t where account_id = $1 and position(lower($2) in lower(t::text)) > 0`, [accountId, needle]);
  return row.n;
}

const delivered = (account: TestAccount, id: string) =>
  waitFor(async () => {
    const res = await account.api('GET', `/api/emails/${id}`);
    return res.body.status === 'delivered' ? res.body : undefined;
  });

describe('transactional email of an erased contact', () => {
  let account: TestAccount;
  let contactId: string;
  const ada = uniqueEmail('ada-erased');
  const bob = uniqueEmail('bob-kept');
  const idempotencyKey = `k-${randomUUID()}`;
  const alone = {
    from: { email: 'receipts@shop.example', name: 'Shop' },
    to: [{ email: ada, name: 'Ada Lovelace' }],
    subject: 'Your receipt, Ada Lovelace',
    text: 'Dear Ada Lovelace, thanks for order 1042.',
    html: '<p>Dear Ada Lovelace, thanks for order 1042.</p>',
    reply_to: 'help@shop.example',
    attachments: [{ filename: 'invoice-1042.txt', content_type: 'text/plain', content: Buffer.from('Invoice 1042 for Ada Lovelace').toString('base64') }],
    metadata: { order: '1042', customer: 'Ada Lovelace' },
    tags: ['receipt'],
  };
  let ids: { alone: string; shared: string; sharedBob: string; scheduled: string };

  beforeAll(async () => {
    account = await newAccount(sendline.url, 'erase-emails');
    contactId = (await account.api('POST', '/api/contacts', { body: { email: ada, first_name: 'Ada' } })).body.id;
    const first = await account.api('POST', '/api/emails', { body: alone, headers: { 'idempotency-key': idempotencyKey } });
    expect(first.status).toBe(202);
    const shared = await account.api('POST', '/api/emails', {
      body: {
        from: { email: 'team@shop.example' },
        to: [{ email: bob, name: 'Bob' }],
        cc: [{ email: ada, name: 'Ada Lovelace' }],
        subject: 'Minutes',
        text: 'Notes.',
      },
    });
    const later = await account.api('POST', '/api/emails', {
      body: { ...alone, scheduled_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    ids = { alone: first.body.data[0].id, shared: shared.body.data[1].id, sharedBob: shared.body.data[0].id, scheduled: later.body.data[0].id };
    await Promise.all([delivered(account, ids.alone), delivered(account, ids.shared), delivered(account, ids.sharedBob)]);
  });

  it('GET /contacts/{id}/export lists the transactional email sent to the contact', async () => {
    const res = await account.api('GET', `/api/contacts/${contactId}/export`);
    expect(res.status).toBe(200);
    expect(res.body.emails.map((e: { id: string }) => e.id).sort()).toEqual([ids.alone, ids.shared, ids.scheduled].sort());
    expect(res.body.emails.find((e: { id: string }) => e.id === ids.alone)).toMatchObject({
      email: ada,
      subject: alone.subject,
      metadata: alone.metadata,
      status: 'delivered',
      to_header: `Ada Lovelace <${ada}>`,
      cc_header: null,
      reply_to: alone.reply_to,
      text: alone.text,
      html: alone.html,
      attachments: ['invoice-1042.txt'],
    });
    // A request to others too shows its headers as the person received them, names included.
    const shared = res.body.emails.find((e: { id: string }) => e.id === ids.shared);
    expect(shared).toMatchObject({ to_header: `Bob <${bob}>`, subject: 'Minutes', text: 'Notes.', html: null, attachments: [] });
    expect(shared.cc_header).toContain(`<${ada}>`);
    expect(shared.cc_header).toContain('Ada Lovelace');
  });

  it('erasing leaves the address, name and texts in no email, keeps the counts, and drops stored answers naming it', async () => {
    const listed = async () => (await account.api('GET', '/api/emails?limit=100')).body.data.length;
    const before = await listed();
    expect(await sql('select count(*)::int as n from idempotency_keys where key = $1', [idempotencyKey])).toEqual([{ n: 1 }]);
    const [stored] = await sql('select * from idempotency_keys where key = $1', [idempotencyKey]);
    // An answer stored before stored answers' addresses were (no hashes) may show the person too.
    const columns = Object.keys(stored);
    const insert = (row: Record<string, unknown>) =>
      sql(
        `insert into idempotency_keys (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((c) => row[c]),
      );
    await insert({ ...stored, key: `${idempotencyKey}-old`, email_hashes: null });

    expect((await account.api('POST', `/api/contacts/${contactId}/erase`)).status).toBe(200);
    expect(await sql('select count(*)::int as n from idempotency_keys where key = $1', [`${idempotencyKey}-old`])).toEqual([{ n: 0 }]);

    expect((await account.api('GET', `/api/emails?to=${encodeURIComponent(ada)}`)).body.data).toEqual([]);
    const gone = (await account.api('GET', `/api/emails/${ids.alone}`)).body;
    expect(gone).toMatchObject({ email: '', subject: '', metadata: {}, status: 'delivered', tags: ['receipt'] });
    expect(JSON.stringify(gone)).not.toContain('Ada');
    // A request with other recipients keeps its subject for them, without the person's address.
    expect((await account.api('GET', `/api/emails/${ids.shared}`)).body).toMatchObject({ email: '', subject: 'Minutes', status: 'delivered' });
    expect((await account.api('GET', `/api/emails/${ids.sharedBob}`)).body).toMatchObject({ email: bob, subject: 'Minutes', status: 'delivered' });
    // A copy still to be sent is not sent.
    expect((await account.api('GET', `/api/emails/${ids.scheduled}`)).body).toMatchObject({ email: '', status: 'cancelled' });
    for (const needle of [ada, 'Ada Lovelace', 'order 1042']) {
      expect(await rowsHolding('emails', account.accountId, needle)).toBe(0);
      expect(await rowsHolding('email_contents', account.accountId, needle)).toBe(0);
    }
    expect(await rowsHolding('email_contents', account.accountId, bob)).toBe(1);
    expect(await listed()).toBe(before);

    // The stored answer of the first request showed the address: a retry with its key is not a replay of it.
    expect(await sql('select count(*)::int as n from idempotency_keys where key = $1', [idempotencyKey])).toEqual([{ n: 0 }]);

    // Nor is one of a request that ran as the erasure did, stored after it committed.
    await insert(stored);
    const retry = await account.api('POST', '/api/emails', { body: alone, headers: { 'idempotency-key': idempotencyKey } });
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.stringify(retry.body)).not.toContain(ids.alone);
  });
});

describe('a copy at the relay while its recipient is erased', () => {
  it('stays cancelled and anonymous, with no event, bounce or webhook delivery naming the address', async () => {
    const account = await newAccount(sendline.url, 'erase-sending');
    const accepted = uniqueEmail('ada-out');
    const refused = uniqueEmail('cy-out');
    sink.rejectHard.add(refused.toLowerCase());
    expect((await account.api('POST', '/api/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } })).status).toBe(201);
    const contacts = await Promise.all(
      [accepted, refused].map(async (email) => (await account.api('POST', '/api/contacts', { body: { email } })).body.id as string),
    );
    sink.rcptDelayMs = 1500;
    try {
      const ids = await Promise.all(
        [accepted, refused].map(async (email) => {
          const res = await account.api('POST', '/api/emails', {
            body: { from: { email: 'shop@shop.example' }, to: [{ email }], subject: 'Out', text: 'Hi.' },
          });
          expect(res.status).toBe(202);
          return res.body.data[0].id as string;
        }),
      );
      await waitFor(async () => {
        const rows = await sql(`select count(*)::int as n from emails where id = any($1) and status = 'sending'`, [ids]);
        return rows[0].n === 2;
      });
      for (const id of contacts) expect((await account.api('POST', `/api/contacts/${id}/erase`)).status).toBe(200);
      // Both answers come after the erase; the sender then records what it can.
      await waitFor(() => sink.rcptAnswered.includes(accepted.toLowerCase()) && sink.rcptAnswered.includes(refused.toLowerCase()));
      await waitFor(() => sink.to(accepted).length > 0);
      await new Promise((r) => setTimeout(r, 1500));
      for (const id of ids) expect((await account.api('GET', `/api/emails/${id}`)).body).toMatchObject({ email: '', status: 'cancelled' });
      for (const address of [accepted, refused]) {
        const named = await sql(
          `select (select count(*)::int from events where account_id = $1 and position($2 in lower(data::text)) > 0) as events,
                  (select count(*)::int from bounces where account_id = $1 and lower(email) = $2) as bounces,
                  (select count(*)::int from webhook_deliveries d where position($2 in lower(d::text)) > 0) as deliveries`,
          [account.accountId, address.toLowerCase()],
        );
        expect(named).toEqual([{ events: 0, bounces: 0, deliveries: 0 }]);
      }
    } finally {
      sink.rcptDelayMs = 0;
    }
  });
});

describe('a sent copy after its recipient is erased', () => {
  it('records no open, click or reported bounce, and no event of them', async () => {
    const account = await newAccount(sendline.url, 'erase-engaged');
    const [erased, kept] = [uniqueEmail('ada-engaged'), uniqueEmail('bob-engaged')];
    const contactId = (await account.api('POST', '/api/contacts', { body: { email: erased } })).body.id;
    const send = (to: string) =>
      account.api('POST', '/api/emails', {
        body: {
          from: { email: 'shop@shop.example' },
          to: [{ email: to }],
          subject: 'Tracked',
          html: '<html><body><a href="https://shop.example/orders/1">Order</a></body></html>',
          track_opens: true,
          track_clicks: true,
        },
      });
    const [erasedId, keptId] = await Promise.all([erased, kept].map(async (to) => (await send(to)).body.data[0].id as string));
    await Promise.all([delivered(account, erasedId), delivered(account, keptId)]);
    const links = (to: string) => {
      const html = sink.to(to)[0].mail.html as string;
      return [/src="(https:[^"]+\/t\/o\/[^"]+)"/, /href="(https:[^"]+\/t\/c\/[^"]+)"/].map((re) => new URL(re.exec(html)![1]).pathname);
    };
    const [erasedLinks, keptLinks] = [links(erased), links(kept)];
    expect((await account.api('POST', `/api/contacts/${contactId}/erase`)).status).toBe(200);

    for (const path of [...erasedLinks, ...keptLinks]) await fetch(sendline.url + path, { redirect: 'manual' });
    const dsn = await account.api('POST', '/api/tracking/bounces', { body: { message_id: erasedId, type: 'hard', reason: `550 ${erased} unknown` } });
    expect(dsn.status).toBe(404);
    // The same flush records the kept copy's hits.
    await waitFor(async () => (await account.api('GET', `/api/emails/${keptId}`)).body.clicked_at);
    expect((await account.api('GET', `/api/emails/${erasedId}`)).body).toMatchObject({
      email: '',
      status: 'delivered',
      reason: null,
      opened_at: null,
      clicked_at: null,
      bounced_at: null,
    });
    const [events] = await sql(`select count(*)::int as n from events where account_id = $1 and data->>'message_id' = $2`, [account.accountId, erasedId]);
    expect(events.n).toBe(0);
    expect(await rowsHolding('emails', account.accountId, erased)).toBe(0);
  });
});
