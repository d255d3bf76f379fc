/**
 * The send path's MIME builder beside nodemailer's MailComposer, the library it replaces: CPU
 * per campaign-sized message (a 4 KB tracked HTML part, its text part, the send path's headers),
 * in turns in one process.
 */
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { buildMime, type MimeMessage } from '../server/rendering/mime.ts';
import { recordSection, runContext } from './lib.ts';

const MESSAGES = Number(process.env.BENCH_MIME_MESSAGES ?? 5000);
const ROUNDS = 5;
const PARAGRAPH = '<p>A paragraph with a <a href="https://mail.example.com/t/c/WyJjIiwibXNnIiwiMCJd.abc">tracked link</a> and text — ünïcode.</p>';
const html = `<html><body><p>Hello Ada,</p>${PARAGRAPH.repeat(30)}<img src="https://mail.example.com/t/o/WyJvIl0.abc.gif" width="1" height="1" alt=""></body></html>`;
const text = `Hello Ada,\n${'A paragraph with a tracked link [https://mail.example.com/t/c/WyJjIl0.abc] and text — ünïcode.\n'.repeat(30)}`;

const message = (i: number): MimeMessage => ({
  from: { name: 'The Shop', address: 'news@shop.example' },
  to: `ada${i}@example.com`,
  replyTo: null,
  subject: 'Grüße: 50% off this week',
  messageId: `<msg_${i}@shop.example>`,
  date: new Date(),
  headers: {
    'X-Sendline-Message': `msg_${i}`,
    'List-Unsubscribe': '<https://mail.example.com/u/WyJ1Il0.abc>, <mailto:unsubscribe+msg@shop.example>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  text,
  html,
});

function handWritten(): Promise<void> {
  for (let i = 0; i < MESSAGES; i++) buildMime(message(i));
  return Promise.resolve();
}

async function library(): Promise<void> {
  for (let i = 0; i < MESSAGES; i++) {
    const m = message(i);
    await new MailComposer({
      from: { name: m.from.name ?? '', address: m.from.address },
      to: m.to,
      subject: m.subject,
      messageId: m.messageId,
      date: m.date,
      headers: m.headers,
      text: m.text,
      html: m.html,
    })
      .compile()
      .build();
  }
}

async function cpuMicrosPerMessage(work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / MESSAGES;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

export async function mimeBenchmark(): Promise<void> {
  const runs = { handWritten: [] as number[], library: [] as number[] };
  for (const work of [handWritten, library]) await work(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const work of [handWritten, library]) runs[work.name as keyof typeof runs].push(await cpuMicrosPerMessage(work));
  }
  const [ours, theirs] = [median(runs.handWritten), median(runs.library)];
  const markdown = `Run: ${runContext()}; ${MESSAGES.toLocaleString('en')} messages of ${(buildMime(message(0)).length / 1024).toFixed(1)} KB, ${ROUNDS} rounds in turns, medians.

| builder | CPU µs per message |
|---|---|
| hand-written (\`server/rendering/mime.ts\`) | ${ours.toFixed(1)} |
| nodemailer's MailComposer, same message | ${theirs.toFixed(1)} |

The hand-written builder saves **${(theirs - ours).toFixed(0)} µs** of CPU per message.`;
  console.log(markdown);
  recordSection('mime', markdown);
}
