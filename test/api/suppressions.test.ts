import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sendline: Sendline;
let sink: SmtpSink;
const PUBLIC_URL = 'https://mail.example.test';
const HUMAN_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL,
    TRACKING_FLUSH_MS: '50',
    TRACKING_MACHINE_OPEN_SECONDS: '0',
    TRACKING_IP: 'full',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
});
afterAll(async () => {
  await sendline?.stop();
  await sink?.stop();
});

const sql = (text: string, params: unknown[] = []) => sendline.pool.query(text, params).then((r) => r.rows);
const local = (url: string) => url.replace(PUBLIC_URL, '');
const hit = (path: string, init: RequestInit = {}) =>
  fetch(sendline.url + path, { redirect: 'manual', ...init, headers: { 'user-agent': HUMAN_AGENT, ...(init.headers ?? {}) } });
const form = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

async function createContact(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await account.api('POST', '/api/contacts', { body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.id;
}

/** Sends a campaign and answers the addresses it went to (its messages) and each one's links. */
async function send(account: TestAccount, tag: string, extra: Record<string, unknown> = {}) {
  const created = await account.api('POST', '/api/campaigns', {
    body: {
      name: `Campaign ${tag}`,
      subject: 'News',
      from_email: 'news@shop.example',
      content: '<p>Hi</p><a href="https://shop.example/a">A</a>',
      audience: { tags_any: [tag] },
      ...extra,
    },
  });
  expect(created.status).toBe(201);
  const campaign = created.body;
  expect((await account.api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBe(200);
  await waitFor(async () => (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed');
  const messages: { id: string; email: string; contact_id: string }[] = await sql(
    'select id, email, contact_id from messages where campaign_id = $1 order by email',
    [campaign.id],
  );
  const links = (messageId: string) => {
    const mail = sink.received.find((r) => r.mail.headers.get('x-sendline-message') === messageId)!;
    const html = String(mail.mail.html);
    return {
      pixel: local(/src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]),
      click: local(/href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1].replace(/&amp;/g, '&')),
      unsubscribe: local(/href="([^"]+\/u\/[^"]+)"/.exec(html)![1]),
    };
  };
  return { campaign, emails: messages.map((m) => m.email), messages, links };
}

async function importJson(account: TestAccount, contacts: Record<string, unknown>[]) {
  const res = await account.api('POST', '/api/contacts/import', { body: { contacts } });
  expect(res.status).toBe(202);
  await waitFor(async () => (await account.api('GET', `/api/contacts/import/${res.body.id}`)).body.status === 'completed');
}

describe('the suppression list', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'suppress');
  });

  it('adds addresses in bulk, contacts or not, and suppresses the subscribed contacts among them', async () => {
    const contactId = await createContact(account, { email: 'member@example.com', tags: ['s1'] });
    const res = await account.api('POST', '/api/suppressions', {
      body: { emails: ['member@example.com', 'stranger@example.com', 'Stranger@Example.com'], reason: 'manual', detail: 'asked by phone' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ added: 2, existing: 0, contacts_suppressed: 1 });
    const again = await account.api('POST', '/api/suppressions', { body: { emails: ['stranger@example.com'] } });
    expect(again.body).toEqual({ added: 0, existing: 1, contacts_suppressed: 0 });
    expect((await account.api('GET', `/api/contacts/${contactId}`)).body).toMatchObject({ status: 'unsubscribed', status_reason: 'asked by phone' });
    const suppressed = await sql("select data from events where account_id = $1 and type = 'contact.suppressed'", [account.accountId]);
    expect(suppressed.map((e) => e.data)).toEqual([expect.objectContaining({ contact_id: contactId, status: 'unsubscribed' })]);
    const list = await account.api('GET', '/api/suppressions?reason=manual&limit=1');
    expect(list.body.data).toEqual([expect.objectContaining({ reason: 'manual', source: 'api', detail: 'asked by phone' })]);
    expect(list.body.has_more).toBe(true);
    const next = await account.api('GET', `/api/suppressions?reason=manual&limit=1&cursor=${list.body.next_cursor}`);
    expect([list.body.data[0].email, next.body.data[0].email].sort()).toEqual(['member@example.com', 'stranger@example.com']);
    expect(next.body.has_more).toBe(false);
    expect((await account.api('GET', '/api/suppressions?reason=bounced')).body.data).toEqual([]);
    expect((await account.api('GET', '/api/suppressions?email=strang')).body.data).toHaveLength(1);
  });

  it('refuses bad input with a clear 400', async () => {
    expectProblem(await account.api('POST', '/api/suppressions', { body: { emails: [] } }), 400, 'validation_failed');
    expectProblem(await account.api('POST', '/api/suppressions', { body: { emails: ['not an address'] } }), 400, 'validation_failed');
    expectProblem(await account.api('POST', '/api/suppressions', { body: { emails: ['a@example.com'], reason: 'spite' } }), 400, 'validation_failed');
    const tooMany = Array.from({ length: 10_001 }, (_, i) => `n${i}@example.com`);
    const res = await account.api('POST', '/api/suppressions', { body: { emails: tooMany } });
    expect([400, 413]).toContain(res.status);
    const listed = await account.api('GET', '/api/suppressions?limit=500');
    expect(listed.body.data.some((s: { email: string }) => s.email === 'n0@example.com')).toBe(false);
  });

  it('imports a CSV of addresses, counting the rows that are not addresses', async () => {
    const csv = 'email\r\ncsv-one@example.com\r\n"csv-two@example.com",extra\r\nnot-an-address\r\ncsv-one@example.com\r\nstranger@example.com';
    const res = await account.api('POST', '/api/suppressions/import?reason=complained', { raw: csv, headers: { 'content-type': 'text/csv' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ added: 2, existing: 1, contacts_suppressed: 0, invalid: 1, invalid_rows: [{ row: 4, value: 'not-an-address' }] });
    const list = await account.api('GET', '/api/suppressions?reason=complained');
    // Written by one statement: the same time, so their order is their random ids'.
    expect(list.body.data.map((s: { email: string; source: string }) => [s.email, s.source]).sort()).toEqual([
      ['csv-one@example.com', 'csv_import'],
      ['csv-two@example.com', 'csv_import'],
    ]);
  });

  it('answers a CSV cell with a NUL character as an invalid row, not a server error', async () => {
    const res = await account.api('POST', '/api/suppressions/import', {
      raw: 'nul\u0000x@example.com\r\nok-nul@example.com\r\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: 1, invalid: 1, invalid_rows: [{ row: 1, value: 'nul\ufffdx@example.com' }] });
  });

  it('leaves a suppressed address out of campaigns, also when it becomes a contact later', async () => {
    await account.api('POST', '/api/suppressions', { body: { emails: ['later@example.com'] } });
    await importJson(account, [
      { email: 'later@example.com', tags: ['later'] },
      { email: 'welcome@example.com', tags: ['later'] },
    ]);
    // The import creates the contact subscribed: only the list keeps it from the campaign.
    const contact = await account.api('GET', '/api/contacts?email=later@');
    expect(contact.body.data[0].status).toBe('subscribed');
    const { emails } = await send(account, 'later');
    expect(emails).toEqual(['welcome@example.com']);
    expect(sink.received.filter((r) => r.to === 'later@example.com')).toEqual([]);
  });

  it('removing an address with a reason resubscribes its contact, and the next campaign reaches it', async () => {
    const entry = (await account.api('GET', '/api/suppressions?email=member@')).body.data[0];
    expectProblem(await account.api('DELETE', `/api/suppressions/${entry.id}`), 400, 'validation_failed');
    expect((await account.api('DELETE', `/api/suppressions/${entry.id}?reason=${encodeURIComponent('asked to come back')}`)).status).toBe(204);
    expectProblem(await account.api('GET', `/api/suppressions/${entry.id}`), 404, 'not_found');
    const contact = (await account.api('GET', '/api/contacts?email=member@')).body.data[0];
    expect(contact).toMatchObject({ status: 'subscribed', status_reason: 'asked to come back' });
    const { emails } = await send(account, 's1');
    expect(emails).toEqual(['member@example.com']);
  });

  it('a person suppressing a contact lists it; resubscribing takes it off', async () => {
    const id = await createContact(account, { email: 'toggle@example.com', tags: ['toggle'] });
    await account.api('PATCH', `/api/contacts/${id}`, { body: { status: 'unsubscribed', status_reason: 'phoned' } });
    const listed = (await account.api('GET', '/api/suppressions?email=toggle@')).body.data;
    expect(listed).toEqual([expect.objectContaining({ reason: 'unsubscribed', source: 'contact_status', detail: 'phoned' })]);
    await account.api('PATCH', `/api/contacts/${id}`, { body: { status: 'subscribed', status_reason: 'phoned again' } });
    expect((await account.api('GET', '/api/suppressions?email=toggle@')).body.data).toEqual([]);
    expect((await send(account, 'toggle')).emails).toEqual(['toggle@example.com']);
  });

  it('a contact created suppressed is listed as a PATCH to that status lists it; a duplicate lists nothing', async () => {
    const born = await newAccount(sendline.url, 'born');
    for (const status of ['unsubscribed', 'bounced', 'complained']) {
      await createContact(born, { email: `born-${status}@example.com`, status, status_reason: `was ${status}` });
      const listed = (await born.api('GET', `/api/suppressions?email=born-${status}@`)).body.data;
      expect(listed).toEqual([expect.objectContaining({ reason: status, source: 'contact_status', detail: `was ${status}` })]);
    }
    await createContact(born, { email: 'born-subscribed@example.com' });
    expect((await born.api('GET', '/api/suppressions?email=born-subscribed@')).body.data).toEqual([]);
    const duplicate = await born.api('POST', '/api/contacts', { body: { email: 'Born-Subscribed@example.com', status: 'unsubscribed' } });
    expectProblem(duplicate, 409, 'contact_exists');
    expect((await born.api('GET', '/api/suppressions?email=born-subscribed@')).body.data).toEqual([]);
    // Imports too: a new contact, and an existing one the import suppresses.
    await importJson(born, [
      { email: 'imported-bounced@example.com', status: 'bounced' },
      { email: 'born-subscribed@example.com', status: 'complained' },
      { email: 'imported-fine@example.com' },
    ]);
    const listed = (await born.api('GET', '/api/suppressions?limit=100')).body.data.map((e: { email: string; reason: string; source: string }) => [
      e.email,
      e.reason,
      e.source,
    ]);
    expect(listed).toEqual(
      expect.arrayContaining([
        ['imported-bounced@example.com', 'bounced', 'contact_status'],
        ['born-subscribed@example.com', 'complained', 'contact_status'],
      ]),
    );
    expect(listed).toHaveLength(5);
  });

  it('a status change whose suppression list write fails writes neither', async () => {
    const born = await newAccount(sendline.url, 'born');
    const id = await createContact(born, { email: 'refused-patch@example.com' });
    // A real constraint violation on the second write: the list refuses these addresses for the test's length.
    await sql(`alter table suppressions add constraint test_refuses check (email not like 'refused-%') not valid`);
    try {
      const patched = await born.api('PATCH', `/api/contacts/${id}`, { body: { status: 'unsubscribed', first_name: 'Changed' } });
      expect(patched.status).toBe(500);
      const created = await born.api('POST', '/api/contacts', { body: { email: 'refused-create@example.com', status: 'bounced' } });
      expect(created.status).toBe(500);
    } finally {
      await sql('alter table suppressions drop constraint test_refuses');
    }
    expect((await born.api('GET', `/api/contacts/${id}`)).body).toMatchObject({ status: 'subscribed', first_name: null });
    expect((await born.api('GET', '/api/contacts?email=refused-create@')).body.data).toEqual([]);
    const events = await sql(`select type from events where account_id = $1 and data::text like '%refused-%' order by seq`, [born.accountId]);
    expect(events.map((e) => e.type)).toEqual(['contact.created']);
    expect((await born.api('GET', '/api/suppressions?email=refused-')).body.data).toEqual([]);
  });

  it('bounces and complaints put the address on the list', async () => {
    await createContact(account, { email: 'hard@example.net', tags: ['fb'] });
    await createContact(account, { email: 'angry@example.net', tags: ['fb'] });
    const { messages } = await send(account, 'fb');
    const [angry, hard] = messages;
    expect((await account.api('POST', '/api/tracking/bounces', { body: { message_id: hard.id, type: 'hard', reason: 'no such user' } })).status).toBe(201);
    expect((await account.api('POST', '/api/tracking/bounces', { body: { message_id: angry.id, type: 'complaint' } })).status).toBe(201);
    const bounced = (await account.api('GET', '/api/suppressions?reason=bounced')).body.data;
    expect(bounced).toEqual([expect.objectContaining({ email: 'hard@example.net', source: 'bounce', detail: 'no such user' })]);
    const complained = (await account.api('GET', '/api/suppressions?email=angry@')).body.data;
    expect(complained).toEqual([expect.objectContaining({ reason: 'complained', source: 'complaint' })]);
  });
});

describe('topics and the preference centre', () => {
  let account: TestAccount;
  let news: string;
  let product: string;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'topics');
  });

  it('creates, lists, renames, deletes and refuses duplicate topics', async () => {
    const created = await account.api('POST', '/api/topics', { body: { name: 'Newsletter', description: 'Monthly' } });
    expect(created.status).toBe(201);
    news = created.body.id;
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^top_/), name: 'Newsletter', description: 'Monthly' });
    const dup = await account.api('POST', '/api/topics', { body: { name: 'newsletter' } });
    expectProblem(dup, 409, 'topic_exists');
    expect(dup.body.existing_id).toBe(news);
    product = (await account.api('POST', '/api/topics', { body: { name: 'Product updates' } })).body.id;
    expectProblem(await account.api('PATCH', `/api/topics/${product}`, { body: { name: 'NEWSLETTER' } }), 409, 'topic_exists');
    const renamed = await account.api('PATCH', `/api/topics/${product}`, { body: { name: 'Product news' } });
    expect(renamed.body.name).toBe('Product news');
    expect((await account.api('GET', '/api/topics')).body.data.map((t: { name: string }) => t.name)).toEqual(['Newsletter', 'Product news']);
    const temp = (await account.api('POST', '/api/topics', { body: { name: 'Temporary' } })).body.id;
    const campaign = await account.api('POST', '/api/campaigns', {
      body: { name: 'On a topic', subject: 'x', from_email: 'n@shop.example', content: '<p>x</p>', topic_id: temp },
    });
    expect(campaign.body.topic_id).toBe(temp);
    expect((await account.api('DELETE', `/api/topics/${temp}`)).status).toBe(204);
    expectProblem(await account.api('GET', `/api/topics/${temp}`), 404, 'not_found');
    // Its campaigns keep no topic.
    expect((await account.api('GET', `/api/campaigns/${campaign.body.id}`)).body.topic_id).toBeNull();
  });

  it('a campaign takes a topic of its own account only', async () => {
    const res = await account.api('POST', '/api/campaigns', {
      body: { name: 'x', subject: 'x', from_email: 'news@shop.example', content: '<p>x</p>', topic_id: 'top_unknown' },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/topic_id' })]);
  });

  it('leaving a topic on the page or by one-click skips its next campaign; another topic still reaches the contact', async () => {
    for (const name of ['page', 'oneclick', 'stays']) await createContact(account, { email: `${name}@example.org`, tags: ['pref'] });
    const first = await send(account, 'pref', { topic_id: news });
    expect(first.campaign.topic_id).toBe(news);
    expect(first.emails).toEqual(['oneclick@example.org', 'page@example.org', 'stays@example.org']);
    const [oneClick, onPage] = first.messages;

    const page = await hit(first.links(onPage.id).unsubscribe);
    const html = await page.text();
    expect(html).toContain('Newsletter');
    expect(html).toContain('name="scope" value="topic"');
    expect(html).toContain('name="scope" value="all"');
    const left = await hit(first.links(onPage.id).unsubscribe, form('List-Unsubscribe=One-Click&from=page&scope=topic'));
    expect(left.status).toBe(200);
    expect(await left.text()).toContain('Newsletter');
    // RFC 8058 one-click from the mail client: the campaign's topic, not everything.
    expect((await hit(first.links(oneClick.id).unsubscribe, form('List-Unsubscribe=One-Click'))).status).toBe(200);

    for (const m of [oneClick, onPage]) {
      expect((await account.api('GET', `/api/contacts/${m.contact_id}`)).body.status).toBe('subscribed');
      expect((await account.api('GET', `/api/contacts/${m.contact_id}/topic-optouts`)).body).toEqual({ topic_ids: [news] });
    }
    const unsubscribed = await sql("select data from events where account_id = $1 and type = 'email.unsubscribed' order by seq", [account.accountId]);
    expect(unsubscribed.map((e) => e.data.source)).toEqual(['link', 'one_click']);
    const updated = await sql("select data from events where account_id = $1 and type = 'contact.updated'", [account.accountId]);
    expect(updated.map((e) => e.data.changed)).toEqual([['topic_optouts'], ['topic_optouts']]);
    expect((await account.api('GET', `/api/campaigns/${first.campaign.id}`)).body.stats.unsubscribed).toBe(2);

    expect((await send(account, 'pref', { topic_id: news })).emails).toEqual(['stays@example.org']);
    expect((await send(account, 'pref', { topic_id: product })).emails).toEqual(['oneclick@example.org', 'page@example.org', 'stays@example.org']);
    expect((await send(account, 'pref')).emails).toHaveLength(3);
  });

  it('leaving everything from a topic campaign suppresses the contact and lists the address', async () => {
    const { messages, links } = await send(account, 'pref', { topic_id: product });
    const stays = messages.find((m) => m.email === 'stays@example.org')!;
    const res = await hit(links(stays.id).unsubscribe, form('List-Unsubscribe=One-Click&from=page&scope=all'));
    expect(await res.text()).toContain('no more email from this sender');
    expect((await account.api('GET', `/api/contacts/${stays.contact_id}`)).body.status).toBe('unsubscribed');
    expect((await account.api('GET', '/api/suppressions?email=stays@')).body.data).toEqual([
      expect.objectContaining({ reason: 'unsubscribed', source: 'unsubscribe_link' }),
    ]);
  });

  it('sets a contact’s opt-outs through the API, checking the topics', async () => {
    const id = await createContact(account, { email: 'api-optout@example.org' });
    const set = await account.api('PUT', `/api/contacts/${id}/topic-optouts`, { body: { topic_ids: [product, news, product] } });
    expect(set.body.topic_ids.sort()).toEqual([news, product].sort());
    const bad = await account.api('PUT', `/api/contacts/${id}/topic-optouts`, { body: { topic_ids: [news, 'top_nope'] } });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/topic_ids/1' })]);
    expect((await account.api('PUT', `/api/contacts/${id}/topic-optouts`, { body: { topic_ids: [] } })).body).toEqual({ topic_ids: [] });
  });
});

describe('contact exports', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'exports');
    await createContact(account, {
      email: 'a@example.com',
      first_name: '=HYPERLINK("https://evil.example","x")',
      tags: ['vip', 'b'],
      attributes: { plan: 'pro', seats: 3 },
    });
    await createContact(account, { email: 'b@example.com', last_name: '+1 "quoted", name', tags: ['vip'], attributes: { note: '@SUM(A1)' } });
    await createContact(account, { email: 'c@example.com', tags: ['other'] });
  });

  async function exportOf(filters: Record<string, unknown>): Promise<string> {
    const started = await account.api('POST', '/api/contacts/exports', { body: filters });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ id: expect.stringMatching(/^exp_/), status: 'queued', filters });
    const done = await waitFor(async () => {
      const res = await account.api('GET', `/api/contacts/exports/${started.body.id}`);
      return res.body.status === 'completed' && res.body;
    });
    const csv = await account.api('GET', `/api/contacts/exports/${started.body.id}/download`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(done.bytes).toBe(Buffer.byteLength(csv.body));
    return csv.body;
  }

  it('writes the matching contacts with attributes as columns and formula-safe cells', async () => {
    const csv = await exportOf({ tag: 'vip' });
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('email,first_name,last_name,status,status_reason,tags,timezone,created_at,updated_at,note,plan,seats');
    expect(lines[1]).toMatch(/^a@example\.com,"'=HYPERLINK\(""https:\/\/evil\.example"",""x""\)",,subscribed,,vip;b,,[^,]+,[^,]+,,pro,3$/);
    expect(lines[2]).toMatch(/^b@example\.com,,"'\+1 ""quoted"", name",subscribed,,vip,,[^,]+,[^,]+,"'@SUM\(A1\)",,$/);
    expect(lines.slice(3)).toEqual(['']);
  });

  it('exports every contact without filters, and answers 404 for an unknown export', async () => {
    const csv = await exportOf({});
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(4);
    expectProblem(await account.api('GET', '/api/contacts/exports/exp_unknown'), 404, 'not_found');
    expectProblem(await account.api('GET', '/api/contacts/exports/exp_unknown/download'), 404, 'not_found');
    expectProblem(await account.api('POST', '/api/contacts/exports', { body: { colour: 'red' } }), 400, 'validation_failed');
  });
});

/** Every row of every table whose text holds `needle` (case-insensitive): table names. */
async function tablesHolding(needle: string): Promise<string[]> {
  const columns: { table_name: string; column_name: string; data_type: string }[] = await sql(
    `select table_name, column_name, data_type from information_schema.columns
     where table_schema = 'public' and data_type in ('text', 'jsonb', 'bytea', 'ARRAY', 'character varying')`,
  );
  const found = new Set<string>();
  for (const c of columns) {
    const where =
      c.data_type === 'bytea' ? `position(convert_to($1, 'UTF8') in "${c.column_name}") > 0` : `position($1 in lower("${c.column_name}"::text)) > 0`;
    const [row] = await sql(`select count(*)::int as n from "${c.table_name}" where ${where}`, [needle.toLowerCase()]);
    if (row.n > 0) found.add(`${c.table_name}.${c.column_name}`);
  }
  return [...found].sort();
}

describe('personal data: access and erasure', () => {
  let account: TestAccount;
  let contactId: string;
  let campaignId: string;
  let mailed: { pixel: string; click: string; unsubscribe: string };
  const EMAIL = 'erase-me-7f3a@example.com';
  const AGENT = 'ErasureTestAgent/9.1 (unique-agent-7f3a)';
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'gdpr');
    contactId = await createContact(account, { email: EMAIL, first_name: 'Erin', tags: ['gdpr'] });
    await createContact(account, { email: 'keep-me@example.com', tags: ['gdpr'] });
    const { campaign, messages, links } = await send(account, 'gdpr');
    campaignId = campaign.id;
    const mine = messages.find((m) => m.email === EMAIL)!;
    mailed = links(mine.id);
    await hit(links(mine.id).pixel, { headers: { 'user-agent': AGENT } });
    await hit(links(mine.id).click, { headers: { 'user-agent': AGENT } });
    await waitFor(async () => (await sql('select 1 from clicks where message_id = $1', [mine.id])).length > 0);
    await account.api('POST', '/api/tracking/bounces', { body: { message_id: mine.id, type: 'soft', reason: `mailbox ${EMAIL} full` } });
    // A failed import row naming the address, and an export holding it.
    const imp = await account.api('POST', '/api/contacts/import', {
      raw: `email,status\n${EMAIL},nonsense\n`,
      headers: { 'content-type': 'text/csv' },
    });
    await waitFor(async () => (await account.api('GET', `/api/contacts/import/${imp.body.id}`)).body.status === 'completed');
    const exp = await account.api('POST', '/api/contacts/exports', { body: {} });
    await waitFor(async () => (await account.api('GET', `/api/contacts/exports/${exp.body.id}`)).body.status === 'completed');
  });

  it('GET /contacts/{id}/export holds everything stored about the contact', async () => {
    const res = await account.api('GET', `/api/contacts/${contactId}/export`);
    expect(res.status).toBe(200);
    const data = res.body;
    expect(data.contact).toMatchObject({ id: contactId, email: EMAIL, first_name: 'Erin' });
    expect(data.messages).toEqual([expect.objectContaining({ campaign_id: campaignId, email: EMAIL })]);
    expect(data.opens.length).toBeGreaterThan(0);
    expect(data.opens[0]).toMatchObject({ user_agent: AGENT, ip: '127.0.0.1' });
    expect(data.clicks).toEqual([expect.objectContaining({ url: 'https://shop.example/a', user_agent: AGENT })]);
    expect(data.bounces).toEqual([expect.objectContaining({ type: 'soft' })]);
    expect(data.import_errors).toEqual([expect.objectContaining({ row: 1, code: expect.any(String) })]);
    expect(data.events.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['contact.created', 'email.sent', 'email.opened', 'email.clicked']),
    );
    expect(data.suppression).toBeNull();
    expect(data.topic_optouts).toEqual([]);
  });

  it('erasing leaves the address, IP and user agent nowhere, keeps the counts, and keeps the address suppressed', async () => {
    expect(await tablesHolding(EMAIL)).not.toEqual([]);
    const before = (await account.api('GET', `/api/campaigns/${campaignId}`)).body.stats;
    const res = await account.api('POST', `/api/contacts/${contactId}/erase`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ contact_id: contactId, suppression_id: expect.stringMatching(/^sup_/) });
    expect(await tablesHolding(EMAIL)).toEqual([]);
    expect(await tablesHolding(AGENT)).toEqual([]);
    // The links mailed to the person record nothing more about them, and unsubscribe nobody.
    await hit(mailed.pixel, { headers: { 'user-agent': AGENT } });
    expect((await hit(mailed.click, { headers: { 'user-agent': AGENT } })).status).toBe(302);
    expect((await hit(mailed.unsubscribe)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 300));
    expect(await tablesHolding(AGENT)).toEqual([]);
    expect(await sql("select count(*)::int as n from opens where campaign_id = $1 and ip = '127.0.0.1'", [campaignId])).toEqual([{ n: 0 }]);
    expect((await account.api('GET', `/api/campaigns/${campaignId}`)).body.stats).toEqual(before);
    expectProblem(await account.api('GET', `/api/contacts/${contactId}`), 404, 'not_found');
    expect((await account.api('GET', `/api/suppressions/${res.body.suppression_id}`)).body).toMatchObject({ email: null, source: 'erasure' });
    // Imported again later: a contact again, but never mailed until the entry is removed.
    await importJson(account, [{ email: EMAIL, tags: ['gdpr'] }]);
    expect((await send(account, 'gdpr')).emails).toEqual(['keep-me@example.com']);
    expectProblem(await account.api('POST', `/api/contacts/${contactId}/erase`), 404, 'not_found');
  });
});

describe('tenant isolation', () => {
  it('another account reaches none of these resources', async () => {
    const a = await newAccount(sendline.url, 'iso-a');
    const b = await newAccount(sendline.url, 'iso-b');
    const contactId = await createContact(a, { email: 'iso@example.com' });
    await a.api('POST', '/api/suppressions', { body: { emails: ['iso-listed@example.com'] } });
    const suppression = (await a.api('GET', '/api/suppressions')).body.data[0];
    const topic = (await a.api('POST', '/api/topics', { body: { name: 'Private' } })).body;
    const exp = (await a.api('POST', '/api/contacts/exports', { body: {} })).body;
    await waitFor(async () => (await a.api('GET', `/api/contacts/exports/${exp.id}`)).body.status === 'completed');

    expect((await b.api('GET', '/api/suppressions')).body.data).toEqual([]);
    expect((await b.api('GET', '/api/topics')).body.data).toEqual([]);
    for (const [method, path] of [
      ['GET', `/api/suppressions/${suppression.id}`],
      ['DELETE', `/api/suppressions/${suppression.id}?reason=x`],
      ['GET', `/api/topics/${topic.id}`],
      ['DELETE', `/api/topics/${topic.id}`],
      ['GET', `/api/contacts/exports/${exp.id}`],
      ['GET', `/api/contacts/exports/${exp.id}/download`],
      ['GET', `/api/contacts/${contactId}/export`],
      ['POST', `/api/contacts/${contactId}/erase`],
      ['GET', `/api/contacts/${contactId}/topic-optouts`],
    ] as const) {
      expectProblem(await b.api(method, path), 404, 'not_found');
    }
    expectProblem(await b.api('PATCH', `/api/topics/${topic.id}`, { body: { name: 'Mine' } }), 404, 'not_found');
    expectProblem(await b.api('PUT', `/api/contacts/${contactId}/topic-optouts`, { body: { topic_ids: [] } }), 404, 'not_found');
    const ownContact = await createContact(b, { email: 'iso@example.com' });
    expectProblem(await b.api('PUT', `/api/contacts/${ownContact}/topic-optouts`, { body: { topic_ids: [topic.id] } }), 400, 'validation_failed');
    expectProblem(
      await b.api('POST', '/api/campaigns', { body: { name: 'x', subject: 'x', from_email: 'n@shop.example', content: '<p>x</p>', topic_id: topic.id } }),
      400,
      'validation_failed',
    );
    // B suppressing the same address as A's contact changes nothing in A.
    await b.api('POST', '/api/suppressions', { body: { emails: ['iso@example.com'] } });
    expect((await a.api('GET', `/api/contacts/${contactId}`)).body.status).toBe('subscribed');
    expect((await a.api('GET', `/api/suppressions/${suppression.id}`)).status).toBe(200);
    expect((await a.api('GET', `/api/topics/${topic.id}`)).status).toBe(200);
  });
});
