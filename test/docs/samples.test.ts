/**
 * Every code sample of the reference runs against a live server, as a reader would run it: curl
 * in bash, Python with the SDK in sdk/python (.venv), Node.js with sdk/node, PHP with sdk/php and
 * Ruby with sdk/ruby. Each language gets an account of its own with fixtures the samples name
 * (their ids, the owner's email, a refresh token), then runs all its samples in one process.
 * A sample passes when it raises nothing (curl: when it gets one of the operation's success statuses).
 * A new operation's sample that names an id needs that id's fixture in `fixtures()`, mapped from
 * the id the sample shows.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { loadContract } from '../../server/contract/document.ts';
import { contractCalls, loadSampleSpecs, renderSamples, type Language } from '../../server/docs/samples.ts';
import { freshDatabase } from '../databases.ts';
import { startDnsServer, type DnsRecord, type DnsServer } from '../dns-server.ts';
import { client, newAccount, startTestServer, waitFor, type Client } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { WebhookReceiver } from '../webhook-receiver.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNNERS = path.join(ROOT, 'test/docs/runners');
const doc = loadContract();
const specs = loadSampleSpecs();
const rendered = renderSamples(doc, specs);
const expectedStatuses = new Map(contractCalls(doc).map((c) => [c.operationId, c.statuses]));

let sendline: Sendline;
let sink: SmtpSink;
let receiver: WebhookReceiver;
let dns: DnsServer;
/** The records every language's fixtures published so far: the server answers them all. */
const published: DnsRecord[] = [];
const timings: Record<string, { samples: number; seconds: number; slowest: string[] }> = {};

beforeAll(async () => {
  sink = await new SmtpSink().start();
  receiver = await new WebhookReceiver().start();
  dns = await startDnsServer();
  sendline = await startTestServer({
    DNS_SERVERS: dns.address,
    // The samples send from addresses of several domains, and add a domain of their own.
    SENDING_DOMAIN_POLICY: 'any',
    DATABASE_URL: await freshDatabase(`samples_${randomUUID().slice(0, 8)}`),
    SMTP_URL: sink.url,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // Slow enough that a campaign to the 200 `bulk` contacts is still sending when the pause sample
    // runs; small batches, so that stopping (which lets batches in flight finish) is quick.
    SEND_RATE_PER_SECOND: '2',
    SEND_BATCH_SIZE: '2',
    SEND_WORKERS_PER_CAMPAIGN: '1',
  });
});

/** Cancels the account's campaigns still sending to the `bulk` contacts, which would outlast the test. */
async function cancelSending(api: Client) {
  for (const status of ['sending', 'paused']) {
    for (const { id } of (await ok(api, 'GET', `/api/campaigns?status=${status}&limit=100`)).data as { id: string }[]) {
      await api('POST', `/api/campaigns/${id}/cancel`);
    }
  }
}

afterAll(async () => {
  console.info('sample runs', timings);
  await sendline?.stop();
  await sink?.stop();
  await receiver?.stop();
  await dns?.stop();
}, 180_000);

interface Fixtures {
  env: Record<string, string>;
  /** Calls with the account's API key. */
  api: Client;
  /** Text of the samples (ids, emails, tokens) → what it stands for in this account. */
  substitutions: Map<string, string>;
}

async function ok(api: Client, method: string, url: string, body?: unknown): Promise<Record<string, any>> {
  const res = await api(method, url, body === undefined ? {} : { body });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** An account holding everything the samples name, for one language's run. */
async function fixtures(language: Language): Promise<Fixtures> {
  const owner = await newAccount(sendline.url, `samples-${language}`);
  const session = owner.api;
  const key = await ok(session, 'POST', '/api/api-keys', { name: 'samples', scopes: ['read', 'write'] });
  const api = client(sendline.url, { authorization: `Bearer ${key.key}` });
  const s = new Map<string, string>();
  const id = (placeholder: string, real: string) => s.set(placeholder, real);

  id('ct_0dXk3Qa1Vw8mZp2Lr5Tn9y', (await ok(api, 'POST', '/api/contacts', { email: 'grace@example.com', first_name: 'Grace', tags: ['news'] })).id);
  id('ct_0dXk3Qa2Hc4nRt7Wq1Ys6e', (await ok(api, 'POST', '/api/contacts', { email: 'bob@example.com' })).id);
  await ok(api, 'POST', '/api/contacts', { email: 'alan@example.com', tags: ['news'] });
  await ok(api, 'POST', '/api/contacts', { email: 'vip@example.com', tags: ['vip'] });
  const bulk = Array.from({ length: 200 }, (_, i) => ({ email: `reader-${i}@example.com` }));
  await ok(api, 'POST', '/api/contacts/import', { contacts: bulk, tags: ['bulk'] });
  id(
    'imp_0dXk3Qc1Jh5tBv9Xe2Lp7m',
    (await ok(api, 'POST', '/api/contacts/import', { contacts: [{ email: 'not an address' }, { email: 'kim@example.com' }] })).id,
  );

  const campaign = async (tags: string[]) =>
    (
      await ok(api, 'POST', '/api/campaigns', {
        name: 'Fixture',
        subject: 'Hello',
        from_email: 'news@example.com',
        content: '<p>Hello <a href="https://example.com/">there</a></p>',
        audience: { tags_any: tags },
      })
    ).id as string;
  const sent = await campaign(['news']);
  await ok(api, 'POST', `/api/campaigns/${sent}/send`, {});
  id('cmp_0dXk3Qb1Fz6pLm2Nw8Ks4r', sent);
  id('cmp_0dXk3Qb2Ut9cXe4Ja7Rm1d', await campaign(['news']));
  id('cmp_0dXk3Qb3Ly2gPo6Dk9Wt5s', await campaign(['news']));
  id('cmp_0dXk3Qb4Qe8rVi1Hn3Xb7a', await campaign(['news']));
  const scheduled = await campaign(['news']);
  await ok(api, 'POST', `/api/campaigns/${scheduled}/schedule`, { scheduled_at: '2030-01-08T09:00:00Z' });
  id('cmp_0dXk3Qb5Mw3tJy7Gc2Ze8q', scheduled);
  id('cmp_0dXk3Qb6Ac5nSf9Ku4Po1w', await campaign(['vip']));
  const sending = await campaign(['bulk']);
  await ok(api, 'POST', `/api/campaigns/${sending}/send`, {});
  id('cmp_0dXk3Qb7Hr1xEm5Tq8Lv2c', sending);
  const paused = await campaign(['bulk']);
  await ok(api, 'POST', `/api/campaigns/${paused}/send`, {});
  await ok(api, 'POST', `/api/campaigns/${paused}/pause`);
  id('cmp_0dXk3Qb8Do4kYw2Bs6Ng9f', paused);
  id('cmp_0dXk3Qb9Vn7qIt3Fe1Rh4y', await campaign(['news']));
  const tested = (
    await ok(api, 'POST', '/api/campaigns', {
      name: 'A/B fixture',
      subject: 'Hello',
      from_email: 'news@example.com',
      content: '<p>Hello</p>',
      audience: { tags_any: ['news'] },
      variants: [
        { name: 'Short subject', subject: 'New: exports' },
        { name: 'Long subject', subject: 'Scheduled exports, faster search and a new API' },
      ],
      ab_test: { test_percent: 50, metric: 'opens', wait: 'PT1H', auto_send_winner: false },
    })
  ).id as string;
  await ok(api, 'POST', `/api/campaigns/${tested}/send`, {});
  await waitFor(async () => (await ok(api, 'GET', `/api/campaigns/${tested}`)).test_phase === 'waiting');
  id('cmp_0dXk3QbA5Wn8rTy2Bc6Hd9', tested);

  const webhook = async () => (await ok(api, 'POST', '/api/webhooks', { url: receiver.url, events: ['webhook.test'] })).id as string;
  const hook = await webhook();
  await ok(api, 'POST', `/api/webhooks/${hook}/test`);
  id('wh_0dXk3Qd1Ry8kWn3Fs6Pc2v', hook);
  id('whd_0dXk3Qd2Gm4sTq7Bz1Hx5n', (await ok(api, 'GET', `/api/webhooks/${hook}/deliveries`)).data[0].id);
  id('wh_0dXk3Qd3Kx6mAp9Ue4Jb1t', await webhook());
  id('wh_0dXk3Qd4Ez2vLs5Og8Yc3i', await webhook());

  const domain = async (name: string) => (await ok(api, 'POST', '/api/domains', { name })) as { id: string; records: DnsRecord[] };
  id('dom_0dXk3Qd1Ry8kWn3Fs6Pc2v', (await domain('news.example.com')).id);
  id('dom_0dXk3Qd4Ez2vLs5Og8Yc3i', (await domain('old.example.com')).id);
  // Retiring takes a rotation whose new key is published and verified.
  const rotating = await domain('rotating.example.com');
  const rotated = await ok(api, 'POST', `/api/domains/${rotating.id}/dkim/rotate`);
  published.push(...(rotated.records as DnsRecord[]).map(({ name, type, value }) => ({ name, type, value })));
  await dns.setRecords(published);
  await ok(api, 'POST', `/api/domains/${rotating.id}/verify`);
  id('dom_0dXk3Qd2Gm4sTq7Bz1Hx5n', rotating.id);

  const user = async (name: string) =>
    (
      await ok(session, 'POST', '/api/users', {
        email: `${name}-${randomUUID().slice(0, 8)}@example.com`,
        password: 'a long and secret password',
        name,
        role: 'member',
      })
    ).id as string;
  id('usr_0dXk3Qe1Kp2vMx8Rt4Lw6j', await user('member'));
  id('usr_0dXk3Qe2Zs5hBn1Qc7Tf3u', await user('leaver'));
  id('key_0dXk3Qf1Nc7wHb3Yq5Sd9k', (await ok(session, 'POST', '/api/api-keys', { name: 'reporting', scopes: ['read'] })).id);
  id('key_0dXk3Qf2Wd8jCv4Rm1Ep6x', (await ok(session, 'POST', '/api/api-keys', { name: 'old', scopes: ['read'] })).id);

  // Lists, custom fields, segments, tags and templates the samples name; each deleting sample gets its own.
  const list = await ok(api, 'POST', '/api/lists', { name: 'Fixture list' });
  id('lst_0dXk3Qa1bC4dE5fG6hI7jK', list.id);
  s.set('Qm7vT2xKp9LsR4wYb8NcZd', list.public_id);
  await ok(api, 'POST', `/api/lists/${list.id}/members`, { emails: ['grace@example.com', 'bob@example.com'] });
  id('lst_0dXk3Qa2cD5eF6gH7iJ8kL', (await ok(api, 'POST', '/api/lists', { name: 'Old list' })).id);
  id('fld_2Zy0Rk8dQ3mVb7LkPq1xYz', (await ok(api, 'POST', '/api/fields', { key: 'company_size', label: 'Size', type: 'number' })).id);
  id('fld_2Zy0Rk8dQ4nWc8MlQr2yZa', (await ok(api, 'POST', '/api/fields', { key: 'legacy_code', label: 'Legacy code', type: 'text' })).id);
  const newsReaders = { all: [{ field: 'tags', operator: 'contains', value: 'news' }] };
  id('seg_2Zy0Rk8dQ3mVb7LkPq1xYz', (await ok(api, 'POST', '/api/segments', { name: 'News readers', rules: newsReaders })).id);
  id('seg_2Zy0Rk8dQ4nWc8MlQr2yZa', (await ok(api, 'POST', '/api/segments', { name: 'Old segment', rules: newsReaders })).id);
  await ok(api, 'POST', '/api/contacts', { email: 'linus@example.com', tags: ['customers', 'old-promo', 'lead'] });
  const template = await ok(api, 'POST', '/api/templates', {
    name: 'order-receipt',
    subject: 'Your order {{ order.number }}',
    html: '<p>Thanks, {{ first_name }}!</p>',
  });
  await ok(api, 'POST', `/api/templates/${template.id}/publish`);
  id('tpl_3Vd8x2KqLm9Ztr0YbN5cWe', template.id);
  id('tpl_3Vd8x2KqLm8Ysq9XaM4bVd', (await ok(api, 'POST', '/api/templates', { name: 'old-receipt', subject: 'Your order', html: '<p>Thanks!</p>' })).id);

  const login = await ok(client(sendline.url), 'POST', '/api/auth/login', { email: owner.email, password: owner.password });
  id('ses_0dXk3Qg1Tb6yNc2Vm8Pr4h.q7Rw2YtLp9Kd3Nf6Hs1Xa4Zc8Vb5Mj0Ge7Qu2Wi3Lo6', login.refresh_token);
  s.set('owner@example.com', owner.email);
  // The password change keeps the password, so that the samples after it still log in.
  s.set('a longer and fresher passphrase', owner.password);
  // Addresses that must be new on the whole server, not only in this account.
  const unique = randomUUID().slice(0, 8);
  s.set('alex@northwind.example', `alex-${language}-${unique}@northwind.example`);
  s.set('grace.hopper@example.com', `grace.hopper-${language}-${unique}@example.com`);

  // Transactional email, suppression list, topics, exports and erasure.
  const email = async (extra: Record<string, unknown> = {}) =>
    (
      await ok(api, 'POST', '/api/emails', {
        from: { email: 'receipts@shop.example' },
        to: [{ email: 'ada@example.com' }],
        subject: 'Receipt',
        text: 'Thanks!',
        ...extra,
      })
    ).data[0].id as string;
  id('em_0dXk3Qh1Pq4wNz7Ck2Vb5t', await email());
  id('em_0dXk3Qh2Lf8sRy3Gm6Xe1o', await email({ scheduled_at: new Date(Date.now() + 86_400_000).toISOString() }));
  const suppression = async (address: string) => {
    await ok(api, 'POST', '/api/suppressions', { emails: [address], reason: 'bounced' });
    return (await ok(api, 'GET', `/api/suppressions?email=${address}`)).data[0].id as string;
  };
  id('sup_0dXk3Qi1Tw6hKc9Ra2Ln4m', await suppression('sam@example.com'));
  id('sup_0dXk3Qi2Bd5xGv8Mp1Zs7q', await suppression('kit@example.com'));
  id('top_0dXk3Qj1Hs4mYb7Wf2Rc9k', (await ok(api, 'POST', '/api/topics', { name: 'Product updates' })).id);
  id('top_0dXk3Qj2Xo6pDt1Nv8Ga3e', (await ok(api, 'POST', '/api/topics', { name: 'Events' })).id);
  await ok(api, 'PUT', `/api/contacts/${s.get('ct_0dXk3Qa1Vw8mZp2Lr5Tn9y')}/topic-optouts`, { topic_ids: [s.get('top_0dXk3Qj1Hs4mYb7Wf2Rc9k')] });
  const exported = (await ok(api, 'POST', '/api/contacts/exports', { tag: 'news' })).id as string;
  for (let i = 0; i < 300 && (await ok(api, 'GET', `/api/contacts/exports/${exported}`)).status !== 'completed'; i++)
    await new Promise((r) => setTimeout(r, 100));
  id('exp_0dXk3Qk1Mn5cWq8Ty2Jd6h', exported);
  id('ct_0dXk3Qa3Ez9kTm2Hq6Wu4b', (await ok(api, 'POST', '/api/contacts', { email: 'erase.me@example.com' })).id);

  // Automations: one in flight with Grace waiting in it, and one for each sample that changes an automation's state.
  const automation = async (name: string, active: boolean) => {
    const made = await ok(api, 'POST', '/api/automations', { name, trigger: { type: 'manual' }, steps: [{ id: 'wait', type: 'wait', duration: 'P7D' }] });
    if (active) await ok(api, 'POST', `/api/automations/${made.id}/activate`);
    return made.id as string;
  };
  const journey = await automation('Onboarding', true);
  id('aut_0dXk3Ql1Nq4vXs7Bt2Hy5c', journey);
  id('aut_0dXk3Ql2Wp8kZr3Mc6Ju9d', await automation('Draft', false));
  id('aut_0dXk3Ql3Fh5nYt1Ld4Qx7e', await automation('Old', true));
  id('aut_0dXk3Ql4Bv9mGs2Ke8Pw3f', await automation('Gone', false));
  id('aut_0dXk3Ql5Cx2pHt6Nf9Ry4g', await automation('Seasonal', true));
  await ok(api, 'POST', `/api/automations/${journey}/enrollments`, { emails: ['grace@example.com', 'alan@example.com'] });
  const waitingOf = async (email: string) => {
    const contact = (await ok(api, 'GET', `/api/contacts?email=${encodeURIComponent(email)}`)).data[0].id as string;
    for (let i = 0; i < 100; i++) {
      const [enrollment] = (await ok(api, 'GET', `/api/automations/${journey}/enrollments?contact_id=${contact}`)).data as { id: string; status: string }[];
      if (enrollment?.status === 'waiting') return enrollment.id;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${email} is not waiting in the journey`);
  };
  await waitingOf('grace@example.com');
  id('enr_0dXk3Qm1Tz6cRx4Vn8Ha2j', await waitingOf('alan@example.com'));

  return {
    api,
    substitutions: s,
    env: { SENDLINE_API_KEY: key.key, SENDLINE_BASE_URL: sendline.url, SENDLINE_PASSWORD: owner.password, SENDLINE_TOKEN: owner.token },
  };
}

/** The language's samples, fixtures substituted; logging out comes last, since curl's other session samples use that session. */
function programs(language: Language, { substitutions }: Fixtures): { id: string; source: string }[] {
  const label = { curl: 'curl', python: 'Python', node: 'Node.js', php: 'PHP', ruby: 'Ruby' }[language];
  const out = [...rendered].map(([id, samples]) => {
    let source = samples.find((sample) => sample.label === label)!.source;
    for (const [from, to] of substitutions) source = source.replaceAll(from, to);
    return { id, source };
  });
  // The password change ends the user's other sessions (the refresh sample's among them): it runs last but one.
  const last = ['Auth_changePassword', 'Auth_logout'];
  return [...out.filter((p) => !last.includes(p.id)), ...last.flatMap((id) => out.filter((p) => p.id === id))];
}

interface Outcome {
  id: string;
  ok: boolean;
  output: string;
  error?: string;
  /** How long the sample took, in milliseconds. */
  ms?: number;
}

function run(command: string, args: string[], env: Record<string, string>, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** One process running every sample of the language; one outcome a sample. */
async function runAll(language: Exclude<Language, 'curl'>, list: { id: string; source: string }[], env: Record<string, string>): Promise<Outcome[]> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'sendline-samples-')), 'samples.json');
  writeFileSync(file, JSON.stringify(list));
  const [command, args, extra] = {
    python: [path.join(ROOT, '.venv/bin/python'), [path.join(RUNNERS, 'python.py'), file], { PYTHONPATH: path.join(ROOT, 'sdk/python') }],
    node: [path.join(ROOT, 'node_modules/.bin/node'), [path.join(RUNNERS, 'node.ts'), file], {}],
    php: ['php', [path.join(RUNNERS, 'php.php'), file], {}],
    ruby: ['ruby', [path.join(RUNNERS, 'ruby.rb'), file], { RUBYLIB: path.join(ROOT, 'sdk/ruby/lib') }],
  }[language] as [string, string[], Record<string, string>];
  const { code, stdout, stderr } = await run(command, args, { ...env, ...extra });
  expect(code, stderr).toBe(0);
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Outcome);
}

/**
 * curl samples in one bash process, each in a subshell of its own (`set -e`, so a failing
 * command fails it); `curl` reports the status it got after the body.
 */
async function runCurl(list: { id: string; source: string }[], env: Record<string, string>): Promise<Outcome[]> {
  const script = [
    `curl() { command curl -sS -w '\\n@@status %{http_code}\\n' "$@"; }`,
    ...list.map(({ id, source }) => `echo "@@sample ${id} $EPOCHREALTIME"\n( set -eo pipefail\n${source}) 2>&1\necho "@@exit $? $EPOCHREALTIME"`),
  ].join('\n');
  const { code, stdout, stderr } = await run('bash', ['-s'], env, script);
  expect(code, stderr).toBe(0);
  return stdout
    .split(/^@@sample /m)
    .slice(1)
    .map((chunk) => {
      const [, id, started] = /^(\S+) (\S+)\n/.exec(chunk)!;
      const [, exit, ended] = /@@exit (\d+) (\S+)\n$/.exec(chunk)!;
      const status = Number([...chunk.matchAll(/@@status (\d+)/g)].at(-1)?.[1]);
      const expected = expectedStatuses.get(id) ?? [];
      return {
        id,
        ok: exit === '0' && expected.includes(status),
        output: chunk,
        error: `exit ${exit}, status ${status}, expected ${expected.join(' or ')}`,
        ms: Math.round((Number(ended) - Number(started)) * 1000),
      };
    });
}

/** The quick start's program in the language, as the guide gives it. */
function quickstart(language: Language): string {
  const heading = { curl: 'curl', python: 'Python', node: 'Node.js', php: 'PHP', ruby: 'Ruby' }[language];
  const fence = { curl: 'sh', python: 'python', node: 'js', php: 'php', ruby: 'ruby' }[language];
  const section = readFileSync(path.join(ROOT, 'docs/guides/quickstart.md'), 'utf8')
    .split('\n## ')
    .find((s) => s.startsWith(`${heading}\n`))!;
  const source = new RegExp(`\`\`\`${fence}\\n([\\s\\S]*?)\`\`\``).exec(section)![1];
  // The PHP runner has loaded the SDK already: no opening tag, no Composer autoloader.
  return language === 'php' ? source.replace(/^<\?php\n/, '').replace(/^require .*vendor\/autoload\.php';\n/m, '') : source;
}

describe('the quick start of each language runs as the guide gives it', () => {
  it.each(['curl', 'python', 'node', 'php', 'ruby'] as const)(
    '%s',
    async (language) => {
      const owner = await newAccount(sendline.url, `quickstart-${language}`);
      const key = await ok(owner.api, 'POST', '/api/api-keys', { name: 'quick start', scopes: ['read', 'write'] });
      const env = { SENDLINE_API_KEY: key.key, SENDLINE_BASE_URL: sendline.url };
      const source = quickstart(language);
      if (language === 'curl') {
        // With the key the guide makes, logged in as the account's owner.
        const [keyBlock] = /## Get an API key\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readFileSync(path.join(ROOT, 'docs/guides/quickstart.md'), 'utf8'))!.slice(1);
        const makeKey = keyBlock.replace('you@example.com', owner.email).replace('your password', owner.password);
        const script = `set -eo pipefail\ncurl() { command curl -sS --fail-with-body "$@"; }\n${makeKey}\n${source}\necho "key $SENDLINE_API_KEY"`;
        const { code, stdout, stderr } = await run('bash', ['-s'], { SENDLINE_BASE_URL: sendline.url }, script);
        expect(code, `${stdout}${stderr}`).toBe(0);
        expect(stdout).toMatch(/key sl_\S+\n$/);
      } else {
        const [outcome] = await runAll(language, [{ id: 'quickstart', source }], env);
        expect(outcome, outcome.error).toMatchObject({ ok: true });
      }
      // What it did: a contact, a campaign on its way, a webhook.
      expect((await ok(owner.api, 'GET', '/api/contacts')).data.map((c: { email: string }) => c.email)).toEqual(['ada@example.com']);
      const [campaign] = (await ok(owner.api, 'GET', '/api/campaigns')).data;
      expect(['sending', 'completed']).toContain(campaign.status);
      expect((await ok(owner.api, 'GET', '/api/webhooks')).data).toMatchObject([{ url: 'https://example.com/webhooks/sendline' }]);
    },
    120_000,
  );
});

describe('the code samples of the reference run against a live server', () => {
  it.each(['curl', 'python', 'node', 'php', 'ruby'] as const)(
    '%s',
    async (language) => {
      const setUp = await fixtures(language);
      const list = programs(language, setUp);
      const started = performance.now();
      let seconds = 0;
      const outcomes = await (language === 'curl' ? runCurl(list, setUp.env) : runAll(language, list, setUp.env)).finally(() => {
        seconds = Math.round((performance.now() - started) / 100) / 10;
        return cancelSending(setUp.api);
      });
      const slowest = [...outcomes].sort((x, y) => (y.ms ?? 0) - (x.ms ?? 0)).slice(0, 3);
      timings[language] = {
        samples: outcomes.length,
        seconds,
        slowest: slowest.map((o) => `${o.id} ${o.ms} ms`),
      };
      const failed = outcomes.filter((o) => !o.ok).map((o) => `${o.id}: ${o.error}\n${list.find((p) => p.id === o.id)?.source}\n${o.output}`);
      expect(failed, failed.join('\n\n')).toEqual([]);
      expect(outcomes.map((o) => o.id).sort()).toEqual(list.map((p) => p.id).sort());
      expect(outcomes.length).toBe(Object.keys(specs).length);
      // A sample that prints one value printed it (a list may be empty).
      const paginated = new Set(
        contractCalls(doc)
          .filter((c) => c.paginated)
          .map((c) => c.operationId),
      );
      const silent = outcomes.filter((o) => language !== 'curl' && specs[o.id]?.print && !paginated.has(o.id) && !o.output.trim());
      expect(silent.map((o) => o.id)).toEqual([]);
    },
    300_000,
  );
});
