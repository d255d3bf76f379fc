import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../../server/db/embedded.ts';
import { postgresUser, startPostmaster, type Postmaster } from '../../server/db/postmaster.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A Citus coordinator and its workers on loopback, each a PostgreSQL of its own. */
export interface Cluster {
  /** The coordinator's `sendline` database: what DATABASE_URL points at. */
  url: string;
  workerUrls: string[];
  /** The nodes' ports, the coordinator's first. */
  ports: number[];
  stop(): Promise<void>;
}

/** The PostgreSQL with Citus that scripts/ensure-citus.sh builds (once per machine). */
export function citusPostgres(): string {
  return execFileSync('bash', [path.join(ROOT, 'scripts/ensure-citus.sh')], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
}

const USER = 'sendline';

async function startNode(bin: string, dir: string, port: number): Promise<Postmaster> {
  const user = postgresUser();
  mkdirSync(dir, { recursive: true });
  if (user.uid !== undefined) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, path.dirname(dir)]);
  execFileSync(path.join(bin, 'initdb'), ['-D', dir, '-U', USER, '--auth=trust', '--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'], {
    ...user,
    stdio: 'ignore',
  });
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    shared_preload_libraries: 'citus',
    max_connections: '300',
    // Citus runs a maintenance daemon per database: one per test file, with room to spare.
    max_worker_processes: '64',
    // Between the nodes on loopback: libpq then looks for no client certificate (under root's home, closed to postgres).
    'citus.node_conninfo': 'sslmode=disable',
    // A test cluster: nothing here must survive a crash of the machine.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
  };
  const args = ['-D', dir, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  // Under the server's watchdog: a test process that dies leaves no node running.
  return startPostmaster(path.join(bin, 'postgres'), args, () => {});
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

const urlOf = (port: number, database: string) => `postgres://${USER}@127.0.0.1:${port}/${database}`;

/**
 * A database of the cluster on the nodes of `ports` (the coordinator's first): made on each,
 * with the citus extension, and the workers added to the coordinator's. Answers its URL there.
 */
export async function clusterDatabase(ports: number[], name: string): Promise<string> {
  for (const port of ports) {
    await sql(urlOf(port, 'postgres'), [`create database ${name}`]);
    await sql(urlOf(port, name), ['create extension citus']);
  }
  await sql(urlOf(ports[0], name), [
    `select citus_set_coordinator_host('127.0.0.1', ${ports[0]})`,
    ...ports.slice(1).map((port) => `select citus_add_node('127.0.0.1', ${port})`),
  ]);
  return urlOf(ports[0], name);
}

/** Drops a database of `clusterDatabase` on every node, the coordinator's first, closing what is still connected. */
export async function dropClusterDatabase(ports: number[], name: string): Promise<void> {
  for (const port of ports) await sql(urlOf(port, 'postgres'), [`drop database if exists ${name} with (force)`]);
}

/** Starts a coordinator and `workers` workers, each with the `sendline` database and the citus extension, the workers added. */
export async function startCluster(workers = 2): Promise<Cluster> {
  const bin = path.join(citusPostgres(), 'bin');
  const base = mkdtempSync(path.join(tmpdir(), 'sendline-citus-'));
  chmodSync(base, 0o755);
  const ports = await Promise.all(Array.from({ length: workers + 1 }, () => freePort()));
  const nodes = await Promise.all(ports.map((port, i) => startNode(bin, path.join(base, `node${i}`, 'data'), port)));
  try {
    await clusterDatabase(ports, 'sendline');
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw error;
  }
  return {
    url: urlOf(ports[0], 'sendline'),
    workerUrls: ports.slice(1).map((port) => urlOf(port, 'sendline')),
    ports,
    // The nodes' data goes with them: a run's cluster holds several hundred MB.
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
      rmSync(base, { recursive: true, force: true });
    },
  };
}
