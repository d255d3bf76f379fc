import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { create, extract } from 'tar';
import type { Config } from '../config.ts';
import { ConfigError } from '../config-error.ts';
import { LEGACY_KEY_ID } from '../secrets/key-ring.ts';
import { dumpDatabase, restoreDatabase } from '../db/pg-tools.ts';
import { KNOWN_MIGRATIONS, readSchemaState } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { VERSION } from '../version.ts';
import { databaseOf } from './database.ts';

/**
 * A backup is one gzipped tar: this manifest, `database.sql` (pg_dump's plain SQL, readable and
 * restorable with psql on any PostgreSQL 18) and `data-dir/` (the secrets DATA_DIR held).
 */
const MANIFEST = 'sendline-backup.json';
const FORMAT = 1;

interface Manifest {
  format: number;
  version: string;
  created_at: string;
  migrations: string[];
  secrets: string[];
}

/**
 * DATA_DIR's files other than these are secrets (the JWT secret, and any a later release adds):
 * the embedded cluster is in the dump, its password belongs to the cluster it was made for, and
 * captured mail is no state.
 */
const NOT_SECRETS = new Set(['pg', 'pg-password', 'pg-owner.pid', 'outbox']);

export function secretsOf(dataDir: string): string[] {
  return readdirSync(dataDir).filter((name) => !NOT_SECRETS.has(name) && lstatSync(path.join(dataDir, name)).isFile());
}

function oneFile(args: string[], usage: string, options: { replace?: { type: 'boolean' } } = {}) {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  if (positionals.length !== 1) throw new ConfigError(`usage: ${usage}`);
  return { file: path.resolve(positionals[0]), replace: Boolean((values as { replace?: boolean }).replace) };
}

async function withStaging<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-backup-'));
  try {
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function schemaOf(url: string) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const state = await readSchemaState(db);
    const {
      rows: [{ tables }],
    } = await db.query<{ tables: number }>("select count(*)::int as tables from pg_tables where schemaname = 'public'");
    return { ...state, tables };
  } finally {
    await db.end();
  }
}

/** `sendline backup FILE`: the database (embedded or DATABASE_URL) and DATA_DIR's secrets, in one file. */
export async function backupCommand(args: string[], config: Config, log: Logger): Promise<number> {
  const { file } = oneFile(args, 'bin/sendline backup FILE');
  const database = await databaseOf(config, log);
  try {
    await withStaging(async (staging) => {
      await dumpDatabase(database.url, path.join(staging, 'database.sql'), config.pgBin);
      const { applied } = await schemaOf(database.url);
      const secrets = secretsOf(config.dataDir);
      mkdirSync(path.join(staging, 'data-dir'), { mode: 0o700 });
      for (const name of secrets) copyFileSync(path.join(config.dataDir, name), path.join(staging, 'data-dir', name));
      const manifest: Manifest = { format: FORMAT, version: VERSION, created_at: new Date().toISOString(), migrations: applied, secrets };
      writeFileSync(path.join(staging, MANIFEST), JSON.stringify(manifest, null, 2) + '\n');
      // Written beside the target and renamed: a backup that stopped half-way is never taken for one.
      const partial = `${file}.partial`;
      // Made owner-only before the dump goes in, and removed if writing it fails.
      writeFileSync(partial, '', { mode: 0o600 });
      try {
        await create({ gzip: true, file: partial, cwd: staging, portable: true }, [MANIFEST, 'database.sql', 'data-dir']);
      } catch (error) {
        rmSync(partial, { force: true });
        throw error;
      }
      renameSync(partial, file);
      console.log(`Backed up the database (${applied.length} migrations applied) and DATA_DIR's ${secrets.join(', ') || 'nothing'} to ${file}.`);
    });
    // Without the file, the secret came from JWT_SECRET (the configuration writes the file otherwise).
    if (!secretsOf(config.dataDir).includes('jwt-secret'))
      console.error('JWT_SECRET is set in the environment, not kept in DATA_DIR: keep it with this backup.');
    // A ring not kept in DATA_DIR with a key of its own (not just JWT_SECRET's legacy one) came from SECRET_KEYS.
    const ringInEnvironment =
      !config.generatedSecrets.some((secret) => secret.name === 'SECRET_KEYS') && config.secretKeys.some((key) => key.id !== LEGACY_KEY_ID);
    if (ringInEnvironment) console.error('SECRET_KEYS is set in the environment, not kept in DATA_DIR: keep it with this backup.');
    return 0;
  } finally {
    await database.stop();
  }
}

/**
 * `sendline restore FILE [--replace]`: into an empty database (with --replace, whatever the
 * public schema held is dropped in the restore's transaction) and DATA_DIR. Stop the servers first.
 * `secretsBefore`: the files DATA_DIR held before the configuration was loaded.
 */
export async function restoreCommand(args: string[], config: Config, log: Logger, secretsBefore: Set<string>): Promise<number> {
  const { file, replace } = oneFile(args, 'bin/sendline restore FILE [--replace]', { replace: { type: 'boolean' } });
  if (!existsSync(file)) throw new ConfigError(`${file} does not exist`);
  // The configuration reads (or writes) DATA_DIR/jwt-secret unless JWT_SECRET is set.
  const jwtFile = path.join(config.dataDir, 'jwt-secret');
  const jwtFromEnvironment = !existsSync(jwtFile) || readFileSync(jwtFile, 'utf8').trim() !== config.jwtSecret;
  return withStaging(async (staging) => {
    await extract({ file, cwd: staging, strict: true });
    const manifestPath = path.join(staging, MANIFEST);
    if (!existsSync(manifestPath)) throw new ConfigError(`${file} is not a Sendline backup (no ${MANIFEST})`);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
    if (manifest.format !== FORMAT) throw new ConfigError(`${file} is a backup of format ${manifest.format}; this Sendline reads format ${FORMAT}`);
    const unknown = manifest.migrations.filter((name) => !KNOWN_MIGRATIONS.includes(name));
    if (unknown.length) {
      throw new ConfigError(
        `${file} was taken by Sendline ${manifest.version}, whose schema this version (${VERSION}) does not know (${unknown.join(', ')}): restore it with that release or a later one.`,
      );
    }
    // Names from the archive: plain files it holds, never a path out of DATA_DIR nor the database's own files.
    const stagedDir = path.join(staging, 'data-dir');
    const stagedSecrets = new Set(existsSync(stagedDir) ? secretsOf(stagedDir) : []);
    const foreign = manifest.secrets.filter((name) => !stagedSecrets.has(name) || name !== path.basename(name));
    if (foreign.length) throw new ConfigError(`${file} names DATA_DIR files it does not hold as plain files: ${foreign.join(', ')}`);
    for (const name of manifest.secrets) {
      const target = path.join(config.dataDir, name);
      // A secret the configuration generated just now (DATA_DIR was new) is no secret to keep.
      const differs = secretsBefore.has(name) && readFileSync(target, 'utf8') !== readFileSync(path.join(staging, 'data-dir', name), 'utf8');
      if (differs && !replace) throw new ConfigError(`DATA_DIR already holds a different ${name}; --replace overwrites it`);
    }
    const database = await databaseOf(config, log);
    try {
      const { tables } = await schemaOf(database.url);
      if (tables && !replace)
        throw new ConfigError(`The database is not empty (${tables} tables): restore into an empty one, or pass --replace to drop what it holds`);
      await restoreDatabase(database.url, path.join(staging, 'database.sql'), { replace, pgBin: config.pgBin });
    } finally {
      await database.stop();
    }
    for (const name of manifest.secrets) {
      copyFileSync(path.join(staging, 'data-dir', name), path.join(config.dataDir, name));
      chmodSync(path.join(config.dataDir, name), 0o600);
    }
    // A backup from before key rings keyed its links from its jwt-secret: the ring the configuration
    // generated just now would not hold it, while the next start generates one that pins it as legacy.
    if (!manifest.secrets.includes('secret-keys') && !secretsBefore.has('secret-keys')) rmSync(path.join(config.dataDir, 'secret-keys'), { force: true });
    console.log(
      `Restored the backup Sendline ${manifest.version} took at ${manifest.created_at} (${manifest.migrations.length} migrations applied) and DATA_DIR's ${manifest.secrets.join(', ') || 'nothing'}. Migrations of this version apply when the server starts.`,
    );
    const restoredSecret = manifest.secrets.includes('jwt-secret') && readFileSync(path.join(config.dataDir, 'jwt-secret'), 'utf8').trim();
    if (jwtFromEnvironment && restoredSecret && restoredSecret !== config.jwtSecret) {
      console.error("JWT_SECRET is set in the environment and wins over the restored DATA_DIR/jwt-secret: unset it to use the backup's.");
    }
    return 0;
  });
}
