import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

/** A campaign's messages are written batch by batch as it sends: what that means for its audience. */

let sendline: Sendline;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({ SMTP_URL: sink.url, SEND_BATCH_SIZE: '5', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

const sql = (text: string, params: unknown[] = []) => sendline.pool.query(text, params).then((r) => r.rows);

const draft = (audience: Record<string, unknown> = {}) => ({
  name: 'Audience',
  subject: 'Hello',
  from_email: 'news@shop.example',
  content: '<p>Hi</p>',
  audience,
});

const finished = (account: TestAccount, id: string) =>
  waitFor(async () => {
    const res = await account.api('GET', `/api/campaigns/${id}`);
    return res.body.status === 'completed' ? res.body : undefined;
  });

async function importContacts(account: TestAccount, emails: string[], tags: string[] = []) {
  const res = await account.api('POST', '/api/contacts/import', { body: { contacts: emails.map((email) => ({ email, tags })) } });
  expect(res.status).toBeLessThan(300);
  const rows = await sql('select id, email from contacts where account_id = $1 order by created_at, id', [account.accountId]);
  return new Map(rows.map((r: { id: string; email: string }) => [r.email, r.id]));
}

describe('a campaign audience written as it sends', () => {
  it('is counted before sending as sending counts it', async () => {
    const account = await newAccount(sendline.url, 'count');
    await importContacts(account, ['a@count.example', 'b@count.example', 'c@count.example'], ['news']);
    await importContacts(account, ['d@count.example']);
    await account.api('POST', '/api/suppressions', { body: { emails: ['c@count.example'] } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft({ tags_any: ['news'] }) });
    expect((await account.api('GET', `/api/campaigns/${c.id}/audience`)).body).toEqual({ recipients: 2 });
    expect((await account.api('POST', `/api/campaigns/${c.id}/send`)).body.stats.recipients).toBe(2);
    expect((await account.api('GET', '/api/campaigns/cmp_0000000000000000000000/audience')).status).toBe(404);
  });

  it('sends to contacts created before the start, checked when their turn comes, by the rules of the start', async () => {
    const account = await newAccount(sendline.url, 'pieces');
    const emails = Array.from({ length: 200 }, (_, i) => `p${String(i).padStart(3, '0')}@pieces.example`);
    const ids = await importContacts(account, emails, ['vip']);
    const segment = await account.api('POST', '/api/segments', {
      body: { name: 'VIP', rules: { all: [{ field: 'tags', operator: 'contains', value: 'vip' }] } },
    });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft({ segment_ids: [segment.body.id] }) });

    sink.delayMs = 100;
    let started;
    try {
      started = await account.api('POST', `/api/campaigns/${c.id}/send`);
      await waitFor(() => emails.some((e) => sink.to(e).length > 0));
      expect((await account.api('POST', `/api/campaigns/${c.id}/pause`)).body.status).toBe('paused');
    } finally {
      sink.delayMs = 0;
    }
    expect(started.body.stats.recipients).toBe(200);
    // While paused, and before their batch was written: the last contact leaves, the one before
    // it is deleted, a new contact joins the segment, and the segment itself is deleted.
    const [last, beforeLast] = [emails[199], emails[198]];
    const taken = `select count(*)::int as n from contacts c join campaign_audiences a on a.campaign_id = $1
      where c.email = any($2) and c.account_id = a.account_id and (c.created_at, c.id) <= (a.after_created_at, a.after_id)`;
    expect(await sql(taken, [c.id, [last, beforeLast]])).toEqual([{ n: 0 }]);
    expect((await account.api('PATCH', `/api/contacts/${ids.get(last)}`, { body: { status: 'unsubscribed' } })).status).toBe(200);
    expect((await account.api('DELETE', `/api/contacts/${ids.get(beforeLast)}`)).status).toBe(204);
    expect((await account.api('POST', '/api/contacts', { body: { email: 'late@pieces.example', tags: ['vip'] } })).status).toBe(201);
    expect((await account.api('DELETE', `/api/segments/${segment.body.id}`)).status).toBe(204);

    expect((await account.api('POST', `/api/campaigns/${c.id}/resume`)).body.status).toBe('sending');
    const done = await finished(account, c.id);
    for (const e of emails.slice(0, 198)) expect(sink.to(e)).toHaveLength(1);
    expect(sink.to(last)).toHaveLength(0);
    expect(sink.to(beforeLast)).toHaveLength(0);
    expect(sink.to('late@pieces.example')).toHaveLength(0);
    // On completion the count is what was written: one message per recipient, none for the rest.
    expect(done.stats).toMatchObject({ recipients: 198, sent: 198, delivered: 198 });
    const listed = await account.api('GET', `/api/campaigns/${c.id}/messages?limit=500`);
    expect(listed.body.data).toHaveLength(198);
    expect(new Set(listed.body.data.map((m: { status: string }) => m.status))).toEqual(new Set(['delivered']));
  });

  it('finishes a campaign whose messages were all written at its start, as releases before this one did', async () => {
    const account = await newAccount(sendline.url, 'legacy');
    const emails = Array.from({ length: 12 }, (_, i) => `l${i}@legacy.example`);
    await importContacts(account, emails);
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    // What the earlier release's `send` left: the campaign sending, a queued message per contact, no audience row.
    await sql(
      `with queued as (
         insert into messages (id, account_id, campaign_id, contact_id, email, status)
         select sendline_id('msg'), account_id, $2, id, email, 'queued' from contacts where account_id = $1 order by created_at, id
         returning 1)
       update campaigns set status = 'sending', started_at = now(), recipients = (select count(*) from queued) where id = $2`,
      [account.accountId, c.id],
    );
    const done = await finished(account, c.id);
    expect(done.stats).toMatchObject({ recipients: 12, sent: 12 });
    for (const e of emails) expect(sink.to(e)).toHaveLength(1);
  });

  it('sends again the piece of a worker that stopped before recording it, to its contacts without a message', async () => {
    const account = await newAccount(sendline.url, 'abandoned');
    const emails = Array.from({ length: 10 }, (_, i) => `a${i}@abandoned.example`);
    const ids = [...(await importContacts(account, emails)).values()];
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    // What a worker that died mid-piece leaves: the audience all taken, one piece taken an hour
    // ago and never recorded; one of its contacts has its message already (a retry recorded it).
    const [first, last] = await sql('select id, email, created_at from contacts where id = any($1) order by created_at, id', [ids]).then((r) => [
      r[0],
      r.at(-1),
    ]);
    await sql(
      `with started as (update campaigns set status = 'sending', started_at = now(), recipients = 10 where id = $2 returning id)
       insert into campaign_audiences (campaign_id, account_id, definition, frozen_at, after_created_at, after_id)
       select id, $1, '{"filter":{},"topicId":null,"segments":null}', now(), $3, $4 from started`,
      [account.accountId, c.id, last.created_at, last.id],
    );
    await sql(
      `insert into messages (id, account_id, campaign_id, contact_id, email, status, attempts, sent_at)
       values ('msg_recordedbefore0000000', $1, $2, $3, $4, 'delivered', 1, now())`,
      [account.accountId, c.id, first.id, first.email],
    );
    await sql(
      `insert into campaign_audience_pieces (account_id, campaign_id, after_created_at, after_id, last_created_at, last_id, taken_at)
       values ($1, $2, null, null, $3, $4, now() - interval '1 hour')`,
      [account.accountId, c.id, last.created_at, last.id],
    );
    const done = await finished(account, c.id);
    expect(done.stats).toMatchObject({ recipients: 10, sent: 9 });
    for (const e of emails) expect(sink.to(e)).toHaveLength(e === first.email ? 0 : 1);
    expect(await sql('select count(*)::int as n from campaign_audience_pieces where campaign_id = $1', [c.id])).toEqual([{ n: 0 }]);
  });

  it('keeps no address for a contact erased while its message was on its way', async () => {
    const account = await newAccount(sendline.url, 'erased');
    const ids = await importContacts(account, ['gone@erased.example', 'kept@erased.example']);
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    sink.delayMs = 1500;
    try {
      await account.api('POST', `/api/campaigns/${c.id}/send`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await account.api('POST', `/api/contacts/${ids.get('gone@erased.example')}/erase`)).status).toBe(200);
      await finished(account, c.id);
    } finally {
      sink.delayMs = 0;
    }
    const rows = await sql('select email, contact_id, status from messages where campaign_id = $1 order by email', [c.id]);
    expect(rows).toEqual([
      { email: '', contact_id: null, status: 'delivered' },
      { email: 'kept@erased.example', contact_id: ids.get('kept@erased.example'), status: 'delivered' },
    ]);
  });

  it('writes each contact once when two workers share the campaign', async () => {
    const account = await newAccount(sendline.url, 'shared');
    const emails = Array.from({ length: 60 }, (_, i) => `s${i}@shared.example`);
    await importContacts(account, emails);
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    await account.api('POST', `/api/campaigns/${c.id}/send`);
    const done = await finished(account, c.id);
    expect(done.stats).toMatchObject({ recipients: 60, sent: 60 });
    expect(await sql('select count(distinct contact_id)::int as contacts, count(*)::int as messages from messages where campaign_id = $1', [c.id])).toEqual([
      { contacts: 60, messages: 60 },
    ]);
    for (const e of emails) expect(sink.to(e)).toHaveLength(1);
  });
});
