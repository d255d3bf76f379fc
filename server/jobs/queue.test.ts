import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import type { JobData } from './payloads.ts';
import { Queue } from './queue.ts';
import { fileDatabaseUrl } from '../../test/databases.ts';

describe('the job queue', () => {
  const pool = new pg.Pool({ connectionString: fileDatabaseUrl(), max: 6 });
  /** Jobs of made-up names: the tests' own. */
  const queues: Queue<Record<string, JobData>>[] = [];
  const rows = async (name: string) => (await pool.query<{ n: number }>('select count(*)::int as n from agenda_jobs where name = $1', [name])).rows[0].n;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) queues.push(await Queue.open<Record<string, JobData>>(pool, createLogger('silent')));
  });
  afterAll(async () => {
    await Promise.all(queues.map((q) => q.stop()));
    await pool.end();
  });

  it('runs a periodic job declared by two processes in one at a time, from one row', async () => {
    const name = `test.periodic.${randomUUID()}`;
    let running = 0;
    let overlapped = false;
    let runs = 0;
    for (const queue of queues) {
      queue.every(name, 300, async () => {
        overlapped ||= running > 0;
        running++;
        await new Promise((r) => setTimeout(r, 100));
        running--;
        runs++;
      });
    }
    await Promise.all(queues.map((q) => q.start()));
    await new Promise((r) => setTimeout(r, 3500));
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(overlapped).toBe(false);
    expect(await rows(name)).toBe(1);
  });

  it('keeps one job per key, however often it is ensured', async () => {
    const name = `test.ensured.${randomUUID()}`;
    for (let i = 0; i < 3; i++) for (const queue of queues) await queue.ensure(name, { campaignId: 'cmp_x', slot: 0 }, ['campaignId', 'slot']);
    await queues[0].ensure(name, { campaignId: 'cmp_x', slot: 1 }, ['campaignId', 'slot']);
    expect(await rows(name)).toBe(2);
  });

  it("tells the worker defined in this process that a job is coming, and nothing else's", () => {
    const name = `test.coming.${randomUUID()}`;
    let told = 0;
    queues[0].define(name, async () => {}, { lockSeconds: 5, concurrency: 1, onComing: () => told++ });
    queues[0].coming(name);
    queues[1].coming(name);
    queues[0].coming(`${name}.other`);
    expect(told).toBe(1);
  });
});
