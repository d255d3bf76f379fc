import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { ConfirmationSigner } from '../../server/lists/tokens.ts';
import { TEST_KEY_RING, client, expectProblem, newAccount, startTestServer, uniqueEmail, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

const PUBLIC_URL = 'https://lists.example.test';
const SUBSCRIBES_PER_MINUTE = 5;
let server: Sendline;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL,
    TRUST_PROXY: 'loopback',
    PUBLIC_SUBSCRIBES_PER_MINUTE: String(SUBSCRIBES_PER_MINUTE),
  });
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

/** Each test subscribes from an address of its own, so that the rate limit counts it alone. */
let lastAddress = 0;
const anotherAddress = () => `203.0.113.${++lastAddress}`;

async function newContact(account: TestAccount, email = uniqueEmail('member'), body: Record<string, unknown> = {}): Promise<{ id: string; email: string }> {
  const res = await account.api('POST', '/api/contacts', { body: { email, ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

async function newList(account: TestAccount, body: Record<string, unknown> = {}) {
  const res = await account.api('POST', '/api/lists', { body: { name: 'Newsletter', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; public_id: string; double_opt_in: boolean };
}

const doubleOptIn = { double_opt_in: true, from_email: 'news@shop.example', from_name: 'Shop News' };

function subscribe(publicId: string, body: unknown, options: { address?: string; form?: boolean } = {}) {
  const headers: Record<string, string> = { 'x-forwarded-for': options.address ?? anotherAddress() };
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return client(server.url)('POST', `/api/public/lists/${publicId}/subscribe`, {
      headers,
      raw: new URLSearchParams(body as Record<string, string>).toString(),
    });
  }
  return client(server.url)('POST', `/api/public/lists/${publicId}/subscribe`, { headers, body });
}

/** The confirmation link mailed to `email`, as a path on this server. */
async function confirmationPath(email: string): Promise<string> {
  const mail = await waitFor(() => sink.to(email).at(-1), 60_000);
  const link = String(mail.mail.text).match(/https:\/\/lists\.example\.test(\/l\/confirm\/\S+)/);
  expect(link).not.toBeNull();
  return link![1];
}

async function memberStatus(account: TestAccount, listId: string, contactId: string): Promise<string | undefined> {
  const res = await account.api('GET', `/api/lists/${listId}/members?limit=500`);
  expect(res.status).toBe(200);
  return (res.body.data as { contact_id: string; status: string }[]).find((m) => m.contact_id === contactId)?.status;
}

describe('lists', () => {
  it('are created, listed by keyset, changed and deleted, with member counts per status', async () => {
    const account = await newAccount(server.url, 'lists-crud');
    const first = await newList(account, { name: 'First', description: 'The first' });
    expect(first).toMatchObject({ name: 'First', description: 'The first', double_opt_in: false, members: { subscribed: 0, unconfirmed: 0, unsubscribed: 0 } });
    expect(first.id).toMatch(/^lst_/);
    const second = await newList(account, { name: 'Second', ...doubleOptIn });
    await newList(account, { name: 'Third' });

    expectProblem(await account.api('POST', '/api/lists', { body: { name: 'No sender', double_opt_in: true } }), 400, 'validation_failed');
    expectProblem(await account.api('PATCH', `/api/lists/${first.id}`, { body: { double_opt_in: true } }), 400, 'validation_failed');
    expectProblem(await account.api('POST', '/api/lists', { body: { name: '' } }), 400, 'validation_failed');

    const page1 = await account.api('GET', '/api/lists?limit=2');
    expect(page1.body.data.map((l: { name: string }) => l.name)).toEqual(['First', 'Second']);
    expect(page1.body.has_more).toBe(true);
    const page2 = await account.api('GET', `/api/lists?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body).toMatchObject({ data: [{ name: 'Third' }], has_more: false, next_cursor: null });

    const a = await newContact(account);
    const b = await newContact(account);
    await account.api('POST', `/api/lists/${second.id}/members`, { body: { contact_ids: [a.id] } });
    await account.api('POST', `/api/lists/${second.id}/members`, { body: { contact_ids: [b.id], status: 'subscribed' } });
    const got = await account.api('GET', `/api/lists/${second.id}`);
    expect(got.body.members).toEqual({ unconfirmed: 1, subscribed: 1, unsubscribed: 0 });

    const changed = await account.api('PATCH', `/api/lists/${second.id}`, { body: { name: 'Renamed', description: null } });
    expect(changed.body).toMatchObject({ name: 'Renamed', description: null, double_opt_in: true, members: { unconfirmed: 1, subscribed: 1 } });

    expect((await account.api('DELETE', `/api/lists/${second.id}`)).status).toBe(204);
    expectProblem(await account.api('GET', `/api/lists/${second.id}`), 404, 'not_found');
    // The contacts stay.
    expect((await account.api('GET', `/api/contacts/${a.id}`)).status).toBe(200);
  });

  it('adds and removes members in bulk by id and email, with per-call results and a limit of 10,000', async () => {
    const account = await newAccount(server.url, 'lists-bulk');
    const list = await newList(account);
    const a = await newContact(account);
    const b = await newContact(account, uniqueEmail('Mixed.Case'));
    const add = await account.api('POST', `/api/lists/${list.id}/members`, {
      body: { contact_ids: [a.id, 'ct_doesnotexist'], emails: [b.email.toUpperCase(), 'nobody@example.com'] },
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ added: 2, updated: 0, already_members: 0, not_found: { contact_ids: ['ct_doesnotexist'], emails: ['nobody@example.com'] } });
    const again = await account.api('POST', `/api/lists/${list.id}/members`, { body: { contact_ids: [a.id, b.id] } });
    expect(again.body).toMatchObject({ added: 0, updated: 0, already_members: 2 });
    const unsubscribe = await account.api('POST', `/api/lists/${list.id}/members`, { body: { contact_ids: [a.id], status: 'unsubscribed' } });
    expect(unsubscribe.body).toMatchObject({ added: 0, updated: 1, already_members: 0 });

    const subscribed = await account.api('GET', `/api/lists/${list.id}/members?status=subscribed`);
    expect(subscribed.body.data).toEqual([expect.objectContaining({ contact_id: b.id, email: b.email, status: 'subscribed' })]);
    const lists = await account.api('GET', `/api/contacts/${a.id}/lists`);
    expect(lists.body.data).toEqual([expect.objectContaining({ list_id: list.id, name: 'Newsletter', status: 'unsubscribed' })]);

    const tooMany = Array.from({ length: 10_001 }, (_, i) => `bulk-${i}@example.com`);
    const refused = await account.api('POST', `/api/lists/${list.id}/members`, { body: { emails: tooMany } });
    expectProblem(refused, 400, 'validation_failed');
    const split = await account.api('POST', `/api/lists/${list.id}/members`, { body: { emails: tooMany.slice(0, 5001), contact_ids: tooMany.slice(0, 5000) } });
    expectProblem(split, 400, 'validation_failed');
    // 10,000 long addresses are a body larger than the default limit: still within the call's.
    const long = (i: number) => `${'x'.repeat(50)}-${i}@${'d'.repeat(60)}.${'e'.repeat(50)}.example.com`;
    const atLimit = await account.api('POST', `/api/lists/${list.id}/members`, { body: { emails: Array.from({ length: 10_000 }, (_, i) => long(i)) } });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.not_found.emails).toHaveLength(10_000);

    const removed = await account.api('POST', `/api/lists/${list.id}/members/remove`, { body: { contact_ids: [a.id, 'ct_nope'], emails: [b.email] } });
    expect(removed.body).toEqual({ removed: 2, not_members: 0, not_found: { contact_ids: ['ct_nope'], emails: [] } });
    const twice = await account.api('POST', `/api/lists/${list.id}/members/remove`, { body: { contact_ids: [a.id] } });
    expect(twice.body).toMatchObject({ removed: 0, not_members: 1 });
    expectProblem(await account.api('POST', `/api/lists/${list.id}/members/remove`, { body: { emails: tooMany } }), 400, 'validation_failed');
  });

  it('sends a double opt-in confirmation whose signed link subscribes the member, with contact.subscribed', async () => {
    const account = await newAccount(server.url, 'lists-doi');
    const list = await newList(account, doubleOptIn);
    const contact = await newContact(account, uniqueEmail('doi'), { first_name: 'Ada' });
    const add = await account.api('POST', `/api/lists/${list.id}/members`, { body: { emails: [contact.email] } });
    expect(add.body.added).toBe(1);
    expect(await memberStatus(account, list.id, contact.id)).toBe('unconfirmed');

    const mail = await waitFor(() => sink.to(contact.email).at(-1), 60_000);
    expect(mail.mail.subject).toBe('Confirm your subscription to Newsletter');
    expect(mail.mail.from?.value[0]).toMatchObject({ name: 'Shop News', address: 'news@shop.example' });
    const path = await confirmationPath(contact.email);

    // A tampered link is refused: another list's id in the payload, or a changed signature.
    const [keyId, payload, mac] = path.slice('/l/confirm/'.length).split('.');
    const forgedPayload = Buffer.from(JSON.stringify(['l', 'lst_other', contact.id])).toString('base64url');
    for (const tampered of [`${keyId}.${forgedPayload}.${mac}`, `${keyId}.${payload}.${mac.slice(0, -2)}AA`, 'garbage']) {
      const res = await fetch(`${server.url}/l/confirm/${tampered}`, { method: 'POST' });
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('not valid');
    }
    // A link for a membership the list never had is refused too, though signed.
    const signer = new ConfirmationSigner(TEST_KEY_RING);
    expect((await fetch(`${server.url}/l/confirm/${signer.sign({ listId: list.id, contactId: 'ct_nobody' })}`)).status).toBe(404);
    expect(await memberStatus(account, list.id, contact.id)).toBe('unconfirmed');

    // Following the link shows a page that asks; a GET confirms nothing (mail scanners follow links).
    const ask = await fetch(server.url + path);
    expect(ask.status).toBe(200);
    expect(ask.headers.get('content-type')).toContain('text/html');
    expect(await ask.text()).toContain('<form method="post">');
    expect(await memberStatus(account, list.id, contact.id)).toBe('unconfirmed');

    const confirmed = await fetch(server.url + path, { method: 'POST' });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('is subscribed to <strong>Newsletter</strong>');
    expect(await memberStatus(account, list.id, contact.id)).toBe('subscribed');
    const members = await account.api('GET', `/api/lists/${list.id}/members`);
    expect(members.body.data[0].confirmed_at).toEqual(expect.any(String));

    const events = await account.api('GET', '/api/events?type=contact.subscribed');
    expect(events.body.data).toEqual([
      expect.objectContaining({
        type: 'contact.subscribed',
        data: { contact_id: contact.id, email: contact.email, previous_status: 'subscribed', list_id: list.id },
      }),
    ]);
    // An address that bounced is mailed no confirmation, though added with one that is.
    const bounced = await newContact(account, uniqueEmail('bounced'));
    await account.api('PATCH', `/api/contacts/${bounced.id}`, { body: { status: 'bounced' } });
    const other = await newContact(account, uniqueEmail('doi-other'));
    await account.api('POST', `/api/lists/${list.id}/members`, { body: { contact_ids: [bounced.id, other.id] } });
    await confirmationPath(other.email);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sink.to(bounced.email)).toHaveLength(0);

    // Following it again changes nothing and emits nothing.
    expect((await fetch(server.url + path, { method: 'POST' })).status).toBe(200);
    expect((await account.api('GET', '/api/events?type=contact.subscribed')).body.data).toHaveLength(1);
  });

  it('subscribes from a public form with the same answer for new and known addresses, a honeypot and a rate limit', async () => {
    const account = await newAccount(server.url, 'lists-public');
    const list = await newList(account, doubleOptIn);
    const known = await newContact(account, uniqueEmail('known'));
    await account.api('POST', `/api/lists/${list.id}/members`, { body: { contact_ids: [known.id], status: 'subscribed' } });

    const fresh = uniqueEmail('fresh');
    const forNew = await subscribe(list.public_id, { email: fresh, first_name: 'Grace' });
    const forKnown = await subscribe(list.public_id, { email: known.email });
    expect(forNew.status).toBe(202);
    expect(forKnown.status).toBe(202);
    expect(forNew.body).toEqual({ accepted: true, confirmation_required: true });
    expect(forKnown.body).toEqual(forNew.body);
    expect(forNew.headers.get('access-control-allow-origin')).toBe('*');

    // The new address became a contact and an unconfirmed member, and got its confirmation.
    const contacts = await account.api('GET', `/api/contacts?email=${encodeURIComponent(fresh)}`);
    expect(contacts.body.data).toEqual([expect.objectContaining({ email: fresh, first_name: 'Grace' })]);
    const freshId = contacts.body.data[0].id;
    expect(await memberStatus(account, list.id, freshId)).toBe('unconfirmed');
    // Until the link is followed, the address anyone could have typed receives no campaign at all.
    expect(contacts.body.data[0]).toMatchObject({ status: 'unsubscribed', status_reason: 'double opt-in not confirmed yet' });
    const link = await confirmationPath(fresh);
    expect((await fetch(server.url + link, { method: 'POST' })).status).toBe(200);
    expect(await memberStatus(account, list.id, freshId)).toBe('subscribed');
    expect((await account.api('GET', `/api/contacts/${freshId}`)).body).toMatchObject({ status: 'subscribed', status_reason: 'double opt-in confirmed' });
    const subscribedEvents = (await account.api('GET', '/api/events?type=contact.subscribed')).body.data.map((e: { data: unknown }) => e.data);
    expect(subscribedEvents).toEqual(
      expect.arrayContaining([
        { contact_id: freshId, email: fresh, previous_status: 'unsubscribed', list_id: list.id },
        { contact_id: freshId, email: fresh, previous_status: 'unsubscribed' },
      ]),
    );
    // The known subscriber stays subscribed and is sent nothing.
    expect(await memberStatus(account, list.id, known.id)).toBe('subscribed');
    await new Promise((r) => setTimeout(r, 1500));
    expect(sink.to(known.email)).toHaveLength(0);

    // A robot filling the honeypot gets the same answer, and nothing is stored.
    const robot = uniqueEmail('robot');
    const trapped = await subscribe(list.public_id, { email: robot, website: 'https://spam.example' });
    expect(trapped.status).toBe(202);
    expect(trapped.body).toEqual(forNew.body);
    expect((await account.api('GET', `/api/contacts?email=${encodeURIComponent(robot)}`)).body.data).toEqual([]);

    // A browser's form post is sent on to the list's page; an unknown list is a 404; a bad address a 400.
    const viaForm = await subscribe(list.public_id, { email: uniqueEmail('form') }, { form: true });
    expect(viaForm.status).toBe(303);
    const location = viaForm.headers.get('location')!;
    expect(location).toBe(`${PUBLIC_URL}/l/subscribed/${list.public_id}`);
    const thanks = await fetch(server.url + location.slice(PUBLIC_URL.length));
    expect(thanks.status).toBe(200);
    expect(thanks.headers.get('content-type')).toContain('text/html');
    expect(await thanks.text()).toContain('Check your inbox');
    expect((await fetch(`${server.url}/l/subscribed/nosuchlist`)).status).toBe(404);
    expectProblem(await subscribe('nosuchlist', { email: fresh }), 404, 'not_found');
    expectProblem(await subscribe(list.public_id, { email: 'not an address' }), 400, 'validation_failed');

    // Per client address: past the limit, 429 with Retry-After; another address is still served.
    const address = anotherAddress();
    for (let i = 0; i < SUBSCRIBES_PER_MINUTE; i++) expect((await subscribe(list.public_id, { email: uniqueEmail('burst') }, { address })).status).toBe(202);
    const limited = await subscribe(list.public_id, { email: uniqueEmail('burst') }, { address });
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await subscribe(list.public_id, { email: uniqueEmail('other') })).status).toBe(202);
  });

  it('answers CORS preflights for the public route, and gives a ready-to-paste form', async () => {
    const account = await newAccount(server.url, 'lists-cors');
    const list = await newList(account);
    const preflight = await fetch(`${server.url}/api/v1/public/lists/${list.public_id}/subscribe`, {
      method: 'OPTIONS',
      headers: { origin: 'https://blog.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');

    const form = await account.api('GET', `/api/lists/${list.id}/form`);
    expect(form.status).toBe(200);
    expect(form.body.action).toBe(`${PUBLIC_URL}/api/v1/public/lists/${list.public_id}/subscribe`);
    expect(form.body.html).toContain(`action="${PUBLIC_URL}/api/v1/public/lists/${list.public_id}/subscribe"`);
    expect(form.body.html).toContain('name="email"');
    expect(form.body.html).toMatch(/name="website" tabindex="-1"/);
    // Without double opt-in the member is subscribed at once, with its event.
    const email = uniqueEmail('single');
    expect((await subscribe(list.public_id, { email })).body).toEqual({ accepted: true, confirmation_required: false });
    const [contact] = (await account.api('GET', `/api/contacts?email=${encodeURIComponent(email)}`)).body.data;
    expect(await memberStatus(account, list.id, contact.id)).toBe('subscribed');
    const events = await account.api('GET', '/api/events?type=contact.subscribed');
    expect(events.body.data).toEqual([expect.objectContaining({ data: expect.objectContaining({ contact_id: contact.id, list_id: list.id }) })]);
  });

  it('imports into lists from JSON, a CSV body and a multipart upload', async () => {
    const account = await newAccount(server.url, 'lists-import');
    const list = await newList(account, doubleOptIn);
    const other = await newList(account, { name: 'Other' });
    const json = await account.api('POST', '/api/contacts/import', {
      body: { contacts: [{ email: 'json-1@example.com' }, { email: 'json-2@example.com' }], list_ids: [list.id, other.id] },
    });
    expect(json.status).toBe(202);
    expect(json.body).toMatchObject({ status: 'completed', created: 2 });
    // Imported members are subscribed: the importer vouches for their consent.
    const members = await account.api('GET', `/api/lists/${list.id}/members?status=subscribed`);
    expect(members.body.data.map((m: { email: string }) => m.email).sort()).toEqual(['json-1@example.com', 'json-2@example.com']);
    expect((await account.api('GET', `/api/lists/${other.id}`)).body.members.subscribed).toBe(2);

    const csv = await account.api('POST', `/api/contacts/import?list_ids=${other.id}`, {
      headers: { 'content-type': 'text/csv' },
      raw: 'email,first_name\ncsv-1@example.com,One\njson-1@example.com,Again\n',
    });
    expect(csv.status).toBe(202);
    await waitFor(async () => (await account.api('GET', `/api/contacts/import/${csv.body.id}`)).body.status === 'completed');
    expect((await account.api('GET', `/api/lists/${other.id}`)).body.members.subscribed).toBe(3);

    const form = new FormData();
    form.append('file', new Blob(['email\nupload-1@example.com\n'], { type: 'text/csv' }), 'contacts.csv');
    form.append('list_ids', list.id);
    const upload = await fetch(`${server.url}/api/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${account.token}` }, body: form });
    expect(upload.status).toBe(202);
    const { id } = (await upload.json()) as { id: string };
    await waitFor(async () => (await account.api('GET', `/api/contacts/import/${id}`)).body.status === 'completed');
    expect((await account.api('GET', `/api/lists/${list.id}`)).body.members.subscribed).toBe(3);

    expectProblem(
      await account.api('POST', '/api/contacts/import', { body: { contacts: [{ email: 'x@example.com' }], list_ids: ['lst_nope'] } }),
      400,
      'validation_failed',
    );
    expectProblem(
      await account.api('POST', '/api/contacts/import?list_ids=lst_nope', { headers: { 'content-type': 'text/csv' }, raw: 'email\ny@example.com\n' }),
      400,
      'validation_failed',
    );
  });

  it('sends a campaign to lists only to their subscribed members whose contact is subscribed', async () => {
    const account = await newAccount(server.url, 'lists-campaign');
    const list = await newList(account, doubleOptIn);
    const [member, unconfirmed, outsider, suppressed, untagged] = await Promise.all(
      ['member', 'unconfirmed', 'outsider', 'suppressed', 'untagged'].map((label) =>
        newContact(account, uniqueEmail(`cmp-${label}`), { tags: label === 'untagged' ? [] : ['news'] }),
      ),
    );
    await account.api('POST', `/api/lists/${list.id}/members`, { body: { contact_ids: [member.id, suppressed.id, untagged.id], status: 'subscribed' } });
    await account.api('POST', `/api/lists/${list.id}/members`, { body: { contact_ids: [unconfirmed.id] } });
    await account.api('PATCH', `/api/contacts/${suppressed.id}`, { body: { status: 'unsubscribed' } });

    const other = await newAccount(server.url, 'lists-campaign-other');
    const foreign = await newList(other);
    const campaignBody = { name: 'To a list', subject: 'Hello', from_email: 'news@shop.example', content: '<p>Hi</p>' };
    expectProblem(await account.api('POST', '/api/campaigns', { body: { ...campaignBody, audience: { list_ids: [foreign.id] } } }), 400, 'validation_failed');

    const campaign = await account.api('POST', '/api/campaigns', { body: { ...campaignBody, audience: { list_ids: [list.id], tags_any: ['news'] } } });
    expect(campaign.status).toBe(201);
    expect(campaign.body.audience).toEqual({ list_ids: [list.id], tags_any: ['news'] });
    const sent = await account.api('POST', `/api/campaigns/${campaign.body.id}/send`);
    expect(sent.body.stats.recipients).toBe(1);
    await waitFor(async () => (await account.api('GET', `/api/campaigns/${campaign.body.id}`)).body.status === 'completed');
    const messages = await account.api('GET', `/api/campaigns/${campaign.body.id}/messages`);
    expect(messages.body.data.map((m: { email: string }) => m.email)).toEqual([member.email]);
    expect(sink.to(member.email).filter((r) => r.mail.subject === 'Hello')).toHaveLength(1);
    for (const left of [unconfirmed, outsider, suppressed, untagged]) expect(sink.to(left.email).filter((r) => r.mail.subject === 'Hello')).toHaveLength(0);
  });

  it("keeps every account's lists to itself", async () => {
    const owner = await newAccount(server.url, 'lists-owner');
    const stranger = await newAccount(server.url, 'lists-stranger');
    const list = await newList(owner);
    const contact = await newContact(owner);
    await owner.api('POST', `/api/lists/${list.id}/members`, { body: { contact_ids: [contact.id] } });
    const theirs = await newList(stranger);

    const calls: [string, string, unknown?][] = [
      ['GET', `/api/lists/${list.id}`],
      ['PATCH', `/api/lists/${list.id}`, { name: 'Mine now' }],
      ['GET', `/api/lists/${list.id}/members`],
      ['POST', `/api/lists/${list.id}/members`, { contact_ids: [contact.id] }],
      ['POST', `/api/lists/${list.id}/members/remove`, { contact_ids: [contact.id] }],
      ['GET', `/api/lists/${list.id}/form`],
      ['GET', `/api/contacts/${contact.id}/lists`],
      ['DELETE', `/api/lists/${list.id}`],
    ];
    for (const [method, path, body] of calls) expectProblem(await stranger.api(method, path, body === undefined ? {} : { body }), 404, 'not_found');
    expect((await stranger.api('GET', '/api/lists')).body.data.map((l: { id: string }) => l.id)).toEqual([theirs.id]);
    // Another account's contacts are not found by id or email, and do not join.
    const add = await stranger.api('POST', `/api/lists/${theirs.id}/members`, { body: { contact_ids: [contact.id], emails: [contact.email] } });
    expect(add.body).toEqual({ added: 0, updated: 0, already_members: 0, not_found: { contact_ids: [contact.id], emails: [contact.email] } });
    expectProblem(
      await stranger.api('POST', '/api/contacts/import', { body: { contacts: [{ email: 'x@example.com' }], list_ids: [list.id] } }),
      400,
      'validation_failed',
    );
    // Nothing changed for the owner.
    expect((await owner.api('GET', `/api/lists/${list.id}`)).body).toMatchObject({ name: 'Newsletter', members: { subscribed: 1 } });
  });
});

describe('a public double opt-in sign-up', () => {
  const suppressed = async (account: TestAccount, email: string) =>
    (await account.api('GET', `/api/suppressions?email=${encodeURIComponent(email)}`)).body.data as unknown[];

  it('suppresses and unsubscribes no one: the account creates or imports the address as a new contact', async () => {
    const account = await newAccount(server.url, 'signup-pending');
    const other = await newAccount(server.url, 'signup-pending-other');
    const list = await newList(account, doubleOptIn);
    const [created, imported, importedOnly, updatedOnly] = ['created', 'imported', 'imported-only', 'updated-only'].map((label) =>
      uniqueEmail(`signup-${label}`),
    );
    for (const email of [created, imported, importedOnly, updatedOnly])
      expect((await subscribe(list.public_id, { email, first_name: 'Typed' })).status).toBe(202);
    await confirmationPath(created);

    for (const email of [created, imported, importedOnly, updatedOnly]) expect(await suppressed(account, email)).toEqual([]);
    const pending = (await account.api('GET', `/api/contacts?email=${encodeURIComponent(created)}`)).body.data[0];
    expect(await memberStatus(account, list.id, pending.id)).toBe('unconfirmed');

    // POST /contacts takes the address as new: 201, subscribed, no suppression.
    const byApi = await account.api('POST', '/api/contacts', { body: { email: created, first_name: 'Ada', tags: ['vip'] } });
    expect(byApi.status, JSON.stringify(byApi.body)).toBe(201);
    expect(byApi.body).toMatchObject({ id: pending.id, email: created, first_name: 'Ada', tags: ['vip'], status: 'subscribed', status_reason: null });
    expect((await account.api('GET', `/api/contacts/${pending.id}`)).body).toMatchObject({ status: 'subscribed', first_name: 'Ada' });
    // A second create is a conflict again: the address is the account's own contact now.
    expectProblem(await account.api('POST', '/api/contacts', { body: { email: created } }), 409, 'contact_exists');

    // Imports count it as created, in upsert and create_only modes, and make it subscribed; update_only skips it.
    const upsert = await account.api('POST', '/api/contacts/import', { body: { contacts: [{ email: imported, last_name: 'Imported' }] } });
    expect(upsert.body).toMatchObject({ status: 'completed', created: 1, updated: 0 });
    const createOnly = await account.api('POST', '/api/contacts/import', { body: { contacts: [{ email: importedOnly }], mode: 'create_only' } });
    expect(createOnly.body).toMatchObject({ status: 'completed', created: 1, updated: 0, skipped: 0 });
    const updateOnly = await account.api('POST', '/api/contacts/import', { body: { contacts: [{ email: updatedOnly }], mode: 'update_only' } });
    expect(updateOnly.body).toMatchObject({ status: 'completed', created: 0, updated: 0 });
    for (const email of [imported, importedOnly]) {
      const [contact] = (await account.api('GET', `/api/contacts?email=${encodeURIComponent(email)}`)).body.data;
      expect(contact).toMatchObject({ status: 'subscribed', status_reason: null });
      expect(await suppressed(account, email)).toEqual([]);
    }
    const [stillPending] = (await account.api('GET', `/api/contacts?email=${encodeURIComponent(updatedOnly)}`)).body.data;
    expect(stillPending).toMatchObject({ status: 'unsubscribed', status_reason: 'double opt-in not confirmed yet' });

    // The membership still waits for its link, which subscribes it without changing the contact.
    expect((await fetch(server.url + (await confirmationPath(created)), { method: 'POST' })).status).toBe(200);
    expect(await memberStatus(account, list.id, pending.id)).toBe('subscribed');
    expect((await account.api('GET', `/api/contacts/${pending.id}`)).body).toMatchObject({ status: 'subscribed', first_name: 'Ada', tags: ['vip'] });

    // Another account's own contact for an address is its own: created as usual, with nothing of this one's.
    const elsewhere = await other.api('POST', '/api/contacts', { body: { email: updatedOnly } });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.id).not.toBe(stillPending.id);
    expect(await suppressed(other, updatedOnly)).toEqual([]);
    expect((await account.api('GET', `/api/contacts/${stillPending.id}`)).body.status).toBe('unsubscribed');
  });

  it('mails an address at most 3 confirmations a day per list, answering every sign-up the same', async () => {
    const account = await newAccount(server.url, 'signup-cap');
    const list = await newList(account, doubleOptIn);
    const otherList = await newList(account, { ...doubleOptIn, name: 'Offers' });
    const email = uniqueEmail('signup-cap');
    const first = await subscribe(list.public_id, { email });
    await waitFor(() => sink.to(email).length === 1 && true);
    const [{ id }] = (await account.api('GET', `/api/contacts?email=${encodeURIComponent(email)}`)).body.data;
    // Each later sign-up comes after the 10 minutes a resend waits, once the last mail is recorded as sent.
    const tenMinutesLater = async () => {
      const sent = `select 1 from list_members where contact_id = $1 and list_id = $2 and confirmation_due_at is null and confirmation_sent_at is not null`;
      await waitFor(async () => (await server.pool.query(sent, [id, list.id])).rowCount === 1);
      await server.pool.query(`update list_members set confirmation_sent_at = now() - interval '11 minutes' where contact_id = $1 and list_id = $2`, [
        id,
        list.id,
      ]);
    };
    for (const mails of [2, 3]) {
      await tenMinutesLater();
      expect((await subscribe(list.public_id, { email })).body).toEqual(first.body);
      await waitFor(() => sink.to(email).length === mails && true);
    }
    for (let i = 0; i < 3; i++) {
      await tenMinutesLater();
      const later = await subscribe(list.public_id, { email });
      expect(later.status).toBe(202);
      expect(later.body).toEqual(first.body);
    }
    await new Promise((r) => setTimeout(r, 2500));
    expect(sink.to(email)).toHaveLength(3);
    // Another list counts its own.
    await subscribe(otherList.public_id, { email });
    await waitFor(() => sink.to(email).length === 4 && true);
    // A day later the count starts again.
    await tenMinutesLater();
    await server.pool.query(`update list_members set confirmations_requested_since = now() - interval '25 hours' where contact_id = $1 and list_id = $2`, [
      id,
      list.id,
    ]);
    await subscribe(list.public_id, { email });
    await waitFor(() => sink.to(email).length === 5 && true);
  });

  it('expires unconfirmed after 7 days, with the contact it alone made', async () => {
    const { expirePendingSignups } = await import('../../server/lists/confirmations.ts');
    const { Transactions } = await import('../../server/db/transactions.ts');
    const account = await newAccount(server.url, 'signup-expiry');
    const list = await newList(account, doubleOptIn);
    const known = await newContact(account, uniqueEmail('signup-known'));
    const [alone, tagged, fresh] = ['alone', 'tagged', 'fresh'].map((label) => uniqueEmail(`signup-${label}`));
    for (const email of [known.email, alone, tagged, fresh]) expect((await subscribe(list.public_id, { email })).status).toBe(202);
    const idOf = async (email: string) => (await account.api('GET', `/api/contacts?email=${encodeURIComponent(email)}`)).body.data[0].id as string;
    const [aloneId, taggedId, freshId] = [await idOf(alone), await idOf(tagged), await idOf(fresh)];
    expect((await account.api('PATCH', `/api/contacts/${taggedId}`, { body: { tags: ['kept'] } })).status).toBe(200);
    const expires = await server.pool.query('select contact_id, signup_expires_at from list_members where list_id = $1', [list.id]);
    for (const row of expires.rows) {
      expect(row.signup_expires_at.getTime() - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
      expect(row.signup_expires_at.getTime() - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);
    }
    await server.pool.query(`update list_members set signup_expires_at = now() - interval '1 second' where list_id = $1 and contact_id <> $2`, [
      list.id,
      freshId,
    ]);

    await expirePendingSignups(new Transactions(server.pool));
    // Memberships gone; the contact only the sign-up made is gone (with contact.deleted), the others stay.
    expect(await memberStatus(account, list.id, known.id)).toBeUndefined();
    expect(await memberStatus(account, list.id, taggedId)).toBeUndefined();
    expect(await memberStatus(account, list.id, freshId)).toBe('unconfirmed');
    expectProblem(await account.api('GET', `/api/contacts/${aloneId}`), 404, 'not_found');
    expect((await account.api('GET', `/api/contacts/${known.id}`)).status).toBe(200);
    expect((await account.api('GET', `/api/contacts/${taggedId}`)).status).toBe(200);
    expect((await account.api('GET', `/api/contacts/${freshId}`)).status).toBe(200);
    const deleted = (await account.api('GET', '/api/events?type=contact.deleted')).body.data.map((e: { data: { contact_id: string } }) => e.data.contact_id);
    expect(deleted).toEqual([aloneId]);
    // The address may sign up again, as new.
    expect((await subscribe(list.public_id, { email: alone })).status).toBe(202);
    expect(await memberStatus(account, list.id, await idOf(alone))).toBe('unconfirmed');
  });
});
