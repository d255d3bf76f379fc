import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, type TestAccount, spawnTestServer } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';

let server: ServerProcess;
let sink: SmtpSink;
let account: TestAccount;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  // Its own process, as in production: a stall there shows in the latency this process measures.
  server = await spawnTestServer({ SMTP_URL: sink.url, PUBLIC_URL: 'https://mail.example.test', LOG_LEVEL: 'info' }, { keepOutput: false });
  account = await newAccount(server.url, 'hostile');
  // The routes' first use compiles their validators (tens of ms, whatever the content): done before measuring.
  const { body: warm } = await account.api('POST', '/api/campaigns', { body: draft('<p>Hi</p>') });
  await account.api('POST', `/api/campaigns/${warm.id}/test`, { body: { emails: ['warm@inbox.example'] } });
});
afterAll(async () => {
  server.proc.kill('SIGTERM');
  await server.exited;
  await sink.stop();
});

/** Asks `/healthz` over and over from a thread of its own (this one parses the mail the sink receives); posts the slowest answer's time when told to stop. */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let done = false;
let slowest = 0;
parentPort.on('message', () => (done = true));
(async () => {
  // The first fetch of a thread loads the HTTP client: not the server's time.
  await (await fetch(workerData + '/healthz')).arrayBuffer();
  parentPort.postMessage('ready');
  while (!done) {
    const started = performance.now();
    const res = await fetch(workerData + '/healthz');
    await res.arrayBuffer();
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((r) => setTimeout(r, 10));
  }
  parentPort.postMessage(slowest);
})();
`;

/** Runs `work` while probing `/healthz`; answers the slowest answer's time in ms. */
async function healthzLatencyDuring(work: () => Promise<void>): Promise<number> {
  const probe = new Worker(PROBE, { eval: true, workerData: server.url });
  await new Promise((resolve) => probe.once('message', resolve));
  const slowest = new Promise<number>((resolve) => probe.once('message', resolve));
  try {
    await work();
  } finally {
    probe.postMessage('stop');
  }
  const ms = await slowest;
  await probe.terminate();
  return ms;
}

const draft = (content: string, extra: Record<string, unknown> = {}) => ({
  name: 'Hostile',
  subject: 'Hi {{ first_name }}',
  from_email: 'news@shop.example',
  content,
  ...extra,
});

describe('hostile content', () => {
  it('test-sends "<a " × 128000 in linear time without stalling /healthz', async () => {
    const { body: campaign, status } = await account.api('POST', '/api/campaigns', { body: draft('<a '.repeat(128_000)) });
    expect(status).toBe(201);
    let took = 0;
    const slowest = await healthzLatencyDuring(async () => {
      const started = performance.now();
      const res = await account.api('POST', `/api/campaigns/${campaign.id}/test`, { body: { emails: ['qa@inbox.example'] } });
      took = performance.now() - started;
      expect(res.body).toEqual({ accepted: ['qa@inbox.example'], rejected: [] });
    });
    console.log(`"<a " × 128000: test send ${Math.round(took)} ms, /healthz at most ${Math.round(slowest)} ms`);
    expect(took).toBeLessThan(3000);
    expect(slowest).toBeLessThan(100);
  });

  it('checks and test-sends about 1 MB of hostile HTML and Liquid without stalling /healthz', async () => {
    const fill = (unit: string) => unit.repeat(Math.floor(900_000 / unit.length));
    const hostile = {
      deepHtml: fill('<div>'),
      deepHeadings: fill('<h1>'),
      deepLists: fill('<ol><li>'),
      liquidComments: fill('{% comment %}'),
      liquidIfs: fill('{% if a %}'),
      liquidBlocks: fill('{% if a %}{% endif %}'),
      liquidMixed: fill('x{{a}}<p>{% if a %}y{% else %}z{% endif %}</p>'),
      openTags: fill('<a href="'),
      bodies: fill('<body '),
    };
    const valid = {
      paragraphs: `${fill('<p>Hi there, <a href="https://shop.example/ä?n=1">a</a></p>').slice(0, 800_000)}${'<p>{{ first_name }}</p>'.repeat(4000)}`,
      nested: fill(`${'<div>'.repeat(200)}x${'</div>'.repeat(200)}`),
    };
    const answers: Record<string, number> = {};
    const saved: string[] = [];
    const slowest = await healthzLatencyDuring(async () => {
      for (const [name, content] of Object.entries({ ...hostile, ...valid })) {
        const res = await account.api('POST', '/api/campaigns', { body: draft(content) });
        answers[name] = res.status;
        if (res.status === 201) saved.push(res.body.id);
        else expect(res.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ pointer: '/content' })] });
      }
      for (const id of saved) {
        const res = await account.api('POST', `/api/campaigns/${id}/test`, { body: { emails: ['qa@inbox.example', 'ops@inbox.example'] } });
        expect(res.status).toBe(200);
      }
    });
    console.log(`~1 MB hostile saves and test sends: /healthz at most ${Math.round(slowest)} ms; answers ${JSON.stringify(answers)}`);
    // Too deep to derive a text part from, or not Liquid: refused, with the field.
    expect(answers).toMatchObject({
      deepHtml: 400,
      deepHeadings: 400,
      deepLists: 400,
      liquidIfs: 400,
      liquidBlocks: 400,
      liquidMixed: 400,
      paragraphs: 201,
      nested: 201,
    });
    expect(slowest).toBeLessThan(100);
    // Past the documented limit of 1,000,000 characters: a clear 400 as well.
    const tooLong = await account.api('POST', '/api/campaigns', { body: draft('x'.repeat(1_000_001)) });
    expect(tooLong.status).toBe(400);
  });
});
