import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi.d.ts';
import type { Sendline } from '../../server/start.ts';
import { freshDatabase } from '../databases.ts';
import { startDnsServer, type DnsServer } from '../dns-server.ts';
import { expectProblem, newAccount, startTestServer, waitFor, type TestAccount } from '../helpers.ts';

type DomainRecord = components['schemas']['DomainRecord'];

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
    const byPurpose = Object.fromEntries(domain.records.map((r: DomainRecord) => [r.purpose, r]));
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
    const dkim = rotated.body.records.filter((r: DomainRecord) => r.purpose === 'dkim');
    expect(dkim.map((r: DomainRecord) => r.name)).toEqual([
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
    expect(new Set(res.body.records.map((r: DomainRecord) => r.status))).toEqual(new Set(['lookup_failed']));
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

describe('verification against a DNS server', () => {
  let dns: DnsServer;
  let server: Sendline;
  let owner: TestAccount;

  beforeAll(async () => {
    dns = await startDnsServer();
    // A database of its own: the periodic re-check runs in whichever process on a database is free.
    server = await startTestServer({
      DATABASE_URL: await freshDatabase('sending_domains'),
      DNS_SERVERS: dns.address,
      BOUNCE_DOMAIN: 'bounces.sendline.test',
      PUBLIC_URL: 'https://sendline.test',
      DOMAIN_RECHECK_SECONDS: '1',
    });
    owner = await newAccount(server.url, 'dns');
  });
  afterAll(async () => {
    await server?.stop();
    await dns?.stop();
  });

  const published = (records: DomainRecord[]) => records.map((r) => ({ name: r.name, type: r.type, value: r.value }));
  const statuses = (domain: { records: DomainRecord[] }) => domain.records.map((r) => `${r.purpose}:${r.status}`);

  it('verifies a domain whose records are published, and says what is missing or different', async () => {
    const { body: domain } = await owner.api('POST', '/api/v1/domains', { body: { name: 'verify.example' } });
    const [dkim, returnPath, spf, dmarc] = domain.records;
    await dns.setRecords([
      ...published([dkim]),
      { name: returnPath.name, type: 'CNAME' as const, value: 'elsewhere.example' },
      { name: spf.name, type: 'TXT' as const, value: 'v=spf1 include:_spf.google.com ~all' },
      { name: spf.name, type: 'TXT' as const, value: 'google-site-verification=abc' },
    ]);
    const first = (await owner.api('POST', `/api/v1/domains/${domain.id}/verify`)).body;
    expect(first.status).toBe('pending');
    expect(statuses(first)).toEqual(['dkim:verified', 'return_path:mismatch', 'spf:mismatch', 'dmarc:missing', 'tracking:missing']);
    expect(first.records[1].found).toEqual(['elsewhere.example']);
    expect(first.records[2].found).toEqual(['v=spf1 include:_spf.google.com ~all']);

    await dns.setRecords([
      ...published([dkim, returnPath, dmarc]),
      { name: spf.name, type: 'TXT' as const, value: 'v=spf1 include:_spf.google.com a:bounces.sendline.test ~all' },
    ]);
    const second = (await owner.api('POST', `/api/v1/domains/${domain.id}/verify`)).body;
    expect(second.status).toBe('verified');
    expect(statuses(second)).toEqual(['dkim:verified', 'return_path:verified', 'spf:verified', 'dmarc:verified', 'tracking:missing']);
    expect(second.verified_at).not.toBeNull();
    // Now mail from it (and its subdomains) may be sent; from another domain it may not.
    const email = (from: string) => ({ from: { email: from }, to: [{ email: 'ada@example.com' }], subject: 'Hi', text: 'Hi' });
    expect((await owner.api('POST', '/api/v1/emails', { body: email('hello@verify.example') })).status).toBe(202);
    expect((await owner.api('POST', '/api/v1/emails', { body: email('hello@news.verify.example') })).status).toBe(202);
    expectProblem(await owner.api('POST', '/api/v1/emails', { body: email('hello@other.example') }), 422, 'domain_not_verified');
  });

  it('finds a DKIM key whose record differs only in spacing and tag order', async () => {
    const { body: domain } = await owner.api('POST', '/api/v1/domains', { body: { name: 'spacing.example' } });
    const key = domain.records[0].value.replace(/^.*p=/, '');
    await dns.setRecords([{ name: domain.records[0].name, type: 'TXT', value: `k=rsa;  v=DKIM1; p=${key.slice(0, 100)} ${key.slice(100)}` }]);
    expect(statuses((await owner.api('POST', `/api/v1/domains/${domain.id}/verify`)).body)[0]).toBe('dkim:verified');
  });

  it('keeps both keys of a rotation valid until the old one is retired', async () => {
    const { body: domain } = await owner.api('POST', '/api/v1/domains', { body: { name: 'rotation.example' } });
    await dns.setRecords(published(domain.records));
    expect((await owner.api('POST', `/api/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    const { body: rotated } = await owner.api('POST', `/api/v1/domains/${domain.id}/dkim/rotate`);
    const [oldKey, newKey] = rotated.records;
    expect(statuses(rotated).slice(0, 2)).toEqual(['dkim:verified', 'dkim:pending']);
    expectProblem(await owner.api('POST', `/api/v1/domains/${domain.id}/dkim/retire`), 409, 'dkim_not_verified');

    await dns.setRecords(published(rotated.records));
    const both = (await owner.api('POST', `/api/v1/domains/${domain.id}/verify`)).body;
    expect(both.status).toBe('verified');
    expect(statuses(both).slice(0, 2)).toEqual(['dkim:verified', 'dkim:verified']);

    const retired = await owner.api('POST', `/api/v1/domains/${domain.id}/dkim/retire`);
    expect(retired.status).toBe(200);
    expect(retired.body).toMatchObject({ dkim_selector: rotated.next_dkim_selector, next_dkim_selector: null, status: 'verified' });
    expect(retired.body.records[0]).toMatchObject({ name: newKey.name, value: newKey.value, status: 'verified' });
    expect(retired.body.records.map((r: DomainRecord) => r.name)).not.toContain(oldKey.name);
    expectProblem(await owner.api('POST', `/api/v1/domains/${domain.id}/dkim/retire`), 409, 'dkim_no_rotation');
  });

  it('re-checks verified domains and fails one whose DKIM record disappeared, but not on a failed lookup', async () => {
    const { body: domain } = await owner.api('POST', '/api/v1/domains', { body: { name: 'recheck.example' } });
    await dns.setRecords(published(domain.records));
    const verified = (await owner.api('POST', `/api/v1/domains/${domain.id}/verify`)).body;
    expect(verified.status).toBe('verified');

    await dns.setRecords([...published(domain.records.slice(1)), { name: domain.records[0].name, type: 'SERVFAIL', value: '' }]);
    const failedLookup = await waitFor(async () => {
      const now = (await owner.api('GET', `/api/v1/domains/${domain.id}`)).body;
      return now.checked_at !== verified.checked_at && now.records[0].status === 'lookup_failed' && now;
    });
    expect(failedLookup.status).toBe('verified');

    await dns.setRecords(published(domain.records.slice(1)));
    const failed = await waitFor(async () => {
      const now = (await owner.api('GET', `/api/v1/domains/${domain.id}`)).body;
      return now.status === 'failed' && now;
    });
    expect(failed.records[0].status).toBe('missing');
    expect(failed.verified_at).toBe(verified.verified_at);
  }, 30_000);
});
