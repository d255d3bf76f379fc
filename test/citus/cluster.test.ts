import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../helpers.ts';
import { spawnServer, type ServerProcess } from '../process.ts';
import { startCluster, type Cluster } from './cluster.ts';

// A Citus coordinator and two workers on loopback, built by scripts/ensure-citus.sh.
let cluster: Cluster;
const running: ServerProcess[] = [];
beforeAll(async () => {
  cluster = await startCluster(2);
}, 600_000);
afterAll(async () => {
  for (const server of running) server.proc.kill('SIGKILL');
  await cluster?.stop();
});

async function query<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('the Citus cluster of the tests', () => {
  it('has two workers, and routes a table distributed by account to one shard per account', async () => {
    expect(await query('select node_name, node_port from citus_get_active_worker_nodes()')).toHaveLength(2);
    await query('create table routed (account_id text, id text, primary key (account_id, id))');
    await query(`select create_distributed_table('routed', 'account_id')`);
    await query(`insert into routed select 'acc_' || (n % 10), 'id_' || n from generate_series(1, 1000) n`);
    const plan = (await query<{ 'QUERY PLAN': string }>(`explain select * from routed where account_id = 'acc_3'`)).map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('Task Count: 1');
    const shards = await query<{ nodes: number }>(`select count(distinct nodeport)::int as nodes from citus_shards where table_name = 'routed'::regclass`);
    expect(shards[0].nodes).toBe(2);
  });

  it('runs Sendline on its coordinator: the migrations apply and the API answers', async () => {
    const server = await spawnServer(
      { DATABASE_URL: cluster.url, ALLOW_SIGNUP: 'true', JWT_SECRET: 'citus-cluster-test-secret-0123456789-abcdef' },
      { timeoutMs: 120_000 },
    );
    running.push(server);
    const owner = await newAccount(server.url, 'citus');
    expect((await owner.api('POST', '/api/contacts', { body: { email: 'ada@citus.example' } })).status).toBe(201);
    expect((await owner.api('GET', '/api/contacts')).body.data).toHaveLength(1);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
