/**
 * One personalised campaign with 5 links, to 20,000 and then 100,000 contacts (each size on a
 * fresh server and database), through a relay that discards (its own process), from `send` to
 * `completed`: messages/s, start → first message at the relay, the server's and PostgreSQL's CPU
 * per message, the server's peak RSS, and PostgreSQL's time per statement of the send path
 * (pg_stat_statements). Against, in the same run: nodemailer alone sending as many messages to
 * the same relay, and the SMTP pool Sendline sends through (nodemailer's SMTPConnection without
 * its Mailer) alone. `BENCH_SEND_PROFILE=1` profiles the server (`--cpu-prof`) and records
 * where its CPU went, by stage.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { buildMime } from '../server/rendering/mime.ts';
import { SmtpPool } from '../server/sending/smtp-pool.ts';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { SEND_STAGES, stagesOf } from './cpu-stages.ts';
import { benchPool, childPostgresPid, cpuSeconds, peakRssMb, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const SIZES = (process.env.BENCH_SEND_CONTACTS ?? '20000,100000').split(',').map(Number);
/** `1`, or a folder to keep the profiles in (one per size). */
const PROFILE = process.env.BENCH_SEND_PROFILE;
const POOL = 10;
const BATCH = 500;
const BASELINE_MESSAGES = 20_000;

const CONTENT = `<html><body><h1>Hello {{ first_name | default: "there" }}</h1>
<p>Your {{ plan }} plan renews soon. Here is what is new this month.</p>
${[1, 2, 3, 4, 5].map((n) => `<p><a href="https://shop.example/item/${n}?ref={{ email | url_encode }}">Item ${n}</a></p>`).join('\n')}
<p>See you soon.</p></body></html>`;

const html = CONTENT.replace(/\{\{[^}]*\}\}/g, 'x');
const composed = buildMime({
  from: { name: null, address: 'news@shop.example' },
  to: 'RECIPIENT',
  replyTo: null,
  subject: 'Hello',
  messageId: '<bench@shop.example>',
  date: new Date(),
  headers: {},
  text: 'Hello x',
  html,
});

/** Messages/s of `count` sends to distinct recipients, `POOL` at a time, and this process's CPU µs per message. */
async function rate(count: number, send: (to: string) => Promise<unknown>): Promise<{ perSecond: number; cpu: number }> {
  const [started, cpu] = [performance.now(), process.cpuUsage()];
  let next = 0;
  await Promise.all(
    Array.from({ length: POOL }, async () => {
      while (next < count) await send(`person${next++}@inbox.example`);
    }),
  );
  const used = process.cpuUsage(cpu);
  return { perSecond: count / ((performance.now() - started) / 1000), cpu: (used.user + used.system) / count };
}

/**
 * The transport alone, same relay and pool: nodemailer composing each message from pre-rendered
 * parts, or (`raw`) sending a message already composed, with only the recipient changed.
 */
async function nodemailerAlone(port: number, count: number, raw: boolean) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, pool: true, maxConnections: POOL, maxMessages: Infinity });
  const result = await rate(count, (to) =>
    raw
      ? transport.sendMail({ envelope: { from: 'news@shop.example', to }, raw: composed.replace('RECIPIENT', to) })
      : transport.sendMail({ from: 'news@shop.example', to, subject: 'Hello', html, text: 'Hello x' }),
  );
  transport.close();
  return result;
}

/** Sendline's own SMTP pool alone, sending the pre-built message: the limit of the path it uses. */
async function smtpPoolAlone(port: number, count: number) {
  const pool = new SmtpPool(`smtp://127.0.0.1:${port}`, POOL);
  const result = await rate(count, (to) => pool.send({ from: 'news@shop.example', to }, composed.replace('RECIPIENT', to)));
  pool.close();
  return result;
}

/** Statements of the send path, by what they do: [stage, test of the statement's text]. */
const STATEMENT_STAGES: [string, RegExp][] = [
  ['audience count (in the `send` request)', /select count\(\*\)::int as n from contacts c/],
  ['take the next piece (contacts)', /select c.id, c.email, c.created_at/],
  ['write messages with outcomes', /insert into messages \(id, account_id, campaign_id, contact_id, email, status, reason/],
  ['audience cursor, pieces', /campaign_audience/],
  ['claim (retries)', /with claimed as/],
  ['record outcomes (retries)', /update messages m set status = u\.status/],
  ['events', /insert into events|copy events|from unnest\(\$2::text\[\]\) as t\(type\)/i],
  ['counters, rollups', /campaign_hourly|campaign_domains|update "campaigns" set "sent"/],
  ['status check', /select "status" from "campaigns"/],
  ['begin, commit, set local', /^(begin|commit|set local)/i],
];

interface StatementStats {
  query: string;
  calls: string;
  ms: number;
}

interface SizeRun {
  contacts: number;
  perSecond: number;
  seconds: number;
  firstMs: number;
  /** A campaign's start → first message when the send starts the sending threads. */
  coldFirstMs: number;
  cpu: { server: number; postgres: number };
  rss: number;
  statements: Map<string, { calls: number; ms: number }>;
  stages: Map<string, number> | null;
}

/** A database with pg_stat_statements loaded (it needs a restart). */
async function databaseWithStatements(dir: string) {
  const log = createLogger('warn');
  const first = await startEmbeddedDatabase(dir, 'bench', log);
  const pool = benchPool(first.url);
  await pool.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
  await pool.end();
  await first.stop();
  const database = await startEmbeddedDatabase(dir, 'bench', log);
  const stats = benchPool(database.url);
  await stats.query('create extension if not exists pg_stat_statements');
  return { database, stats };
}

async function sendRun(contacts: number): Promise<SizeRun> {
  const dir = scratchDir('send');
  const firstFile = path.join(dir, 'first-message');
  writeFileSync(firstFile, '');
  const relay = await spawnListening(['bench/smtp-discard.ts', firstFile]);
  const { database, stats } = await databaseWithStatements(dir);
  const profileDir = PROFILE && PROFILE !== '1' ? path.join(PROFILE, String(contacts)) : path.join(dir, 'profile');
  if (PROFILE) mkdirSync(profileDir, { recursive: true });
  const tuning = serverTuning();
  if (PROFILE) tuning.NODE_OPTIONS = `${tuning.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${profileDir}`.trim();
  const server = await spawnServer(
    {
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      ALLOW_SIGNUP: 'true',
      SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
      SMTP_POOL_SIZE: String(POOL),
      SEND_BATCH_SIZE: String(BATCH),
      SEND_WORKERS_PER_CAMPAIGN: process.env.BENCH_SEND_WORKERS ?? '2',
      ...(process.env.BENCH_SEND_THREADS ? { SEND_THREADS: process.env.BENCH_SEND_THREADS } : {}),
      ...tuning,
    },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  try {
    const owner = await newAccount(server.url, 'bench');
    const auth = { authorization: `Bearer ${owner.token}` };
    const csv =
      'email,first_name,plan\n' + Array.from({ length: contacts }, (_, i) => `person${i}@inbox.example,Person${i},${i % 2 ? 'pro' : 'free'}`).join('\n') + '\n';
    const upload = await fetch(`${server.url}/api/contacts/import`, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body: csv });
    const imp = (await upload.json()) as { id: string };
    for (;;) {
      const state = (await (await fetch(`${server.url}/api/contacts/import/${imp.id}`, { headers: auth })).json()) as { status: string };
      if (state.status === 'completed') break;
      if (state.status === 'failed') throw new Error('import failed');
      await new Promise((r) => setTimeout(r, 200));
    }
    await stats.query('analyze');
    // A campaign to one contact first: its first message times a send that starts the sending
    // threads; the measured campaign then starts with them running, as on a server that sends.
    const api = async (method: string, route: string, body?: unknown) =>
      (await (
        await fetch(`${server.url}/api${route}`, {
          method,
          headers: { ...auth, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json()) as { id: string; status: string; data: { id: string }[] };
    const [one] = (await api('GET', '/contacts?limit=1')).data;
    await api('PATCH', `/contacts/${one.id}`, { tags: ['first'] });
    const warmUp = await api('POST', '/campaigns', {
      name: 'first',
      subject: 'Hello',
      from_email: 'news@shop.example',
      content: CONTENT,
      audience: { tags_any: ['first'] },
    });
    const coldStartedAt = Date.now();
    await api('POST', `/campaigns/${warmUp.id}/send`);
    while ((await api('GET', `/campaigns/${warmUp.id}`)).status === 'sending') await new Promise((r) => setTimeout(r, 20));
    const coldFirstMs = Number(readFileSync(firstFile, 'utf8')) - coldStartedAt;
    writeFileSync(firstFile, '');
    process.kill(relay.pid, 'SIGUSR2');
    await new Promise((r) => setTimeout(r, 100));
    const created = await fetch(`${server.url}/api/campaigns`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', subject: 'Hello {{ first_name }}', from_email: 'news@shop.example', content: CONTENT }),
    });
    const campaign = (await created.json()) as { id: string };
    const postgres = childPostgresPid();
    await stats.query('select pg_stat_statements_reset()');
    resetPeakRss(server.proc.pid!);
    const before = { server: cpuSeconds(server.proc.pid!), postgres: cpuSeconds(postgres) };
    const [started, startedAt, from] = [performance.now(), Date.now(), Number(process.hrtime.bigint() / 1000n)];
    await fetch(`${server.url}/api/campaigns/${campaign.id}/send`, { method: 'POST', headers: auth });
    let final: { status: string; stats: { sent: number } };
    for (;;) {
      final = (await (await fetch(`${server.url}/api/campaigns/${campaign.id}`, { headers: auth })).json()) as typeof final;
      if (final.status !== 'sending') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const to = Number(process.hrtime.bigint() / 1000n);
    const cpu = { server: cpuSeconds(server.proc.pid!) - before.server, postgres: cpuSeconds(postgres) - before.postgres };
    const rss = peakRssMb(server.proc.pid!);
    if (final.status !== 'completed' || final.stats.sent !== contacts) {
      const { rows } = await stats.query<{ status: string; reason: string | null }>(
        `select status, reason from messages where status not in ('delivered', 'queued') limit 5`,
      );
      throw new Error(`campaign ended ${final.status} with ${JSON.stringify(final.stats)}; for example ${JSON.stringify(rows)}`);
    }
    const { rows } = await stats.query<StatementStats>(
      `select query, calls::text, total_exec_time + total_plan_time as ms from pg_stat_statements where query not like '%pg_stat_statements%'`,
    );
    if (process.env.BENCH_DEBUG)
      for (const row of [...rows].sort((a, b) => b.ms - a.ms).slice(0, 12))
        console.log(row.calls, Math.round(row.ms), row.query.replace(/\s+/g, ' ').slice(0, 300));
    const statements = new Map<string, { calls: number; ms: number }>();
    for (const row of rows) {
      const stage = STATEMENT_STAGES.find(([, test]) => test.test(row.query.trim()))?.[0] ?? 'other statements (API, jobs, completion)';
      const entry = statements.get(stage) ?? { calls: 0, ms: 0 };
      statements.set(stage, { calls: entry.calls + Number(row.calls), ms: entry.ms + row.ms });
    }
    server.proc.kill('SIGTERM');
    await server.exited;
    return {
      contacts,
      perSecond: contacts / seconds,
      seconds,
      firstMs: Number(readFileSync(firstFile, 'utf8')) - startedAt,
      coldFirstMs,
      cpu: { server: (cpu.server * 1e6) / contacts, postgres: (cpu.postgres * 1e6) / contacts },
      rss,
      statements,
      stages: PROFILE ? stagesOf(profileDir, SEND_STAGES, { from, to }).total : null,
    };
  } catch (error) {
    if (process.env.BENCH_DEBUG) console.error(server.output());
    throw error;
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    relay.stop();
    await stats.end();
    await database.stop();
  }
}

/** Starts the process's peak RSS (VmHWM) afresh (Linux), so that it tells of the send alone, not of the import before it. */
const resetPeakRss = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

const us = (n: number) => Math.round(n).toLocaleString('en');

export async function sendBenchmark(): Promise<void> {
  const runs: SizeRun[] = [];
  for (const size of SIZES) runs.push(await sendRun(size));
  const relay = await spawnListening(['bench/smtp-discard.ts']);
  const composing = await nodemailerAlone(relay.port, BASELINE_MESSAGES, false);
  const baseline = await nodemailerAlone(relay.port, BASELINE_MESSAGES, true);
  const poolAlone = await smtpPoolAlone(relay.port, BASELINE_MESSAGES);
  relay.stop();
  const largest = runs.at(-1)!;
  const stageNames = [...new Set(runs.flatMap((r) => [...r.statements.keys()]))];
  const table = [
    `Run: ${runContext()}; SMTP pool of ${POOL}, batches of ${BATCH}, one process${PROFILE ? ', profiled (`--cpu-prof`: slower than unprofiled)' : ''}.`,
    '',
    '| recipients | messages/s | wall s | start → first message, ms: threads running | threads started by the send | CPU µs per message: server | PostgreSQL | together | server peak RSS, MB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.contacts.toLocaleString('en')} | ${Math.round(r.perSecond)} | ${r.seconds.toFixed(1)} | ${r.firstMs} | ${r.coldFirstMs} | ${us(r.cpu.server)} | ${us(r.cpu.postgres)} | **${us(r.cpu.server + r.cpu.postgres)}** | ${r.rss} |`,
    ),
    '',
    `Baselines, same relay, ${BASELINE_MESSAGES.toLocaleString('en')} messages, ${POOL} connections, from the harness:`,
    '',
    '| path | messages/s | client CPU µs per message |',
    '|---|---|---|',
    `| nodemailer alone, composing pre-rendered parts | ${Math.round(composing.perSecond)} | ${us(composing.cpu)} |`,
    `| nodemailer alone, sending one pre-built message | ${Math.round(baseline.perSecond)} | ${us(baseline.cpu)} |`,
    `| Sendline's SMTP pool alone (nodemailer's SMTPConnection), same pre-built message | ${Math.round(poolAlone.perSecond)} | ${us(poolAlone.cpu)} |`,
    '',
    `Ratio Sendline (${largest.contacts.toLocaleString('en')}) / nodemailer sending pre-built messages: **${(largest.perSecond / baseline.perSecond).toFixed(2)}**; / Sendline's SMTP pool alone: ${(largest.perSecond / poolAlone.perSecond).toFixed(2)}.`,
    '',
    "PostgreSQL's time in the send path's statements (pg_stat_statements: planning and execution, wall µs per message):",
    '',
    `| statements | ${runs.map((r) => `${r.contacts.toLocaleString('en')}: calls | µs per message`).join(' | ')} |`,
    `|---|${runs.map(() => '---|---').join('|')}|`,
    ...stageNames.map(
      (s) =>
        `| ${s} | ${runs
          .map((r) => {
            const e = r.statements.get(s);
            return e
              ? `${e.calls.toLocaleString('en')} | ${(e.ms * 1000) / r.contacts < 10 ? ((e.ms * 1000) / r.contacts).toFixed(1) : us((e.ms * 1000) / r.contacts)}`
              : '– | –';
          })
          .join(' | ')} |`,
    ),
    ...(largest.stages ? ['', ...stagesTable(largest)] : []),
  ].join('\n');
  recordSection('send', table);
  console.log(table);
}

/** The server's CPU per message by stage, from the profile's shares of the measured CPU. */
function stagesTable(run: SizeRun): string[] {
  const stages = [...run.stages!].sort((a, b) => b[1] - a[1]);
  const sampled = stages.reduce((sum, [, ms]) => sum + ms, 0);
  return [
    `The server's CPU by stage (${run.contacts.toLocaleString('en')} recipients; share of the profiles' samples × the CPU measured):`,
    '',
    '| stage | share | CPU µs per message |',
    '|---|---|---|',
    ...stages.map(([stage, ms]) => `| ${stage} | ${((ms / sampled) * 100).toFixed(1)} % | ${us((ms / sampled) * run.cpu.server)} |`),
  ];
}
