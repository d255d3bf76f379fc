import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COORDINATOR_TABLES, QUEUE_TABLES, REFERENCE_TABLES } from '../../server/db/citus.ts';
import { newAccount } from '../helpers.ts';
import { runSendline, spawnServer, type ServerProcess } from '../process.ts';
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

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const env = () => ({ DATABASE_URL: cluster.url, ALLOW_SIGNUP: 'true', JWT_SECRET: 'citus-cluster-test-secret-0123456789-abcdef' });

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
    await query('drop table routed');
  });
});

describe('Sendline on the cluster', () => {
  it('refuses to start on a coordinator whose tables are not distributed, naming the command that distributes them', async () => {
    const refused = await runSendline([], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('not distributed yet');
    expect(refused.stderr).toContain('sendline distribute');
  });

  it('distributes every table by account, but the reference and coordinator tables it names', async () => {
    const distributed = await runSendline(['distribute'], env());
    expect(distributed.stderr).toBe('');
    expect(distributed.stdout).toMatch(/^Distributed \d+ tables/);
    expect((await runSendline(['distribute'], env())).stdout).toContain('Nothing to do');

    const tables = await query<{ table: string; kind: string; column: string | null; colocated: boolean }>(`
      select c.relname as table,
        case when p.partmethod = 'h' then 'distributed' when p.repmodel = 't' then 'reference' when p.logicalrelid is null then 'coordinator' else 'citus local' end as kind,
        column_to_column_name(p.logicalrelid, p.partkey) as column,
        p.colocationid = (select colocationid from pg_dist_partition where logicalrelid = 'contacts'::regclass) as colocated
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      left join pg_dist_partition p on p.logicalrelid = c.oid
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      order by 1`);
    const kindOf = (table: string) => (REFERENCE_TABLES.includes(table) ? 'reference' : COORDINATOR_TABLES.includes(table) ? 'coordinator' : 'distributed');
    expect(tables.length).toBeGreaterThan(40);
    for (const t of tables) {
      expect(t.kind, t.table).toBe(kindOf(t.table));
      if (t.kind === 'distributed') expect([t.column, t.colocated], t.table).toEqual(['account_id', true]);
    }
  });

  it('serves the API on the coordinator, its job queue staying there', async () => {
    const server = await spawnServer(env(), { timeoutMs: 120_000 });
    running.push(server);
    const owner = await newAccount(server.url, 'citus');
    expect((await owner.api('POST', '/api/contacts', { body: { email: 'ada@citus.example' } })).status).toBe(201);
    expect((await owner.api('GET', '/api/contacts')).body.data).toHaveLength(1);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    // Made by the queue as the server started, after the tables were distributed.
    expect(await query('select logicalrelid from pg_dist_partition where logicalrelid::text = any($1)', [QUEUE_TABLES])).toEqual([]);
  });
});
