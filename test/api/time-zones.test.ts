import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { client, expectProblem, newAccount, startTestServer, uniqueEmail, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { freshDatabase } from '../databases.ts';

let sendline: Sendline;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await new SmtpSink().start();
  // A database of its own: scheduled starts wait on the campaigns' tick, which a stopped server of another file could hold.
  sendline = await startTestServer({ DATABASE_URL: await freshDatabase('time_zones'), SMTP_URL: sink.url, TRUST_PROXY: 'true' });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

const sql = (text: string, params: unknown[] = []) => sendline.pool.query(text, params).then((r) => r.rows);

async function contact(account: TestAccount, timezone: string | null, label = 'tz'): Promise<{ id: string; email: string }> {
  const res = await account.api('POST', '/api/contacts', { body: { email: uniqueEmail(label), timezone } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function draft(account: TestAccount): Promise<string> {
  const res = await account.api('POST', '/api/campaigns', {
    body: { name: 'Local time', subject: 'Good morning', from_email: 'news@shop.example', content: '<p>Good morning</p>' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** Each message's contact, status, reason and the instant it waits for. */
async function messagesOf(campaignId: string): Promise<Map<string, { status: string; reason: string | null; due: string | null }>> {
  const rows = await sql('select contact_id, status, reason, next_attempt_at from messages where campaign_id = $1', [campaignId]);
  return new Map(rows.map((r) => [r.contact_id, { status: r.status, reason: r.reason, due: r.next_attempt_at?.toISOString() ?? null }]));
}

describe("a contact's time zone", () => {
  it('is kept by create, update and replace in its canonical case, and cleared by null', async () => {
    const account = await newAccount(sendline.url, 'tz');
    const created = await contact(account, 'europe/paris');
    expect(created).toMatchObject({ timezone: 'Europe/Paris' });
    const patched = await account.api('PATCH', `/api/contacts/${created.id}`, { body: { timezone: 'Asia/Kolkata' } });
    expect(patched.body.timezone).toBe('Asia/Kolkata');
    const replaced = await account.api('PUT', `/api/contacts/${created.id}`, { body: { email: created.email } });
    expect(replaced.body.timezone).toBeNull();
    expect((await account.api('GET', `/api/contacts/${created.id}`)).body.timezone).toBeNull();
  });

  it('refuses a name that is no IANA zone, at /timezone', async () => {
    const account = await newAccount(sendline.url, 'tz');
    for (const timezone of ['Mars/Olympus', '+01:00', 'x'.repeat(65)]) {
      const res = await account.api('POST', '/api/contacts', { body: { email: uniqueEmail('bad'), timezone } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].pointer).toBe('/timezone');
    }
    const { id } = await contact(account, null);
    expectProblem(await account.api('PATCH', `/api/contacts/${id}`, { body: { timezone: 'Nowhere' } }), 400, 'validation_failed');
  });

  it('comes from an import (a bad zone fails its row) and from a public subscription (a bad zone is left out)', async () => {
    const account = await newAccount(sendline.url, 'tz');
    const [good, bad, kept] = [uniqueEmail('good'), uniqueEmail('bad'), uniqueEmail('kept')];
    const imported = await account.api('POST', '/api/contacts/import', {
      body: { contacts: [{ email: good, timezone: 'america/new_york' }, { email: bad, timezone: 'Atlantis/Capital' }, { email: kept }] },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(202);
    expect(imported.body.errors).toEqual([expect.objectContaining({ row: 2, code: 'invalid_timezone' })]);
    const zones = await sql('select email, timezone from contacts where account_id = $1 order by email', [account.accountId]);
    expect(Object.fromEntries(zones.map((r) => [r.email, r.timezone]))).toEqual({ [good]: 'America/New_York', [kept]: null });
    // A later import without the column keeps the zone.
    await account.api('POST', '/api/contacts/import', { body: { contacts: [{ email: good, first_name: 'Ada' }] } });
    expect((await sql('select timezone from contacts where email = $1', [good]))[0].timezone).toBe('America/New_York');

    const csv = await account.api('POST', '/api/contacts/import', {
      headers: { 'content-type': 'text/csv' },
      raw: `email,timezone\n${uniqueEmail('csv')},Asia/Tokyo\n${uniqueEmail('csv')},Moon/Base\n`,
    });
    expect(csv.status, JSON.stringify(csv.body)).toBe(202);
    const done = await waitFor(async () => {
      const res = await account.api('GET', `/api/contacts/import/${csv.body.id}`);
      return res.body.status === 'completed' && res.body;
    });
    expect(done.errors).toEqual([expect.objectContaining({ row: 2, code: 'invalid_timezone' })]);
    expect(await sql(`select timezone from contacts where account_id = $1 and email like 'csv-%'`, [account.accountId])).toEqual([{ timezone: 'Asia/Tokyo' }]);

    const list = await account.api('POST', '/api/lists', { body: { name: 'News' } });
    const subscribe = (email: string, timezone: string) =>
      client(sendline.url)('POST', `/api/public/lists/${list.body.public_id}/subscribe`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
        body: { email, timezone },
      });
    const [zoned, unzoned] = [uniqueEmail('form'), uniqueEmail('form')];
    expect((await subscribe(zoned, 'Europe/Berlin')).status).toBe(202);
    expect((await subscribe(unzoned, 'Not a zone')).status).toBe(202);
    const subscribed = await sql('select email, timezone from contacts where email = any($1)', [[zoned, unzoned]]);
    expect(Object.fromEntries(subscribed.map((r) => [r.email, r.timezone]))).toEqual({ [zoned]: 'Europe/Berlin', [unzoned]: null });
  });
});

describe('a campaign sent at a local time', () => {
  it('refuses a schedule that is not one, saying which field', async () => {
    const account = await newAccount(sendline.url, 'tz');
    const id = await draft(account);
    const cases: [Record<string, unknown>, string][] = [
      [{}, '/scheduled_at'],
      [{ scheduled_at: '2030-01-01T00:00:00Z', local_time: '2030-01-01T09:00' }, '/scheduled_at'],
      [{ scheduled_at: '2030-01-01T00:00:00Z', by_contact_timezone: true }, '/by_contact_timezone'],
      [{ local_time: '2030-02-30T09:00', by_contact_timezone: true }, '/local_time'],
      [{ local_time: '2030-01-01T09:00', late_policy: 'skip' }, '/late_policy'],
      [{ local_time: '2020-01-01T09:00', by_contact_timezone: true }, '/local_time'],
      [{ local_time: '2020-01-01T09:00' }, '/local_time'],
      [{ local_time: '2030-01-01 09:00' }, '/local_time'],
    ];
    for (const [body, pointer] of cases) {
      const res = await account.api('POST', `/api/campaigns/${id}/schedule`, { body });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].pointer, JSON.stringify(body)).toBe(pointer);
    }
    expect((await account.api('GET', `/api/campaigns/${id}`)).body).toMatchObject({ status: 'draft', scheduled_at: null, send_time: null });
  });

  it("starts at a local time of the account's zone, and forgets it when sent now", async () => {
    const account = await newAccount(sendline.url, 'tz');
    await account.api('PATCH', '/api/account', { body: { timezone: 'Asia/Kolkata' } });
    const id = await draft(account);
    const res = await account.api('POST', `/api/campaigns/${id}/schedule`, { body: { local_time: '2030-06-01T09:00' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 'scheduled',
      scheduled_at: '2030-06-01T03:30:00.000Z',
      send_time: { local_time: '2030-06-01T09:00', by_contact_timezone: false, late_policy: 'send' },
    });
    const sent = await account.api('POST', `/api/campaigns/${id}/send`);
    expect(sent.body).toMatchObject({ status: 'sending', send_time: null });
  });

  it("waits for each contact's local time, across zones, a daylight-saving gap and the account's zone", async () => {
    const account = await newAccount(sendline.url, 'tz');
    await account.api('PATCH', '/api/account', { body: { timezone: 'Europe/London' } });
    const kolkata = await contact(account, 'Asia/Kolkata');
    const newYork = await contact(account, 'America/New_York');
    const auckland = await contact(account, 'Pacific/Auckland');
    const london = await contact(account, null);
    const id = await draft(account);
    // 2:30 on 14 March 2027 does not exist in New York: clocks go from 2:00 to 3:00.
    const scheduled = await account.api('POST', `/api/campaigns/${id}/schedule`, { body: { local_time: '2027-03-14T02:30', by_contact_timezone: true } });
    expect(scheduled.body).toMatchObject({ status: 'scheduled', scheduled_at: '2027-03-13T12:30:00.000Z' });
    // The first zone's time, brought forward: the messages are written as they would be then.
    await sql('update campaigns set scheduled_at = now() where id = $1', [id]);
    const messages = await waitFor(async () => {
      const found = await messagesOf(id);
      return found.size === 4 && found;
    });
    expect(Object.fromEntries([...messages].map(([contactId, m]) => [contactId, m.due]))).toEqual({
      [kolkata.id]: '2027-03-13T21:00:00.000Z',
      [newYork.id]: '2027-03-14T07:30:00.000Z',
      [auckland.id]: '2027-03-13T13:30:00.000Z',
      [london.id]: '2027-03-14T02:30:00.000Z',
    });
    expect([...messages.values()].every((m) => m.status === 'queued')).toBe(true);
    expect((await account.api('GET', `/api/campaigns/${id}`)).body).toMatchObject({ status: 'sending', stats: { recipients: 4, sent: 0 } });

    // A message whose time comes is sent then, and only it.
    await sql(`update messages set next_attempt_at = now() + interval '2 seconds' where campaign_id = $1 and contact_id = $2`, [id, london.id]);
    const due = Date.now() + 2000;
    await waitFor(() => sink.to(london.email).length > 0);
    expect(Date.now()).toBeGreaterThanOrEqual(due - 100);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const other of [kolkata, newYork, auckland]) expect(sink.to(other.email)).toEqual([]);
    expect((await account.api('GET', `/api/campaigns/${id}`)).body.status).toBe('sending');
    expect((await account.api('POST', `/api/campaigns/${id}/cancel`)).body.status).toBe('cancelled');
    expect([...(await messagesOf(id)).values()].filter((m) => m.status === 'queued')).toEqual([]);
  });

  for (const policy of ['send', 'skip'] as const) {
    it(`${policy === 'send' ? 'sends at once to' : 'skips'} contacts whose local time had passed when it was scheduled`, async () => {
      const account = await newAccount(sendline.url, 'tz');
      const passed = await contact(account, 'Asia/Kolkata');
      const coming = await contact(account, 'UTC');
      const later = await contact(account, 'America/New_York');
      // Two hours from now in UTC: gone in Kolkata (UTC+5:30), to come in UTC and New York.
      const localTime = DateTime.utc().plus({ hours: 2 }).toFormat("yyyy-MM-dd'T'HH:mm");
      const id = await draft(account);
      const res = await account.api('POST', `/api/campaigns/${id}/schedule`, {
        body: { local_time: localTime, by_contact_timezone: true, late_policy: policy },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const messages = await waitFor(async () => {
        const found = await messagesOf(id);
        return found.size === 3 && found;
      });
      expect(messages.get(coming.id)).toEqual({ status: 'queued', reason: null, due: DateTime.fromISO(localTime, { zone: 'UTC' }).toJSDate().toISOString() });
      expect(messages.get(later.id)?.due).toBe(DateTime.fromISO(localTime, { zone: 'America/New_York' }).toJSDate().toISOString());
      if (policy === 'send') {
        await waitFor(() => sink.to(passed.email).length > 0);
        await waitFor(async () => ((await messagesOf(id)).get(passed.id)?.status === 'delivered' ? true : undefined));
      } else {
        expect(messages.get(passed.id)).toEqual({ status: 'cancelled', reason: 'local time passed', due: null });
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(sink.to(passed.email)).toEqual([]);
      }
      expect(sink.to(coming.email)).toEqual([]);
      expect(sink.to(later.email)).toEqual([]);
      await account.api('POST', `/api/campaigns/${id}/cancel`);
    });
  }

  it("is not another account's to schedule", async () => {
    const owner = await newAccount(sendline.url, 'tz');
    const other = await newAccount(sendline.url, 'tz');
    const id = await draft(owner);
    expectProblem(
      await other.api('POST', `/api/campaigns/${id}/schedule`, { body: { local_time: '2030-01-01T09:00', by_contact_timezone: true } }),
      404,
      'not_found',
    );
    expect((await owner.api('GET', `/api/campaigns/${id}`)).body.status).toBe('draft');
  });
});
