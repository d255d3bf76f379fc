/**
 * Automations on one server and database, through a relay that discards (its own process):
 * - the scheduler's idle cost: server and PostgreSQL CPU over a quiet spell with no enrolment,
 *   then with 1,000,000 enrolments waiting and none due (written in SQL, as a month of a large
 *   journey leaves them);
 * - due steps without email: contacts enrolled by hand on wait `PT0S` → condition →
 *   update_contact → exit, steps entered per second;
 * - emails: as many contacts enrolled on one `send_email` step, against a campaign to them, both
 *   delivered to the relay per second, in the same run;
 * - trigger → first email: events posted one by one (10 a second) for an event-triggered journey
 *   whose first step sends, p95 of the post → relay time.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { client, newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { benchPool, childPostgresPid, cpuSeconds, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const WAITING = Number(process.env.BENCH_AUTOMATIONS_WAITING ?? 1_000_000);
const CONTACTS = Number(process.env.BENCH_AUTOMATIONS_CONTACTS ?? 20_000);
const IDLE_SECONDS = Number(process.env.BENCH_AUTOMATIONS_IDLE_SECONDS ?? 20);
const TRIGGERS = 200;
const POOL = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function automationsBenchmark(): Promise<void> {
  const dir = scratchDir('automations');
  const relay = await spawnListening(['bench/smtp-discard.ts']);
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const db = benchPool(database.url);
  const server = await spawnServer(
    {
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      ALLOW_SIGNUP: 'true',
      SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
      SMTP_POOL_SIZE: String(POOL),
      ...serverTuning(),
    },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  try {
    const owner = await newAccount(server.url, 'bench');
    const api = client(server.url, { authorization: `Bearer ${owner.token}` });
    const postgres = childPostgresPid();
    const cpu = () => cpuSeconds(server.proc.pid!) + cpuSeconds(postgres);
    const idleShare = async () => {
      const before = cpu();
      await sleep(IDLE_SECONDS * 1000);
      return (cpu() - before) / IDLE_SECONDS;
    };

    const template = await api('POST', '/api/templates', { body: { name: 'bench', subject: 'Hello {{ first_name }}', html: '<p>Hello {{ email }}</p>' } });
    await api('POST', `/api/templates/${template.body.id}/publish`);
    const activate = async (body: Record<string, unknown>) => {
      const created = await api('POST', '/api/automations', { body: { name: 'bench', ...body } });
      if (created.status !== 201) throw new Error(JSON.stringify(created.body));
      await api('POST', `/api/automations/${created.body.id}/activate`);
      return created.body.id as string;
    };

    // Idle: nothing waiting, then a million waiting a month out.
    const quiet = await idleShare();
    const waitingJourney = await activate({ trigger: { type: 'manual' }, steps: [{ id: 'wait', type: 'wait', duration: 'P30D' }] });
    await db.query(
      `insert into automation_enrollments (account_id, id, automation_id, version, contact_id, status, step_id, due_at)
       select $1, 'enr_bench' || g, $2, 1, 'ct_bench' || g, 'waiting', 'wait', now() + interval '30 days' + g * interval '1 ms'
       from generate_series(1, $3::int) g`,
      [owner.accountId, waitingJourney, WAITING],
    );
    await db.query('vacuum analyze automation_enrollments');
    const waiting = await idleShare();

    // Contacts for the walks, imported.
    const emails = Array.from({ length: CONTACTS }, (_, i) => `reader${i}@list.example`);
    const csv = 'email,first_name\n' + emails.map((e) => `${e},Reader`).join('\n') + '\n';
    const upload = await fetch(`${server.url}/api/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv' },
      body: csv,
    });
    const imp = (await upload.json()) as { id: string };
    while ((await api('GET', `/api/contacts/import/${imp.id}`)).body.status !== 'completed') await sleep(200);

    const enrolAll = async (automationId: string) => {
      for (let i = 0; i < emails.length; i += 10_000)
        await api('POST', `/api/automations/${automationId}/enrollments`, { body: { emails: emails.slice(i, i + 10_000) } });
    };
    const until = async (query: string, params: unknown[], done: (n: number) => boolean) => {
      for (;;) {
        const { rows } = await db.query<{ n: number }>(query, params);
        if (done(rows[0].n)) return;
        await sleep(100);
      }
    };

    // Steps without email.
    const walk = await activate({
      trigger: { type: 'manual' },
      steps: [
        { id: 'pause', type: 'wait', duration: 'PT0S', next: 'vip' },
        { id: 'vip', type: 'condition', rules: { all: [{ field: 'tags', operator: 'contains', value: 'vip' }] }, yes: 'done', no: 'tag' },
        { id: 'tag', type: 'update_contact', add_tags: ['walked'], next: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    let started = performance.now();
    let before = cpu();
    await enrolAll(walk);
    await until("select count(*)::int as n from automation_enrollments where automation_id = $1 and status = 'exited'", [walk], (n) => n === CONTACTS);
    const walkSeconds = (performance.now() - started) / 1000;
    const steps = (await db.query<{ n: number }>('select count(*)::int as n from automation_path where automation_id = $1', [walk])).rows[0].n;
    const stepCpuUs = ((cpu() - before) * 1e6) / steps;

    // Emails: a journey's against a campaign's.
    const mailing = await activate({
      trigger: { type: 'manual' },
      steps: [{ id: 'mail', type: 'send_email', template_id: template.body.id, from_email: 'news@shop.example' }],
    });
    started = performance.now();
    before = cpu();
    await enrolAll(mailing);
    await until("select count(*)::int as n from emails where automation_id = $1 and status = 'delivered'", [mailing], (n) => n === CONTACTS);
    const journeySeconds = (performance.now() - started) / 1000;
    const journeyCpuUs = ((cpu() - before) * 1e6) / CONTACTS;
    const campaign = await api('POST', '/api/campaigns', {
      body: { name: 'reference', subject: 'Hello {{ first_name }}', from_email: 'news@shop.example', content: '<p>Hello {{ email }}</p>' },
    });
    started = performance.now();
    before = cpu();
    await api('POST', `/api/campaigns/${campaign.body.id}/send`);
    while ((await api('GET', `/api/campaigns/${campaign.body.id}`)).body.status === 'sending') await sleep(100);
    const campaignSeconds = (performance.now() - started) / 1000;
    const campaignCpuUs = ((cpu() - before) * 1e6) / CONTACTS;

    // Trigger → relay.
    const triggered = await activate({
      trigger: { type: 'event', name: 'signed_up' },
      steps: [{ id: 'welcome', type: 'send_email', template_id: template.body.id, from_email: 'hello@shop.example' }],
    });
    const contacts = (await db.query<{ id: string }>('select id from contacts where account_id = $1 order by id limit $2', [owner.accountId, TRIGGERS])).rows;
    const posted = new Map<string, number>();
    for (const { id } of contacts) {
      posted.set(id, Date.now());
      await api('POST', `/api/contacts/${id}/events`, { body: { name: 'signed_up' } });
      await sleep(100);
    }
    await until("select count(*)::int as n from emails where automation_id = $1 and status = 'delivered'", [triggered], (n) => n === TRIGGERS);
    const sent = (await db.query<{ contact_id: string; sent_at: Date }>('select contact_id, sent_at from emails where automation_id = $1', [triggered])).rows;
    const latencies = sent.map((r) => r.sent_at.getTime() - posted.get(r.contact_id)!).sort((a, b) => a - b);
    const p95 = latencies[Math.floor(latencies.length * 0.95)];

    const figures = { quiet, waiting, walkSeconds, steps, stepCpuUs, journeySeconds, journeyCpuUs, campaignSeconds, campaignCpuUs, p95 };
    writeFileSync(path.join(dir, 'figures.json'), JSON.stringify(figures, null, 2));
    const pct = (share: number) => `${(share * 100).toFixed(2)} %`;
    const table = [
      `Run: ${runContext()}; one process, SMTP pool of ${POOL}; ${CONTACTS.toLocaleString('en')} contacts per walk.`,
      '',
      '| measure | figure | target |',
      '|---|---|---|',
      `| scheduler, idle, server + PostgreSQL CPU: nothing waiting | ${pct(quiet)} of a core | |`,
      `| scheduler, idle: ${WAITING.toLocaleString('en')} enrolments waiting, none due | ${pct(waiting)} of a core (${waiting > quiet ? `${pct(waiting - quiet)} more` : 'no more'} than nothing waiting) | under 1 % |`,
      `| steps without email (wait PT0S, condition, update_contact, exit) | ${Math.round(steps / walkSeconds).toLocaleString('en')} steps/s, ${Math.round(stepCpuUs)} µs CPU a step | 5,000 steps/s |`,
      `| automation emails delivered ÷ campaign messages delivered, per second | ${(campaignSeconds / journeySeconds).toFixed(2)} (${Math.round(CONTACTS / journeySeconds)} against ${Math.round(CONTACTS / campaignSeconds)}/s) | 1 |`,
      `| CPU per email ÷ campaign's (server + PostgreSQL) | ${(journeyCpuUs / campaignCpuUs).toFixed(2)} | |`,
      `| event posted → first email at the relay, p95 (${TRIGGERS} events, 10 a second) | ${p95} ms | under 2,000 ms |`,
    ].join('\n');
    recordSection('automations', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    relay.stop();
    await db.end();
    await database.stop();
  }
}
