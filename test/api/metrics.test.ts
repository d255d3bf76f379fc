import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, spawnTestServer, waitFor, type TestAccount } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';
import { freePort } from '../../server/db/embedded.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { METRIC_TYPES } from '../deploy/metric-names.ts';

// Debian's Prometheus scrapes a live server every second; the test asks its HTTP API what it saw.
const TOKEN = 'metrics-token-for-the-test-0123';
let sink: SmtpSink;
let server: ServerProcess;
let prometheus: ChildProcess;
let prometheusUrl: string;
let metricsUrl: string;

async function query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  expect(body.status).toBe('success');
  return body.data.result;
}

/** The single value of `expr`, once Prometheus has scraped it (null until then). */
async function valueOf(expr: string): Promise<number | null> {
  const [first] = await query(expr);
  return first ? Number(first.value[1]) : null;
}

const scraped = (expr: string, expected: number) => waitFor(async () => (await valueOf(expr)) === expected, 30_000);

beforeAll(async () => {
  sink = await new SmtpSink().start();
  const metricsPort = await freePort();
  server = await spawnTestServer({
    SMTP_URL: sink.url,
    METRICS_PORT: String(metricsPort),
    METRICS_TOKEN: TOKEN,
    SEND_BATCH_SIZE: '10',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // One attempt while the test runs: the next an hour later.
    WEBHOOK_RETRY_SCHEDULE: '3600',
  });
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-prometheus-'));
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    `global: { scrape_interval: 1s, evaluation_interval: 1s }\nscrape_configs:\n  - job_name: sendline\n    static_configs: [{ targets: ['127.0.0.1:${metricsPort}'] }]\n`,
  );
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    'prometheus',
    [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: 'ignore' },
  );
  await waitFor(async () => (await fetch(`${prometheusUrl}/-/ready`).catch(() => null))?.ok, 30_000);
}, 90_000);

afterAll(async () => {
  prometheus?.kill('SIGKILL');
  server?.proc.kill('SIGKILL');
  await sink?.stop();
});

describe('metrics', () => {
  let account: TestAccount;

  it('are scraped by Prometheus: requests by route template, sends by stream and outcome, queue depths', async () => {
    account = await newAccount(server.url, 'metrics');
    // One request, scraped, then the others: the rate is the increase between scrapes.
    expect((await account.api('GET', '/api/contacts')).status).toBe(200);
    await scraped('sum(sendline_http_requests_total{route="/api/v1/contacts",method="GET",status="200"})', 1);
    for (let i = 1; i < 25; i++) expect((await account.api('GET', '/api/contacts')).status).toBe(200);
    const before = await valueOf('sum(sendline_http_requests_total{route="/api/v1/contacts/{id}",status="404"})');
    for (let i = 0; i < 3; i++) expect((await account.api('GET', '/api/contacts/con_missing')).status).toBe(404);

    // An import of 30 rows, 2 of them not addresses.
    const csv = ['email', ...Array.from({ length: 28 }, (_, i) => `reader${i}@metrics.example`), 'nobody', 'no@'].join('\n');
    const imported = await account.api('POST', '/api/contacts/import', { raw: csv, headers: { 'content-type': 'text/csv' } });
    expect(imported.status).toBe(202);
    await waitFor(async () => (await account.api('GET', `/api/contacts/import/${imported.body.id}`)).body.status === 'completed');

    // A campaign to the 28, one refused by the relay; a webhook that cannot be reached hears of the bounce.
    sink.rejectHard.add('reader0@metrics.example');
    const hook = await account.api('POST', '/api/webhooks', { body: { url: `http://127.0.0.1:${await freePort()}/hook`, events: ['email.bounced'] } });
    expect(hook.status).toBe(201);
    const { body: campaign } = await account.api('POST', '/api/campaigns', {
      body: { name: 'Metrics', subject: 'Hi', from_email: 'news@shop.example', content: '<p>Hi</p>' },
    });
    expect((await account.api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBe(200);
    await waitFor(async () => (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed', 30_000);

    await scraped('sum(sendline_http_requests_total{route="/api/v1/contacts",method="GET",status="200"})', 25);
    await scraped('sum(sendline_http_requests_total{route="/api/v1/contacts/{id}",status="404"})', (before ?? 0) + 3);
    await waitFor(async () => ((await valueOf('sum(rate(sendline_http_requests_total{route="/api/v1/contacts"}[1m]))')) ?? 0) > 0, 30_000);
    await waitFor(
      async () => ((await valueOf('histogram_quantile(0.95, sum by (le) (rate(sendline_http_request_duration_seconds_bucket[1m])))')) ?? 0) > 0,
      30_000,
    );
    // No label value is an id: the 404s are counted under their template.
    expect(await query('sendline_http_requests_total{route=~".*con_.*"}')).toEqual([]);

    await scraped('sum(sendline_messages_total{stream="campaign",relay="default",outcome="sent"})', 27);
    await scraped('sum(sendline_messages_total{stream="campaign",outcome="bounced"})', 1);
    await scraped('sum(sendline_import_rows_total{outcome="created"})', 28);
    await scraped('sum(sendline_import_rows_total{outcome="failed"})', 2);
    await scraped('sendline_webhook_deliveries_pending', 1);
    await scraped('sendline_webhook_deliveries_failing', 1);
    await scraped('sum(sendline_webhook_delivery_duration_seconds_count{outcome="failure"})', 1);
    await scraped('sum(sendline_messages_queued)', 0);
    await scraped('sendline_outbox_events_pending', 0);
    await scraped('sendline_ready', 1);
    expect(await valueOf('up{job="sendline"}')).toBe(1);
  }, 120_000);

  it('pass promtool check metrics, and are the ones the deploy files query', async () => {
    const text = await (await fetch(metricsUrl)).text();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
    const types = Object.fromEntries([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
    expect(types).toEqual(METRIC_TYPES);
  });

  it('answer on the API port to the bearer token only', async () => {
    const path = `${server.url}/metrics`;
    expect((await fetch(path)).status).toBe(401);
    expect((await fetch(path, { headers: { authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401);
    const res = await fetch(path, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).toContain('sendline_build_info{version=');
  });

  it('are not served without METRICS_TOKEN or METRICS_PORT', async () => {
    const plain = await spawnTestServer();
    try {
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
      expect(plain.output()).not.toContain('"metrics":');
    } finally {
      plain.proc.kill('SIGKILL');
    }
  });
});
