/**
 * Journeys across processes: a worker killed in the middle of a 10,000-contact journey, and two
 * workers walking one journey together. Each step runs once per enrolment and each email is
 * queued once; what reaches the relay twice is bounded by the batches on the wire at the kill.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { client, newAccount, waitFor } from '../helpers.ts';
import { spawnServer, type ServerProcess } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { fileDatabaseUrl } from '../databases.ts';

const running: ServerProcess[] = [];
let sink: SmtpSink;
let db: pg.Client;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  db = new pg.Client({ connectionString: fileDatabaseUrl() });
  await db.connect();
});
afterEach(async () => {
  for (const server of running.splice(0)) {
    server.proc.kill('SIGKILL');
    await server.exited;
  }
});
afterAll(async () => {
  await db.end();
  await sink.stop();
});

/** A lease long enough that no batch is claimed again while its process lives (a loaded machine is slow), short enough to recover after a kill. */
async function start() {
  const server = await spawnServer({
    DATABASE_URL: fileDatabaseUrl(),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sendline-journeys-')),
    JWT_SECRET: 'journey-test-secret-shared-by-all-processes-01',
    ALLOW_SIGNUP: 'true',
    SMTP_URL: sink.url,
    SEND_BATCH_SIZE: '50',
    SEND_LEASE_SECONDS: '10',
  });
  running.push(server);
  return server;
}

/** An active journey (an email, a tag, an email) and `count` contacts enrolled in it by hand. */
async function journey(url: string, label: string, count: number) {
  const account = await newAccount(url, label);
  const api = client(url, { authorization: `Bearer ${account.token}` });
  const emails = Array.from({ length: count }, (_, i) => `${label}${i}@journeys.example`);
  for (let i = 0; i < count; i += 5000) {
    const imported = await api('POST', '/api/contacts/import', { body: { contacts: emails.slice(i, i + 5000).map((email) => ({ email })) } });
    expect(imported.status, JSON.stringify(imported.body)).toBeLessThan(300);
  }
  await waitFor(async () => (await db.query('select count(*)::int as n from contacts where account_id = $1', [account.accountId])).rows[0].n === count, 60_000);
  const template = await api('POST', '/api/templates', { body: { name: 'j', subject: 'Hi', html: '<p>Hi {{ email }}</p>' } });
  await api('POST', `/api/templates/${template.body.id}/publish`);
  const automation = await api('POST', '/api/automations', {
    body: {
      name: label,
      trigger: { type: 'manual' },
      steps: [
        { id: 'first', type: 'send_email', template_id: template.body.id, from_email: 'journeys@shop.example', next: 'tag' },
        { id: 'tag', type: 'update_contact', add_tags: ['walked'], next: 'second' },
        { id: 'second', type: 'send_email', template_id: template.body.id, subject: 'Again', from_email: 'journeys@shop.example' },
      ],
    },
  });
  expect((await api('POST', `/api/automations/${automation.body.id}/activate`)).status).toBe(200);
  const enrolled = await api('POST', `/api/automations/${automation.body.id}/enrollments`, { body: { emails } });
  expect(enrolled.body.enrolled).toBe(count);
  return { api, emails, automationId: automation.body.id as string };
}

/** Copies received per address, counted in one pass (`sink.to` per address would be quadratic here). */
function copies(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of sink.received) counts.set(r.to, (counts.get(r.to) ?? 0) + 1);
  return counts;
}

const everyGotTwo = (emails: string[]) => {
  const counts = copies();
  return emails.every((e) => (counts.get(e) ?? 0) >= 2);
};

async function completed(automationId: string): Promise<number> {
  const { rows } = await db.query("select count(*)::int as n from automation_enrollments where automation_id = $1 and status = 'completed'", [automationId]);
  return rows[0].n;
}

/** Every enrolment entered each step once, and queued each of its two emails once. */
async function expectStepsOnce(automationId: string, count: number) {
  const visits = await db.query<{ step_id: string; visits: number; enrolments: number }>(
    'select step_id, count(*)::int as visits, count(distinct enrollment_id)::int as enrolments from automation_path where automation_id = $1 group by step_id order by step_id',
    [automationId],
  );
  expect(visits.rows).toEqual([
    { step_id: 'first', visits: count, enrolments: count },
    { step_id: 'second', visits: count, enrolments: count },
    { step_id: 'tag', visits: count, enrolments: count },
  ]);
  const queued = await db.query(
    'select count(*)::int as n, count(distinct (enrollment_id, automation_step_id))::int as distinct_n from emails where automation_id = $1',
    [automationId],
  );
  expect(queued.rows[0]).toEqual({ n: count * 2, distinct_n: count * 2 });
}

describe('journeys across processes', () => {
  it('a worker killed in the middle of a 10,000-contact journey loses no email and queues none twice', async () => {
    const first = await start();
    const { emails, automationId } = await journey(first.url, 'killed', 10_000);
    sink.delayMs = 1;
    try {
      // Killed while it walks the journey, with emails on their way to the relay.
      await waitFor(async () => (await completed(automationId)) >= 1500, 60_000);
      first.proc.kill('SIGKILL');
      await first.exited;
      expect(await completed(automationId)).toBeLessThan(10_000);
      await start();
      await waitFor(async () => (await completed(automationId)) === 10_000, 120_000);
      await waitFor(() => everyGotTwo(emails), 120_000);
    } finally {
      sink.delayMs = 0;
    }
    await expectStepsOnce(automationId, 10_000);
    // On the wire at the kill: the sender's two batches of 50.
    const counts = copies();
    const twice = emails.filter((e) => (counts.get(e) ?? 0) > 2).length;
    expect(twice).toBeLessThanOrEqual(100);
  }, 300_000);

  it('two workers walk one journey together, each step once', async () => {
    const [one] = await Promise.all([start(), start()]);
    const { emails, automationId } = await journey(one.url, 'shared', 2000);
    await waitFor(async () => (await completed(automationId)) === 2000, 120_000);
    await waitFor(() => everyGotTwo(emails), 60_000);
    await expectStepsOnce(automationId, 2000);
    const counts = copies();
    expect(emails.filter((e) => counts.get(e) !== 2)).toEqual([]);
  }, 300_000);
});
