import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { prepared, sqlOnClient } from './kysely.ts';
import { fileDatabaseUrl } from '../../test/databases.ts';

describe('typed SQL on a borrowed client', () => {
  it('runs in the caller transaction on that connection, and leaves the client borrowed', async () => {
    const pool = new pg.Pool({ connectionString: fileDatabaseUrl(), max: 1 });
    const client = await pool.connect();
    try {
      await client.query('begin');
      const db = sqlOnClient(client);
      const {
        rows: [own],
      } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      const {
        rows: [seen],
      } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      expect(seen.pid).toBe(own.pid);
      await sql`create temp table borrowed (n int) on commit drop`.execute(db);
      await Promise.all([1, 2, 3].map((n) => sql`insert into borrowed values (${n})`.execute(db)));
      // Still the caller's: not back in the pool, and its transaction holds what was written.
      expect(pool.idleCount).toBe(0);
      const {
        rows: [count],
      } = await client.query<{ n: number }>('select count(*)::int as n from borrowed');
      expect(count.n).toBe(3);
      await client.query('rollback');
    } finally {
      client.release();
      await pool.end();
    }
  });
});

describe('prepared statements', () => {
  it('are parsed once per connection and run with each call’s parameters', async () => {
    const pool = new pg.Pool({ connectionString: fileDatabaseUrl(), max: 1 });
    try {
      const double = (n: number) => sql<{ doubled: number }>`select ${n}::int * 2 as doubled`;
      expect(await prepared(pool, double(2))).toEqual([{ doubled: 4 }]);
      expect(await prepared(pool, double(21))).toEqual([{ doubled: 42 }]);
      const { rows } = await pool.query<{ statement: string }>("select statement from pg_prepared_statements where name like 'sendline\\_%'");
      expect(rows.map((r) => r.statement)).toEqual(['select $1::int * 2 as doubled']);
    } finally {
      await pool.end();
    }
  });
});
