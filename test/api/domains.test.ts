import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, startTestServer, type TestAccount } from '../helpers.ts';

type Record = { purpose: string; type: string; name: string; value: string; status: string; found: string[] | null; required: boolean };

let sendline: Sendline;
let alice: TestAccount;
let bob: TestAccount;

beforeAll(async () => {
  // A closed port: every lookup fails, so nothing here depends on the machine's DNS.
  sendline = await startTestServer({
    DNS_SERVERS: '127.0.0.1:9',
    BOUNCE_DOMAIN: 'bounces.sendline.test',
    PUBLIC_URL: 'https://sendline.test',
    DOMAINS_PER_ACCOUNT: '3',
  });
  [alice, bob] = await Promise.all([newAccount(sendline.url, 'alice'), newAccount(sendline.url, 'bob')]);
});
afterAll(() => sendline.stop());

describe('sending domains', () => {
  it('answers a new domain with the records to publish, a fresh DKIM key among them', async () => {
    const res = await alice.api('POST', '/api/v1/domains', { body: { name: 'Mail.Alice.Example.' } });
    expect(res.status).toBe(201);
    const domain = res.body;
    expect(domain).toMatchObject({ name: 'mail.alice.example', status: 'pending', next_dkim_selector: null, verified_at: null, checked_at: null });
    expect(domain.id).toMatch(/^dom_/);
    expect(domain.dkim_selector).toMatch(/^sl\d{8}$/);
    const byPurpose = Object.fromEntries(domain.records.map((r: Record) => [r.purpose, r]));
    expect(byPurpose.dkim).toMatchObject({ type: 'TXT', name: `${domain.dkim_selector}._domainkey.mail.alice.example`, status: 'pending', required: true });
    expect(byPurpose.dkim.value).toMatch(/^v=DKIM1; k=rsa; p=MIIBIjAN[A-Za-z0-9+/=]{380,}$/);
    expect(byPurpose.return_path).toMatchObject({ type: 'CNAME', name: 'bounces.mail.alice.example', value: 'bounces.sendline.test', required: true });
    expect(byPurpose.spf).toMatchObject({ type: 'TXT', name: 'mail.alice.example', value: 'v=spf1 a:bounces.sendline.test ~all', required: false });
    expect(byPurpose.dmarc).toMatchObject({ type: 'TXT', name: '_dmarc.mail.alice.example', value: 'v=DMARC1; p=none', required: false });
    expect(byPurpose.tracking).toMatchObject({ type: 'CNAME', name: 'links.mail.alice.example', value: 'sendline.test', required: false });
    expect(JSON.stringify(domain)).not.toMatch(/PRIVATE KEY/);
    expect((await alice.api('GET', `/api/v1/domains/${domain.id}`)).body).toEqual(domain);
  });

  it('refuses a name that is not a domain, naming the field', async () => {
    for (const name of ['localhost', '192.168.0.1', 'under_score.example', '-lead.example', `${'a'.repeat(64)}.example`, 'a..b.example', 'x.123']) {
      const res = await alice.api('POST', '/api/v1/domains', { body: { name } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].pointer).toBe('/name');
    }
    expectProblem(await alice.api('POST', '/api/v1/domains', { body: { name: 'a.example', extra: 1 } }), 400, 'validation_failed');
  });

  it('answers 409 domain_exists with the existing id, and too_many_domains past the limit', async () => {
    const first = await alice.api('POST', '/api/v1/domains', { body: { name: 'twice.alice.example' } });
    const again = await alice.api('POST', '/api/v1/domains', { body: { name: 'TWICE.alice.example' } });
    expectProblem(again, 409, 'domain_exists');
    expect(again.body.existing_id).toBe(first.body.id);
    // The same name in another account is that account's own domain.
    expect((await bob.api('POST', '/api/v1/domains', { body: { name: 'twice.alice.example' } })).status).toBe(201);
    const carol = await newAccount(sendline.url, 'carol');
    const answers = await Promise.all(['1', '2', '3', '4', '5'].map((n) => carol.api('POST', '/api/v1/domains', { body: { name: `d${n}.limit.example` } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 409, 409]);
    expectProblem(
      answers.find((a) => a.status === 409)!,
      409,
      'too_many_domains',
    );
    expect((await carol.api('GET', '/api/v1/domains')).body.data).toHaveLength(3);
  });

  it("keeps each account's domains to itself", async () => {
    const { body: domain } = await bob.api('POST', '/api/v1/domains', { body: { name: 'bob.example' } });
    for (const [method, path] of [
      ['GET', `/api/v1/domains/${domain.id}`],
      ['DELETE', `/api/v1/domains/${domain.id}`],
      ['POST', `/api/v1/domains/${domain.id}/verify`],
      ['POST', `/api/v1/domains/${domain.id}/dkim/rotate`],
      ['POST', `/api/v1/domains/${domain.id}/dkim/retire`],
    ] as const) {
      expectProblem(await alice.api(method, path), 404, 'not_found');
    }
    const names = (await alice.api('GET', '/api/v1/domains?limit=500')).body.data.map((d: { name: string }) => d.name);
    expect(names).not.toContain('bob.example');
    expect((await bob.api('GET', `/api/v1/domains/${domain.id}`)).status).toBe(200);
  });

  it('rotates to a second key listed beside the first, and retires only once it is verified', async () => {
    const bob = await newAccount(sendline.url, 'rotating');
    const { body: domain } = await bob.api('POST', '/api/v1/domains', { body: { name: 'rotate.bob.example' } });
    expectProblem(await bob.api('POST', `/api/v1/domains/${domain.id}/dkim/retire`), 409, 'dkim_no_rotation');
    const rotated = await bob.api('POST', `/api/v1/domains/${domain.id}/dkim/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.next_dkim_selector).toMatch(/^sl\d{8}b$/);
    const dkim = rotated.body.records.filter((r: Record) => r.purpose === 'dkim');
    expect(dkim.map((r: Record) => r.name)).toEqual([
      `${domain.dkim_selector}._domainkey.rotate.bob.example`,
      `${rotated.body.next_dkim_selector}._domainkey.rotate.bob.example`,
    ]);
    expect(dkim[0].value).not.toBe(dkim[1].value);
    expectProblem(await bob.api('POST', `/api/v1/domains/${domain.id}/dkim/rotate`), 409, 'dkim_rotation_in_progress');
    expectProblem(await bob.api('POST', `/api/v1/domains/${domain.id}/dkim/retire`), 409, 'dkim_not_verified');
  });

  it('leaves statuses as they were when the lookups fail', async () => {
    const bob = await newAccount(sendline.url, 'nodns');
    const { body: domain } = await bob.api('POST', '/api/v1/domains', { body: { name: 'nodns.bob.example' } });
    const res = await bob.api('POST', `/api/v1/domains/${domain.id}/verify`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
    expect(new Set(res.body.records.map((r: Record) => r.status))).toEqual(new Set(['lookup_failed']));
    expect(res.body.checked_at).not.toBeNull();
  }, 30_000);

  it('deletes a domain', async () => {
    const bob = await newAccount(sendline.url, 'deleting');
    const { body: domain } = await bob.api('POST', '/api/v1/domains', { body: { name: 'gone.bob.example' } });
    expect((await bob.api('DELETE', `/api/v1/domains/${domain.id}`)).status).toBe(204);
    expectProblem(await bob.api('GET', `/api/v1/domains/${domain.id}`), 404, 'not_found');
    expectProblem(await bob.api('DELETE', `/api/v1/domains/${domain.id}`), 404, 'not_found');
  });
});

describe('SENDING_DOMAIN_POLICY=auto', () => {
  const email = (from: string) => ({ from: { email: from }, to: [{ email: 'ada@example.com' }], subject: 'Receipt', text: 'Thanks!' });
  const campaign = (from: string) => ({ name: 'News', subject: 'News', from_email: from, content: '<p>Hi</p>' });

  it('sends from any address while the account has no domain', async () => {
    const account = await newAccount(sendline.url, 'nodomain');
    expect((await account.api('POST', '/api/v1/emails', { body: email('receipts@anything.example') })).status).toBe(202);
  });

  it('refuses, naming the field, mail from a domain the account has not verified once it has a domain', async () => {
    const account = await newAccount(sendline.url, 'pending');
    await account.api('POST', '/api/v1/domains', { body: { name: 'pending.example' } });
    const refused = await account.api('POST', '/api/v1/emails', { body: email('receipts@pending.example') });
    expectProblem(refused, 422, 'domain_not_verified');
    expect(refused.body.errors).toEqual([{ pointer: '/from/email', detail: 'is not from a verified domain of the account' }]);
    expect(refused.body.detail).toContain('receipts@pending.example');

    const batch = await account.api('POST', '/api/v1/emails/batch', {
      body: { emails: [email('a@pending.example'), { ...email('b@pending.example'), to: [] }] },
    });
    expect(batch.status).toBe(202);
    expect(batch.body.data[0]).toMatchObject({ index: 0, status: 'refused', error: { code: 'domain_not_verified', errors: [{ pointer: '/from/email' }] } });
    expect(batch.body.data[1]).toMatchObject({ index: 1, status: 'refused', error: { code: 'validation_failed' } });

    const { body: draft } = await account.api('POST', '/api/v1/campaigns', { body: campaign('news@pending.example') });
    for (const [path, body] of [
      ['send', undefined],
      ['schedule', { scheduled_at: new Date(Date.now() + 3_600_000).toISOString() }],
      ['test', { emails: ['ada@example.com'] }],
    ] as const) {
      const res = await account.api('POST', `/api/v1/campaigns/${draft.id}/${path}`, body ? { body } : {});
      expectProblem(res, 422, 'domain_not_verified');
      expect(res.body.errors[0].pointer).toBe('/from_email');
    }
    expect((await account.api('GET', `/api/v1/campaigns/${draft.id}`)).body.status).toBe('draft');
  });
});
