import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../server/campaigns/store.ts';
import { sqlOnClient } from '../../server/db/kysely.ts';
import { nativePool } from '../../server/db/orm.ts';
import type { Sendline } from '../../server/start.ts';
import { client, newAccount, startTestServer } from '../helpers.ts';

let sendline: Sendline;
beforeAll(async () => {
  // No worker: the campaign's messages stay queued for the claims under test.
  sendline = await startTestServer({ SENDLINE_ROLE: 'api' });
});
afterAll(() => sendline.stop());

const LEASE_SECONDS = 300;

describe('claiming a batch of messages', () => {
  it("is a lock held by the batch's transaction: a worker that dies lets go of its batch at once, not after the lease", async () => {
    const account = await newAccount(sendline.url, 'claims');
    const api = client(sendline.url, { authorization: `Bearer ${account.token}` });
    const emails = Array.from({ length: 6 }, (_, i) => `claim${i}@inbox.example`);
    await api('POST', '/api/contacts/import', { body: { contacts: emails.map((email) => ({ email })) } });
    const { body: campaign } = await api('POST', '/api/campaigns', {
      body: { name: 'claims', subject: 'Hi', from_email: 'news@shop.example', content: '<p>Hi</p>' },
    });
    expect((await api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBe(200);

    const pool = await nativePool(sendline.orm);
    const [dying, other] = [await pool.connect(), await pool.connect()];
    // Its end is the point of the test, not an error.
    dying.on('error', () => {});
    try {
      await dying.query('begin');
      const held = await messages.claim(sqlOnClient(dying), campaign.id, '', 3, LEASE_SECONDS);
      expect(held).toHaveLength(3);
      expect(held.every((m) => m.attempts === 1)).toBe(true);

      // Another worker meanwhile gets the others, never the same ones.
      await other.query('begin');
      const rest = await messages.claim(sqlOnClient(other), campaign.id, '', 10, LEASE_SECONDS);
      expect(rest.map((m) => m.id).sort()).toEqual(expect.not.arrayContaining(held.map((m) => m.id)));
      expect(rest).toHaveLength(3);
      await other.query('rollback');

      // The first worker dies mid-batch: its connection goes, and its batch with it.
      const { rows } = await dying.query<{ pid: number }>('select pg_backend_pid() as pid');
      await other.query('select pg_terminate_backend($1)', [rows[0].pid]);
      await other.query('begin');
      const again = await messages.claim(sqlOnClient(other), campaign.id, '', 10, LEASE_SECONDS);
      expect(again.map((m) => m.id).sort()).toEqual([...held, ...rest].map((m) => m.id).sort());
      await other.query('rollback');
    } finally {
      dying.release(true);
      other.release();
    }
  });
});
