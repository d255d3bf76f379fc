/**
 * The two profiles (`SENDLINE_PROFILE`) side by side, each on its own embedded PostgreSQL as `npm
 * start` runs it: a million-contact CSV import, then a campaign to 100,000 of them over a relay
 * that discards. Memory is sampled every 100 ms over every process of the server's tree (node
 * and its threads, the postmaster's watchdog, the postmaster and its backends): the sum of their
 * RSS (which counts each shared page once per process that touched it: PostgreSQL's shared
 * buffers many times over) and of their PSS (each shared page split among its processes: what the
 * machine gives them in all).
 */
import { createReadStream, createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { Readable } from 'node:stream';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { procStat, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const ROWS = Number(process.env.BENCH_PROFILE_ROWS ?? 1_000_000);
const RECIPIENTS = Number(process.env.BENCH_PROFILE_RECIPIENTS ?? 100_000);
const SAMPLE_MS = 100;

/** The first `RECIPIENTS` rows are tagged `send`: the campaign's audience. */
async function writeCsv(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('email,first_name,city,tags\n');
  let chunk = '';
  for (let i = 0; i < ROWS; i++) {
    chunk += `person${i}@inbox${i % 97}.example,Person${i},City${i % 500},${i < RECIPIENTS ? 'send' : 'other'}\n`;
    if (chunk.length > 64 * 1024) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/** kB of a field of /proc/<pid>/status or smaps_rollup; 0 once the process is gone. */
function kb(file: string, field: string): number {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** `root` and every process descending from it. */
function tree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const fields = /^\d+$/.test(entry) ? procStat(Number(entry)) : null;
    if (fields) parent.set(Number(entry), Number(fields[3]));
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, ppid] of parent) if (ppid === found[i]) found.push(pid);
  return found;
}

interface Peak {
  rssMb: number;
  pssMb: number;
  serverRssMb: number;
  postgresPssMb: number;
}

/** Samples the tree's memory until `stop` is called; answers the peaks. */
function sampleMemory(root: number): { stop: () => Peak } {
  const peak: Peak = { rssMb: 0, pssMb: 0, serverRssMb: 0, postgresPssMb: 0 };
  const timer = setInterval(() => {
    let [rss, pss, postgres] = [0, 0, 0];
    for (const pid of tree(root)) {
      rss += kb(`/proc/${pid}/status`, 'VmRSS');
      const share = kb(`/proc/${pid}/smaps_rollup`, 'Pss');
      pss += share;
      if (pid !== root) postgres += share;
    }
    peak.rssMb = Math.max(peak.rssMb, rss / 1024);
    peak.pssMb = Math.max(peak.pssMb, pss / 1024);
    peak.serverRssMb = Math.max(peak.serverRssMb, kb(`/proc/${root}/status`, 'VmRSS') / 1024);
    peak.postgresPssMb = Math.max(peak.postgresPssMb, postgres / 1024);
  }, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

interface ProfileRun {
  profile: string;
  importSeconds: number;
  sendSeconds: number;
  importPeak: Peak;
  sendPeak: Peak;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 200));
}

async function profileRun(profile: string, csv: string, relayPort: number): Promise<ProfileRun> {
  const dir = scratchDir(`profile-${profile}`);
  const server = await spawnServer(
    {
      DATA_DIR: dir,
      ALLOW_SIGNUP: 'true',
      SENDLINE_PROFILE: profile,
      SMTP_URL: `smtp://127.0.0.1:${relayPort}`,
      IMPORT_MAX_BYTES: String(200 * 1024 * 1024),
      ...serverTuning(),
    },
    { keepOutput: false, timeoutMs: 120_000 },
  );
  try {
    const owner = await newAccount(server.url, 'bench');
    const auth = { authorization: `Bearer ${owner.token}` };
    const get = async (route: string) => (await (await fetch(`${server.url}${route}`, { headers: auth })).json()) as Record<string, unknown>;

    let memory = sampleMemory(server.proc.pid!);
    let started = performance.now();
    const upload = await fetch(`${server.url}/api/contacts/import`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/csv' },
      body: Readable.toWeb(createReadStream(csv)),
      duplex: 'half',
    });
    const { id } = (await upload.json()) as { id: string };
    await until(async () => {
      const { status } = await get(`/api/contacts/import/${id}`);
      if (status === 'failed') throw new Error('the import failed');
      return status === 'completed';
    });
    const importSeconds = (performance.now() - started) / 1000;
    const importPeak = memory.stop();

    const created = await fetch(`${server.url}/api/campaigns`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Bench',
        subject: 'Hi {{ first_name }}',
        from_email: 'news@shop.example',
        content: '<p>Hi {{ first_name }}</p>',
        audience: { tags_any: ['send'] },
      }),
    });
    const campaign = (await created.json()) as { id: string };
    memory = sampleMemory(server.proc.pid!);
    started = performance.now();
    await fetch(`${server.url}/api/campaigns/${campaign.id}/send`, { method: 'POST', headers: auth });
    await until(async () => {
      const { status, stats } = await get(`/api/campaigns/${campaign.id}`);
      if (status === 'failed' || status === 'cancelled') throw new Error(`the campaign ended ${String(status)}`);
      if (status === 'completed' && (stats as { sent: number }).sent !== RECIPIENTS) throw new Error(`sent ${JSON.stringify(stats)}`);
      return status === 'completed';
    });
    const sendSeconds = (performance.now() - started) / 1000;
    return { profile, importSeconds, sendSeconds, importPeak, sendPeak: memory.stop() };
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
  }
}

const mb = (value: number) => String(Math.round(value));

export async function profilesBenchmark(): Promise<void> {
  const dir = scratchDir('profiles');
  const csv = path.join(dir, 'contacts.csv');
  await writeCsv(csv);
  const relay = await spawnListening(['bench/smtp-discard.ts']);
  const runs: ProfileRun[] = [];
  try {
    for (const profile of ['default', 'small']) {
      const run = await profileRun(profile, csv, relay.port);
      console.log(JSON.stringify(run));
      runs.push(run);
    }
  } finally {
    relay.stop();
  }
  const [base, small] = runs;
  const rows = runs.map((r) =>
    [
      r.profile,
      String(Math.round(ROWS / r.importSeconds)),
      mb(r.importPeak.pssMb),
      mb(r.importPeak.rssMb),
      mb(r.importPeak.serverRssMb),
      mb(r.importPeak.postgresPssMb),
      String(Math.round(RECIPIENTS / r.sendSeconds)),
      mb(r.sendPeak.pssMb),
      mb(r.sendPeak.rssMb),
      mb(r.sendPeak.serverRssMb),
      mb(r.sendPeak.postgresPssMb),
    ].join(' | '),
  );
  recordSection(
    'profiles',
    `Run ${runContext()}: ${ROWS.toLocaleString('en')} contacts imported, then a campaign to ${RECIPIENTS.toLocaleString('en')} of them.

| profile | import rows/s | import peak PSS, all MB | RSS, all | server RSS | PostgreSQL PSS | send messages/s | send peak PSS, all MB | RSS, all | server RSS | PostgreSQL PSS |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.map((r) => `| ${r} |`).join('\n')}

Ratios small / default: import **${(base.importSeconds / small.importSeconds).toFixed(2)}**, send **${(base.sendSeconds / small.sendSeconds).toFixed(2)}**.`,
  );
}
