import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrations } from '../../server/db/migrations/index.ts';
import { SCHEMA_LOCK, openDatabase } from '../../server/db/orm.ts';
import { entities } from '../../server/entities.ts';
import { createLogger } from '../../server/logger.ts';
import { freshDatabase, withClient } from '../databases.ts';
import { waitFor } from '../helpers.ts';
import { spawnServer, type ServerProcess, runSendline } from '../process.ts';

const names = migrations.map((m) => m.name);
const dirs: string[] = [];
const running: ServerProcess[] = [];
afterAll(() => {
  for (const server of running) server.proc.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function envFor(databaseUrl: string): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-migrate-'));
  dirs.push(dir);
  return { DATABASE_URL: databaseUrl, DATA_DIR: dir, JWT_SECRET: 'a-shared-secret-for-the-migration-tests-0123' };
}

const appliedIn = (url: string) =>
  withClient(url, async (db) => (await db.query('select name, count(*)::int as n from mikro_orm_migrations group by name order by name')).rows);
const hasTable = (url: string, table: string) =>
  withClient(url, async (db) => (await db.query('select to_regclass($1) is not null as exists', [table])).rows[0].exists);

describe('migrations', () => {
  it('are applied once, under a lock, when several processes start together on a new database', async () => {
    const url = await freshDatabase('migrate_together');
    // The test holds the schema lock until all three processes wait for it, then lets them race.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query('select pg_advisory_lock($1)', [SCHEMA_LOCK]);
    const starting = [1, 2, 3].map(() => spawnServer(envFor(url)));
    const waiting = () =>
      holder.query(
        "select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = $1 and not granted and database = (select oid from pg_database where datname = current_database())",
        [SCHEMA_LOCK],
      );
    await waitFor(async () => (await waiting()).rows[0].n === 3, 60_000);
    expect(await hasTable(url, 'public.mikro_orm_migrations')).toBe(false);
    await holder.end();
    const servers = await Promise.all(starting);
    running.push(...servers);
    expect(await appliedIn(url)).toEqual(names.map((name) => ({ name, n: 1 })));
    expect(servers.filter((s) => s.output().includes('"msg":"database migrated"'))).toHaveLength(1);
    for (const server of servers) {
      server.proc.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  }, 90_000);

  it('are listed by migrate --dry-run without changing anything, then applied by migrate', async () => {
    const url = await freshDatabase('migrate_dry_run');
    const env = envFor(url);
    const dry = await runSendline(['migrate', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(`The database has no schema yet.\n${names.length} migrations would run:\n${names.map((n) => `  ${n}\n`).join('')}`);
    expect(await hasTable(url, 'public.mikro_orm_migrations')).toBe(false);
    expect(await hasTable(url, 'public.contacts')).toBe(false);

    const applied = await runSendline(['migrate'], env);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`Applied ${names.length} migrations:`);
    expect(await appliedIn(url)).toEqual(names.map((name) => ({ name, n: 1 })));
    expect((await runSendline(['migrate', '--dry-run'], env)).stdout).toBe(
      `The schema is at ${names.at(-1)} (${names.length} migrations applied).\nNothing would run.\n`,
    );
  });

  it('refuse, with a clear message, a schema that a newer release migrated', async () => {
    const url = await freshDatabase('migrate_newer');
    const env = envFor(url);
    expect((await runSendline(['migrate'], env)).code).toBe(0);
    await withClient(url, (db) => db.query("insert into mikro_orm_migrations (name, executed_at) values ('Migration29990101000000FromTheFuture', now())"));
    const message = 'The database was migrated by a newer Sendline than this one';
    const server = await spawnServer(env).then(
      (started) => void running.push(started),
      (error: Error) => error.message,
    );
    expect(server).toMatch(/server exited with 2/);
    expect(server).toContain(message);
    expect(server).toContain('Migration29990101000000FromTheFuture');
    for (const args of [['migrate'], ['migrate', '--dry-run']]) {
      const res = await runSendline(args, env);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(message);
    }
  });

  it('take addresses that unconfirmed double opt-in sign-ups suppressed off the suppression list, and let those sign-ups expire', async () => {
    const url = await freshDatabase('migrate_pending_signups');
    const orm = await openDatabase(url, entities, createLogger('silent'), 2, { migrate: false });
    await orm.migrator.up({ to: 'Migration20261124110000FirstEngagementIndexes' });
    await orm.close();
    const pending = 'double opt-in not confirmed yet';
    await withClient(url, async (db) => {
      await db.query(`insert into accounts (id, name) values ('acc_a', 'A'), ('acc_b', 'B')`);
      await db.query(
        `insert into lists (id, account_id, name, double_opt_in, from_email, public_id) values ('lst_a', 'acc_a', 'News', true, 'news@a.example', 'pub_a')`,
      );
      // As the bug left them: a waiting contact suppressed; one confirmed since; one that unsubscribed itself; an entry whose contact is gone.
      await db.query(
        `insert into contacts (id, account_id, email, status, status_reason, status_changed_at, updated_at) values
          ('ct_waiting', 'acc_a', 'waiting@x.example', 'unsubscribed', $1, now(), now() - interval '2 days'),
          ('ct_confirmed', 'acc_a', 'confirmed@x.example', 'subscribed', 'double opt-in confirmed', now(), now()),
          ('ct_left', 'acc_a', 'left@x.example', 'unsubscribed', 'asked by phone', now(), now()),
          ('ct_other', 'acc_b', 'waiting@x.example', 'unsubscribed', 'asked by phone', now(), now())`,
        [pending],
      );
      await db.query(
        `insert into suppressions (id, account_id, email, email_hash, reason, source, detail) values
          ('sup_waiting', 'acc_a', 'waiting@x.example', sendline_email_hash('waiting@x.example'), 'unsubscribed', 'contact_status', $1),
          ('sup_gone', 'acc_a', 'gone@x.example', sendline_email_hash('gone@x.example'), 'unsubscribed', 'contact_status', $1),
          ('sup_left', 'acc_a', 'left@x.example', sendline_email_hash('left@x.example'), 'unsubscribed', 'contact_status', 'asked by phone'),
          ('sup_other', 'acc_b', 'waiting@x.example', sendline_email_hash('waiting@x.example'), 'unsubscribed', 'contact_status', 'asked by phone')`,
        [pending],
      );
      await db.query(
        `insert into list_members (list_id, contact_id, account_id, status, confirmation_sent_at, updated_at) values
          ('lst_a', 'ct_waiting', 'acc_a', 'unconfirmed', now() - interval '2 days', now() - interval '2 days'),
          ('lst_a', 'ct_left', 'acc_a', 'unconfirmed', null, now())`,
      );
    });
    expect((await runSendline(['migrate'], envFor(url))).code).toBe(0);
    await withClient(url, async (db) => {
      expect((await db.query('select id from suppressions order by id')).rows.map((r) => r.id)).toEqual(['sup_left', 'sup_other']);
      const contacts = (await db.query('select id, status, status_reason from contacts order by id')).rows;
      expect(contacts).toEqual([
        { id: 'ct_confirmed', status: 'subscribed', status_reason: 'double opt-in confirmed' },
        { id: 'ct_left', status: 'unsubscribed', status_reason: 'asked by phone' },
        { id: 'ct_other', status: 'unsubscribed', status_reason: 'asked by phone' },
        { id: 'ct_waiting', status: 'unsubscribed', status_reason: pending },
      ]);
      const members = (
        await db.query(`select contact_id, round(extract(epoch from signup_expires_at - now()) / 86400) as days from list_members order by contact_id`)
      ).rows;
      expect(members).toEqual([
        { contact_id: 'ct_left', days: null },
        { contact_id: 'ct_waiting', days: '5' },
      ]);
    });
  });

  it("carry a contact's timezone attribute into its field, and give every account a public id of its own", async () => {
    const url = await freshDatabase('migrate_time_zones');
    const orm = await openDatabase(url, entities, createLogger('silent'), 2, { migrate: false });
    await orm.migrator.up({ to: 'Migration20261201100000Automations' });
    await orm.close();
    await withClient(url, async (db) => {
      await db.query(`insert into accounts (id, name) values ('acc_a', 'A'), ('acc_b', 'B')`);
      await db.query(
        `insert into contacts (id, account_id, email, attributes) values
          ('ct_paris', 'acc_a', 'paris@x.example', '{"timezone": "Europe/Paris", "plan": "pro"}'),
          ('ct_mars', 'acc_a', 'mars@x.example', '{"timezone": "Mars/Olympus"}'),
          ('ct_posix', 'acc_a', 'posix@x.example', '{"timezone": "posix/Europe/Paris"}'),
          ('ct_none', 'acc_b', 'none@x.example', '{}')`,
      );
    });
    expect((await runSendline(['migrate'], envFor(url))).code).toBe(0);
    await withClient(url, async (db) => {
      expect((await db.query('select id, timezone, attributes from contacts order by id')).rows).toEqual([
        { id: 'ct_mars', timezone: null, attributes: { timezone: 'Mars/Olympus' } },
        { id: 'ct_none', timezone: null, attributes: {} },
        { id: 'ct_paris', timezone: 'Europe/Paris', attributes: { timezone: 'Europe/Paris', plan: 'pro' } },
        { id: 'ct_posix', timezone: null, attributes: { timezone: 'posix/Europe/Paris' } },
      ]);
      const accounts = (await db.query('select public_id, timezone from accounts order by id')).rows;
      expect(accounts.map((a) => a.timezone)).toEqual(['UTC', 'UTC']);
      expect(accounts[0].public_id).toMatch(/^[0-9a-f]{22}$/);
      expect(accounts[0].public_id).not.toBe(accounts[1].public_id);
    });
  });
});
