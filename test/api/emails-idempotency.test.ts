import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import type { ServerProcess } from '../process.ts';
import { client, newAccount, newApiKey, spawnTestServer, startTestServer, uniqueEmail, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sink: SmtpSink;
let a: Sendline;
let b: ServerProcess;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  // Two processes on one database, both sending, as behind a load balancer.
  [a, b] = await Promise.all([startTestServer({ SMTP_URL: sink.url }), spawnTestServer({ SMTP_URL: sink.url }, { keepOutput: false })]);
});
afterAll(async () => {
  b?.proc.kill('SIGTERM');
  await Promise.all([a?.stop(), b?.exited]);
  await sink?.stop();
});

describe('Idempotency-Key on POST /emails', () => {
  it('never sends twice for one key, whichever process each request reaches', async () => {
    const owner = await newAccount(a.url, 'idem-emails');
    const { key } = await newApiKey(owner, a.url, { scopes: ['read', 'write'] });
    const viaA = client(a.url, { 'x-api-key': key.key });
    const viaB = client(b.url, { 'x-api-key': key.key });
    const to = uniqueEmail('once');
    const body = { from: { email: 'receipts@shop.example' }, to: [{ email: to }], subject: 'Receipt 1042', text: 'Thanks!' };
    const headers = { 'idempotency-key': `k-${randomUUID()}` };
    // At once through both processes, then again through each: one message in all.
    const first = await Promise.all([viaA('POST', '/api/emails', { body, headers }), viaB('POST', '/api/emails', { body, headers })]);
    for (const res of first) expect([202, 409]).toContain(res.status);
    const answered = first.filter((r) => r.status === 202);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    const again = await Promise.all([viaA('POST', '/api/emails', { body, headers }), viaB('POST', '/api/emails', { body, headers })]);
    const id = answered[0].body.data[0].id;
    for (const res of again) {
      expect(res.status).toBe(202);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(res.body.data[0].id).toBe(id);
    }
    await waitFor(() => sink.to(to).length >= 1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(sink.to(to)).toHaveLength(1);
    const listed = await viaB('GET', `/api/emails?to=${encodeURIComponent(to)}`);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([id]);
  });

  it('sends again for a new key', async () => {
    const owner = await newAccount(a.url, 'idem-new');
    const to = uniqueEmail('twice');
    const body = { from: { email: 'receipts@shop.example' }, to: [{ email: to }], subject: 'Receipt', text: 'Thanks!' };
    for (const k of ['k-one', 'k-two']) expect((await owner.api('POST', '/api/emails', { body, headers: { 'idempotency-key': k } })).status).toBe(202);
    await waitFor(() => sink.to(to).length === 2);
  });
});
