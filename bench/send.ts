/**
 * One personalised campaign with 5 links to 100,000 contacts, through a relay that discards
 * (its own process), from `send` to `completed`; against nodemailer alone sending as many
 * pre-rendered messages to the same relay, in the same run; and against the SMTP pool Sendline
 * sends through (nodemailer's SMTPConnection without its Mailer) alone.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { buildMime } from '../server/sending/mime.ts';
import { SmtpPool } from '../server/sending/smtp-pool.ts';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { peakRssMb, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const CONTACTS = Number(process.env.BENCH_SEND_CONTACTS ?? 100_000);
const POOL = 10;

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

/** Messages/s of `count` sends to distinct recipients, `POOL` at a time. */
async function rate(count: number, send: (to: string) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: POOL }, async () => {
      while (next < count) await send(`person${next++}@inbox.example`);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/**
 * The transport alone, same relay and pool: nodemailer composing each message from pre-rendered
 * parts, or (`raw`) sending a message already composed, with only the recipient changed.
 */
async function nodemailerAlone(port: number, count: number, raw: boolean): Promise<number> {
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
async function smtpPoolAlone(port: number, count: number): Promise<number> {
  const pool = new SmtpPool(`smtp://127.0.0.1:${port}`, POOL, null);
  const result = await rate(count, (to) => pool.send({ from: 'news@shop.example', to }, composed.replace('RECIPIENT', to)));
  pool.close();
  return result;
}

export async function sendBenchmark(): Promise<void> {
  const dir = scratchDir('send');
  const relay = await spawnListening(['bench/smtp-discard.ts']);
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    {
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      ALLOW_SIGNUP: 'true',
      SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
      SMTP_POOL_SIZE: String(POOL),
      SEND_BATCH_SIZE: '500',
      SEND_WORKERS_PER_CAMPAIGN: process.env.BENCH_SEND_WORKERS ?? '2',
      ...(process.env.BENCH_SEND_THREADS ? { SEND_THREADS: process.env.BENCH_SEND_THREADS } : {}),
      ...serverTuning(),
    },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  try {
    const owner = await newAccount(server.url, 'bench');
    const auth = { authorization: `Bearer ${owner.token}` };
    const csv = path.join(dir, 'contacts.csv');
    writeFileSync(
      csv,
      'email,first_name,plan\n' + Array.from({ length: CONTACTS }, (_, i) => `person${i}@inbox.example,Person${i},${i % 2 ? 'pro' : 'free'}`).join('\n') + '\n',
    );
    const upload = await fetch(`${server.url}/api/contacts/import`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/csv' },
      body: await import('node:fs').then((fs) => fs.readFileSync(csv)),
    });
    const imp = (await upload.json()) as { id: string };
    for (;;) {
      const state = (await (await fetch(`${server.url}/api/contacts/import/${imp.id}`, { headers: auth })).json()) as { status: string };
      if (state.status === 'completed') break;
      if (state.status === 'failed') throw new Error('import failed');
      await new Promise((r) => setTimeout(r, 200));
    }
    const created = await fetch(`${server.url}/api/campaigns`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', subject: 'Hello {{ first_name }}', from_email: 'news@shop.example', content: CONTENT }),
    });
    const campaign = (await created.json()) as { id: string };
    const started = performance.now();
    await fetch(`${server.url}/api/campaigns/${campaign.id}/send`, { method: 'POST', headers: auth });
    let final: any;
    for (;;) {
      final = await (await fetch(`${server.url}/api/campaigns/${campaign.id}`, { headers: auth })).json();
      if (final.status !== 'sending') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const rss = peakRssMb(server.proc.pid!);
    if (final.status !== 'completed' || final.stats.sent !== CONTACTS) throw new Error(`campaign ended ${final.status} with ${JSON.stringify(final.stats)}`);
    const rate = CONTACTS / seconds;
    const composing = await nodemailerAlone(relay.port, CONTACTS, false);
    const baseline = await nodemailerAlone(relay.port, CONTACTS, true);
    const poolAlone = await smtpPoolAlone(relay.port, CONTACTS);
    const table = [
      `Run: ${runContext()}; ${CONTACTS.toLocaleString('en')} recipients, SMTP pool of ${POOL}, batches of 500, one process.`,
      '',
      '| path | messages/s |',
      '|---|---|',
      `| Sendline: \`send\` → \`completed\` (render, track 5 links, send, record, events) | ${Math.round(rate)} |`,
      `| nodemailer alone, composing pre-rendered parts, same relay | ${Math.round(composing)} |`,
      `| nodemailer alone, sending one pre-built message (the baseline) | ${Math.round(baseline)} |`,
      `| Sendline's SMTP pool alone (nodemailer's SMTPConnection), same pre-built message | ${Math.round(poolAlone)} |`,
      '',
      `Ratio Sendline / transport (nodemailer, pre-built messages): **${(rate / baseline).toFixed(2)}**; against nodemailer composing pre-rendered parts: ${(rate / composing).toFixed(2)}; against Sendline's SMTP pool alone: ${(rate / poolAlone).toFixed(2)}. Wall time ${seconds.toFixed(1)} s. Server peak RSS: **${rss} MB**.`,
    ].join('\n');
    recordSection('send', table);
    console.log(table);
  } catch (error) {
    if (process.env.BENCH_DEBUG) console.error(server.output());
    throw error;
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    relay.stop();
    await database.stop();
  }
}
