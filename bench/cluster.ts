/**
 * `npm run bench -- cluster`: an import and a campaign send on a Citus coordinator with two
 * workers on loopback, beside the same on one embedded PostgreSQL, in the same run. On one
 * machine the cluster cannot be faster: the figures are its cost per row and per message, what a
 * worker of its own would win back.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { startCluster } from '../test/citus/cluster.ts';
import { newAccount, type TestAccount } from '../test/client.ts';
import { runSendline, spawnServer } from '../test/process.ts';
import { generateContactsCsv } from './generate-contacts.ts';
import { benchPool, cpuSeconds, procStat, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const ROWS = Number(process.env.BENCH_CLUSTER_ROWS ?? 50_000);

/** CPU seconds the whole machine spent (all processes: the server and every PostgreSQL node). */
function machineCpuSeconds(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq] = fields.map(Number);
  return (user + nice + system + irq + softirq) / 100;
}

/** CPU seconds by part: the whole machine, the Sendline server, and each PostgreSQL node (the coordinator first). */
interface Cpu {
  machine: number;
  server: number;
  nodes: number[];
}

interface Figures {
  importSeconds: number;
  importCpu: Cpu;
  /** The campaign's messages: every valid, distinct address of the file. */
  sent: number;
  sendSeconds: number;
  sendCpu: Cpu;
}

/** The postmaster of the PostgreSQL at `url`: the parent of a backend. */
async function postmasterPid(url: string): Promise<number> {
  const pool = benchPool(url);
  try {
    const { rows } = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
    return Number(procStat(rows[0].pid)![3]);
  } finally {
    await pool.end();
  }
}

const cpuNow = (serverPid: number, nodePids: number[]): Cpu => ({
  machine: machineCpuSeconds(),
  server: cpuSeconds(serverPid),
  nodes: nodePids.map(cpuSeconds),
});
const cpuSince = (before: Cpu, serverPid: number, nodePids: number[]): Cpu => {
  const now = cpuNow(serverPid, nodePids);
  return { machine: now.machine - before.machine, server: now.server - before.server, nodes: now.nodes.map((n, i) => n - before.nodes[i]) };
};

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 100));
}

async function importAndSend(databaseUrl: string, nodeUrls: string[], dir: string, csv: string): Promise<Figures> {
  const relay = await spawnListening(['bench/smtp-discard.ts']);
  const server = await spawnServer(
    { DATABASE_URL: databaseUrl, DATA_DIR: dir, ALLOW_SIGNUP: 'true', SMTP_URL: `smtp://127.0.0.1:${relay.port}`, ...serverTuning() },
    { keepOutput: false, timeoutMs: 120_000 },
  );
  try {
    const owner: TestAccount = await newAccount(server.url, 'bench');
    const serverPid = server.proc.pid!;
    const nodePids = await Promise.all(nodeUrls.map(postmasterPid));
    let cpu = cpuNow(serverPid, nodePids);
    let started = performance.now();
    const upload = await owner.api('POST', '/api/contacts/import', { raw: readFileSync(csv, 'utf8'), headers: { 'content-type': 'text/csv' } });
    if (upload.status !== 202) throw new Error(`upload failed: ${upload.status}`);
    await until(async () => (await owner.api('GET', `/api/contacts/import/${upload.body.id}`)).body.status === 'completed');
    const importSeconds = (performance.now() - started) / 1000;
    const importCpu = cpuSince(cpu, serverPid, nodePids);

    const { body: campaign } = await owner.api('POST', '/api/campaigns', {
      body: { name: 'bench', subject: 'Hello {{ first_name }}', from_email: 'news@shop.example', content: '<p>Hi {{ first_name }}</p>' },
    });
    cpu = cpuNow(serverPid, nodePids);
    started = performance.now();
    await owner.api('POST', `/api/campaigns/${campaign.id}/send`);
    let sent = 0;
    await until(async () => {
      const { body } = await owner.api('GET', `/api/campaigns/${campaign.id}`);
      sent = body.stats.sent;
      return body.status === 'completed';
    });
    return { importSeconds, importCpu, sent, sendSeconds: (performance.now() - started) / 1000, sendCpu: cpuSince(cpu, serverPid, nodePids) };
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    relay.stop();
  }
}

export async function clusterBenchmark(): Promise<void> {
  const dir = scratchDir('cluster');
  const csv = path.join(dir, 'contacts.csv');
  await generateContactsCsv(csv, ROWS);

  const single = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  let one: Figures;
  try {
    one = await importAndSend(single.url, [single.url], dir, csv);
  } finally {
    await single.stop();
  }
  const cluster = await startCluster(2);
  let three: Figures;
  try {
    const distributed = await runSendline(['distribute'], { DATABASE_URL: cluster.url });
    if (distributed.code !== 0) throw new Error(distributed.stderr);
    three = await importAndSend(cluster.url, [cluster.url, ...cluster.workerUrls], dir, csv);
  } finally {
    await cluster.stop();
  }

  const micros = (seconds: number, n: number) => ((seconds * 1e6) / n).toFixed(0);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const row = (label: string, what: 'import' | 'send', f: Figures) => {
    const [n, seconds, cpu] = what === 'import' ? [ROWS, f.importSeconds, f.importCpu] : [f.sent, f.sendSeconds, f.sendCpu];
    const [coordinator, ...workers] = cpu.nodes;
    return `| ${label} | ${what} | ${n} | ${Math.round(n / seconds)} | ${micros(cpu.machine, n)} | ${micros(cpu.server, n)} | ${micros(coordinator, n)} | ${workers.length ? micros(sum(workers), n) : '–'} |`;
  };
  const table = [
    `Run: ${runContext()}; ${ROWS.toLocaleString('en')} rows imported, then a campaign to every valid address among them.`,
    '',
    '| database | work | rows or messages | per second | CPU µs each: machine | Sendline | PostgreSQL (coordinator) | workers |',
    '|---|---|---|---|---|---|---|---|',
    row('one PostgreSQL (embedded)', 'import', one),
    row('Citus: a coordinator and two workers', 'import', three),
    row('one PostgreSQL (embedded)', 'send', one),
    row('Citus: a coordinator and two workers', 'send', three),
    '',
    `Cluster / single node: import **${(one.importSeconds / three.importSeconds).toFixed(2)}**, send **${(one.sendSeconds / three.sendSeconds).toFixed(2)}**. ` +
      `Machine CPU added by the cluster: ${micros(three.importCpu.machine - one.importCpu.machine, ROWS)} µs per row, ${micros(three.sendCpu.machine - one.sendCpu.machine, three.sent)} µs per message.`,
  ].join('\n');
  recordSection('cluster', table);
  console.log(table);
}
