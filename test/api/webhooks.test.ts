import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, startTestServer, TEST_JWT_SECRET, type TestAccount, waitFor } from '../helpers.ts';
import { spawnServer } from '../process.ts';
import { verifyStandardWebhook, WebhookReceiver } from '../webhook-receiver.ts';

let sendline: Sendline;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  sendline = await startTestServer({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.4,0.6',
    WEBHOOK_TIMEOUT_MS: '1000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
});
afterAll(async () => {
  await sendline.stop();
  await Promise.all(receivers.map((r) => r.stop()));
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await new WebhookReceiver().start();
  receivers.push(r);
  return r;
}

const createContact = (account: TestAccount, email: string) => account.api('POST', '/api/contacts', { body: { email } });

describe('webhook endpoints', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'hooks');
  });

  it('shows the secret on creation only and keeps it sealed at rest', async () => {
    const r = await receiver();
    const res = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.*'], description: 'CRM sync' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ url: r.url, events: ['contact.*'], active: true, disabled_reason: null, stats: { delivered_24h: 0, failed_24h: 0 } });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const got = await account.api('GET', `/api/webhooks/${res.body.id}`);
    expect(got.body.secret).toBeUndefined();
    const [row] = (await sendline.pool.query('select * from webhooks where id = $1', [res.body.id])).rows;
    expect(JSON.stringify(row)).not.toContain(res.body.secret.slice(6));
  });

  it('refuses unknown event types with the field at fault', async () => {
    const res = await account.api('POST', '/api/webhooks', {
      body: { url: 'https://hooks.example.com/', events: ['email.opened', 'email.exploded', 'nope.*'] },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/events/1', '/events/2']);
  });

  it('test sends a signed webhook.test at once and answers the outcome', async () => {
    const r = await receiver();
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['*'] } });
    const res = await account.api('POST', `/api/webhooks/${hook.id}/test`);
    expect(res.body).toMatchObject({ success: true, status_code: 200, error: null });
    expect(r.received).toHaveLength(1);
    const [delivery] = r.received;
    expect(verifyStandardWebhook(hook.secret, delivery.headers, delivery.body)).toBe(true);
    expect(verifyStandardWebhook(hook.secret, delivery.headers, delivery.body.replace('test', 'tset'))).toBe(false);
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({ type: 'webhook.test', account_id: account.accountId, data: { webhook_id: hook.id } });
    expect(delivery.headers['webhook-id']).toBe(event.id);
    r.status = 503;
    expect((await account.api('POST', `/api/webhooks/${hook.id}/test`)).body).toMatchObject({ success: false, status_code: 503, error: 'HTTP 503' });
  });

  it('records test deliveries in the endpoint and retries them from the log', async () => {
    const r = await receiver();
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.deleted'] } });
    r.status = 500;
    await account.api('POST', `/api/webhooks/${hook.id}/test`);
    const failedAt = (await account.api('GET', `/api/webhooks/${hook.id}`)).body.stats.last_failure_at;
    expect(failedAt).toEqual(expect.any(String));
    const [listed] = (await account.api('GET', `/api/webhooks/${hook.id}/deliveries`)).body.data;
    expect(listed).toMatchObject({ event_type: 'webhook.test', status: 'failed', attempts: 1, status_code: 500 });

    r.status = 200;
    const retried = await account.api('POST', `/api/webhooks/${hook.id}/deliveries/${listed.id}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({ id: listed.id, status: 'succeeded', attempts: 2, status_code: 200, next_retry_at: null });
    expect(r.received.map((d) => d.headers['webhook-id'])).toEqual([listed.event_id, listed.event_id]);
    const after = (await account.api('GET', `/api/webhooks/${hook.id}`)).body;
    expect(after).toMatchObject({ active: true, stats: { last_failure_at: failedAt, last_success_at: expect.any(String) } });
  });

  it('delivers matching events only, in the shared envelope, signed', async () => {
    const contacts = await receiver();
    const emails = await receiver();
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: contacts.url, events: ['contact.created'] } });
    await account.api('POST', '/api/webhooks', { body: { url: emails.url, events: ['email.*'] } });
    const { body: contact } = await createContact(account, 'hooked@example.com');
    const [delivered] = await waitFor(() => contacts.events('contact.created').length > 0 && contacts.received);
    const event = JSON.parse(delivered.body);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'contact.created',
      created_at: expect.any(String),
      account_id: account.accountId,
      data: expect.objectContaining({ contact: expect.objectContaining({ id: contact.id }) }),
    });
    expect(verifyStandardWebhook(hook.secret, delivered.headers, delivered.body)).toBe(true);
    // Recorded after the receiver answered, in the dispatcher's next write.
    const list = await waitFor(async () => {
      const page = await account.api('GET', `/api/webhooks/${hook.id}/deliveries`);
      return page.body.data[0]?.status !== 'pending' && page;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(emails.received).toHaveLength(0);
    expect(list.body.data[0]).toMatchObject({
      event_id: event.id,
      event_type: 'contact.created',
      status: 'succeeded',
      attempts: 1,
      status_code: 200,
      response_excerpt: 'ok',
    });
  });

  it('retries failures on the schedule with the same webhook-id, and does not follow redirects', async () => {
    const r = await receiver();
    r.script = [500, 302, 200];
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.deleted'] } });
    const { body: contact } = await createContact(account, 'retry@example.com');
    await account.api('DELETE', `/api/contacts/${contact.id}`);
    await waitFor(() => r.received.length === 3);
    const ids = new Set(r.received.map((d) => d.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const gaps = [r.received[1].at - r.received[0].at, r.received[2].at - r.received[1].at];
    expect(gaps[0]).toBeGreaterThanOrEqual(150);
    expect(gaps[1]).toBeGreaterThanOrEqual(330);
    const [delivery] = (await waitFor(async () => {
      const list = await account.api('GET', `/api/webhooks/${hook.id}/deliveries`);
      return list.body.data[0]?.status === 'succeeded' && list.body.data;
    })) as any[];
    expect(delivery).toMatchObject({ attempts: 3, status_code: 200 });
  });

  it('gives up after the schedule; retry and recover send again', async () => {
    const r = await receiver();
    r.status = 500;
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.updated'] } });
    const since = new Date(Date.now() - 1000).toISOString();
    const { body: contact } = await createContact(account, 'giveup@example.com');
    await account.api('PATCH', `/api/contacts/${contact.id}`, { body: { first_name: 'One' } });
    await account.api('PATCH', `/api/contacts/${contact.id}`, { body: { first_name: 'Two' } });
    const failed = (await waitFor(async () => {
      const list = await account.api('GET', `/api/webhooks/${hook.id}/deliveries?status=failed`);
      return list.body.data.length === 2 && list.body.data;
    })) as any[];
    expect(failed[0]).toMatchObject({ attempts: 4, status_code: 500, error: 'HTTP 500', next_retry_at: null });
    expect(r.received).toHaveLength(8);

    r.status = 200;
    const retried = await account.api('POST', `/api/webhooks/${hook.id}/deliveries/${failed[0].id}/retry`);
    expect(retried.body).toMatchObject({ status: 'pending' });
    await waitFor(() => r.received.length === 9);
    const recovered = await account.api('POST', `/api/webhooks/${hook.id}/recover`, { body: { since } });
    expect(recovered.body).toEqual({ requeued: 1 });
    await waitFor(() => r.received.length === 10);
    // Outcomes are written in batches, a moment after the endpoint answered.
    const stats = await waitFor(async () => {
      const { body } = await account.api('GET', `/api/webhooks/${hook.id}`);
      return body.stats.delivered_24h === 2 && body.stats;
    });
    expect(stats).toMatchObject({ delivered_24h: 2, failed_24h: 0 });
  });

  it('410 Gone disables the endpoint at once', async () => {
    const r = await receiver();
    r.status = 410;
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.created'] } });
    await createContact(account, 'gone-1@example.com');
    await waitFor(async () => (await account.api('GET', `/api/webhooks/${hook.id}`)).body.active === false);
    expect((await account.api('GET', `/api/webhooks/${hook.id}`)).body.disabled_reason).toBe('gone');
    await createContact(account, 'gone-2@example.com');
    await new Promise((res) => setTimeout(res, 500));
    expect(r.received).toHaveLength(1);
    const back = await account.api('PUT', `/api/webhooks/${hook.id}`, { body: { url: r.url, events: ['contact.created'], active: true } });
    expect(back.body).toMatchObject({ active: true, disabled_reason: null });
  });

  it('disables an endpoint that has failed for days without a success', async () => {
    const r = await receiver();
    r.status = 500;
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.created'] } });
    await sendline.pool.query("update webhooks set failing_since = now() - interval '6 days' where id = $1", [hook.id]);
    await createContact(account, 'failing@example.com');
    const disabled = await waitFor(async () => {
      const got = await account.api('GET', `/api/webhooks/${hook.id}`);
      return got.body.active === false && got.body;
    });
    expect(disabled.disabled_reason).toBe('failing');
  });

  it('signs with both secrets during a rotation', async () => {
    const r = await receiver();
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.created'] } });
    const rotated = await account.api('POST', `/api/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    await createContact(account, 'rotated@example.com');
    const [delivery] = await waitFor(() => r.received.length > 0 && r.received);
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyStandardWebhook(hook.secret, delivery.headers, delivery.body)).toBe(true);
    expect(verifyStandardWebhook(rotated.body.secret, delivery.headers, delivery.body)).toBe(true);
    await sendline.pool.query("update webhooks set previous_secret_expires_at = now() - interval '1 second' where id = $1", [hook.id]);
    await createContact(account, 'rotated-2@example.com');
    const [, later] = await waitFor(() => r.received.length > 1 && r.received);
    expect(verifyStandardWebhook(hook.secret, later.headers, later.body)).toBe(false);
    expect(verifyStandardWebhook(rotated.body.secret, later.headers, later.body)).toBe(true);
  });

  it('deletes an endpoint while its deliveries are being recorded', async () => {
    const r = await receiver();
    for (let i = 0; i < 15; i++) {
      const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.created'] } });
      const before = r.received.length;
      await createContact(account, `busy-${i}@example.com`);
      await waitFor(() => r.received.length > before);
      expect((await account.api('DELETE', `/api/webhooks/${hook.id}`)).status).toBe(204);
    }
  });

  it('keeps webhooks, deliveries and events within the account', async () => {
    const other = await newAccount(sendline.url, 'other-hooks');
    const r = await receiver();
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['*'] } });
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/test'],
      ['POST', '/rotate-secret'],
      ['GET', '/deliveries'],
    ] as const) {
      expectProblem(await other.api(method, `/api/webhooks/${hook.id}${suffix}`), 404, 'not_found');
    }
    expectProblem(await other.api('PUT', `/api/webhooks/${hook.id}`, { body: { url: r.url, events: ['*'] } }), 404, 'not_found');
    expectProblem(await other.api('POST', `/api/webhooks/${hook.id}/recover`, { body: { since: new Date().toISOString() } }), 404, 'not_found');
    expect((await other.api('GET', '/api/webhooks')).body.data).toEqual([]);
    await createContact(other, 'elsewhere@example.com');
    await new Promise((res) => setTimeout(res, 400));
    expect(r.events().filter((e) => e.account_id !== account.accountId)).toEqual([]);
    expect((await other.api('GET', '/api/events')).body.data.every((e: { account_id: string }) => e.account_id === other.accountId)).toBe(true);
  });
});

describe('events API', () => {
  it('lists recent events newest first, by type or category, page by page; and the catalogue', async () => {
    const account = await newAccount(sendline.url, 'events');
    for (let i = 0; i < 3; i++) await createContact(account, `ev-${i}@example.com`);
    const page1 = await account.api('GET', '/api/events?type=contact.%2A&limit=2');
    expect(page1.body.data.map((e: { type: string }) => e.type)).toEqual(['contact.created', 'contact.created']);
    expect(page1.body.data[0].data.contact.email).toBe('ev-2@example.com');
    const page2 = await account.api('GET', `/api/events?type=contact.%2A&limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.body.data[0].data.contact.email).toBe('ev-0@example.com');
    expect((await account.api('GET', '/api/events?type=email.opened')).body.data).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await account.api('GET', `/api/events?since=${encodeURIComponent(future)}`)).body.data).toEqual([]);
    const types = await account.api('GET', '/api/events/types');
    expect(types.body.data).toHaveLength(26);
    expect(types.body.data.every((t: { description: string }) => t.description.length > 10)).toBe(true);
  });
});

describe('SSRF guard (private networks not allowed)', () => {
  let strict: Sendline;
  beforeAll(async () => {
    strict = await startTestServer({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_TIMEOUT_MS: '1000' });
  });
  afterAll(() => strict.stop());

  it('refuses literal private addresses when saved, and private names when delivering', async () => {
    const account = await newAccount(strict.url, 'ssrf');
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://[::1]:9/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.5/',
      'http://[::ffff:192.168.0.1]/',
    ]) {
      const res = await account.api('POST', '/api/webhooks', { body: { url, events: ['*'] } });
      expectProblem(res, 422, 'unsafe_url');
      expect(res.body.errors[0].pointer).toBe('/url');
      expect(res.body.errors[0].detail).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
    }
    const r = await receiver();
    const byName = r.url.replace('127.0.0.1', 'localhost');
    const { body: hook, status } = await account.api('POST', '/api/webhooks', { body: { url: byName, events: ['*'] } });
    expect(status).toBe(201);
    const res = await account.api('POST', `/api/webhooks/${hook.id}/test`);
    expect(res.body).toMatchObject({ success: false, status_code: null, error: expect.stringContaining('not a public address') });
    expect(r.received).toHaveLength(0);
  });

  it('wants https unless told otherwise', async () => {
    const https = await startTestServer({});
    try {
      const account = await newAccount(https.url, 'tls');
      const insecure = await account.api('POST', '/api/webhooks', { body: { url: 'http://hooks.example.com/', events: ['*'] } });
      expectProblem(insecure, 422, 'insecure_url');
      expect(insecure.body.errors[0].detail).toContain('WEBHOOK_ALLOW_HTTP=true');
    } finally {
      await https.stop();
    }
  });
});

describe('delivery across a restart', () => {
  it('a delivery pending when its process was killed goes out from the restarted process', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sendline-hooks-'));
    const env = {
      DATA_DIR: dir,
      JWT_SECRET: TEST_JWT_SECRET,
      ALLOW_SIGNUP: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '2',
    };
    const r = await receiver();
    r.script = [500];
    const first = await spawnServer(env);
    const account = await newAccount(first.url, 'restart');
    const { body: hook } = await account.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.created'] } });
    await createContact(account, 'survivor@example.com');
    // Killed once the failed attempt is recorded and its retry is due in 2 s.
    await waitFor(async () => (await account.api('GET', `/api/webhooks/${hook.id}/deliveries?status=pending`)).body.data[0]?.attempts === 1);
    first.proc.kill('SIGKILL');
    await first.exited;
    const second = await spawnServer(env);
    try {
      await waitFor(() => r.received.length === 2, 20_000);
      expect(r.received[1].headers['webhook-id']).toBe(r.received[0].headers['webhook-id']);
    } finally {
      second.proc.kill('SIGTERM');
      await second.exited;
    }
  });
});
