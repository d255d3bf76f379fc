import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnTestServer, waitFor } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';
import { freePort } from '../../server/db/embedded.ts';
import { freshDatabase } from '../databases.ts';
import { SCHEMA_LOCK } from '../../server/db/orm.ts';

const running: ServerProcess[] = [];
afterAll(() => {
  for (const server of running) server.proc.kill('SIGKILL');
});

async function get(url: string) {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

describe('/healthz and /readyz', () => {
  it('answer while the server waits for migrations: alive, not ready, the API unavailable', async () => {
    const databaseUrl = await freshDatabase('probes_migrating');
    // Another process migrating: the server waits for the schema lock it holds.
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    await other.query('select pg_advisory_lock($1)', [SCHEMA_LOCK]);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const starting = spawnTestServer({ DATABASE_URL: databaseUrl, PORT: String(port) });
    try {
      await waitFor(async () => (await get(`${url}/readyz`).catch(() => null))?.body?.status === 'migrating', 30_000);
      expect(await get(`${url}/readyz`)).toMatchObject({ status: 503, body: { status: 'migrating' } });
      expect(await get(`${url}/healthz`)).toMatchObject({ status: 200, body: { status: 'migrating' } });
      const api = await get(`${url}/api/v1/contacts`);
      expect(api).toMatchObject({ status: 503, body: { code: 'starting' } });
      expect(api.headers.get('retry-after')).toBe('5');
    } finally {
      await other.end();
    }
    running.push(await starting);
    expect(await get(`${url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect(await get(`${url}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok', migrations: expect.any(Number) } });
  }, 60_000);

  it('say not ready while a migration of this release is missing from the database', async () => {
    const databaseUrl = await freshDatabase('probes_pending');
    const server = await spawnTestServer({ DATABASE_URL: databaseUrl });
    running.push(server);
    expect((await get(`${server.url}/readyz`)).status).toBe(200);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const {
        rows: [last],
      } = await db.query<{ id: number; name: string; executed_at: Date }>(
        'delete from mikro_orm_migrations where id = (select max(id) from mikro_orm_migrations) returning *',
      );
      expect(await get(`${server.url}/readyz`)).toMatchObject({ status: 503, body: { status: 'migrations pending' } });
      await db.query('insert into mikro_orm_migrations (id, name, executed_at) values ($1, $2, $3)', [last.id, last.name, last.executed_at]);
      expect(await get(`${server.url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
    } finally {
      await db.end();
    }
  });

  it('turn to stopping at SIGTERM, SHUTDOWN_DELAY_SECONDS before the listener closes, and the stop says how long it took', async () => {
    const server = await spawnTestServer({ SHUTDOWN_DELAY_SECONDS: '2' });
    running.push(server);
    expect((await get(`${server.url}/readyz`)).status).toBe(200);
    server.proc.kill('SIGTERM');
    await waitFor(async () => (await get(`${server.url}/readyz`)).status === 503);
    expect(await get(`${server.url}/readyz`)).toMatchObject({ status: 503, body: { status: 'stopping' } });
    expect(await get(`${server.url}/healthz`)).toMatchObject({ status: 200, body: { status: 'stopping' } });
    expect(await server.exited).toBe(0);
    const stopped = server
      .output()
      .split('\n')
      .find((line) => line.includes('"msg":"Sendline stopped"'));
    expect(JSON.parse(stopped!).ms).toBeGreaterThanOrEqual(2000);
  });
});
