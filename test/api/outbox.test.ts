import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../server/auth/entities.ts';
import { newId } from '../../server/db/ids.ts';
import { Event } from '../../server/events/entities.ts';
import { EVENT_TYPES } from '../../server/events/outbox.ts';
import { recordEvent } from '../../server/events/record.ts';
import type { Sendline } from '../../server/start.ts';
import { startTestServer } from '../helpers.ts';

let sendline: Sendline;
beforeAll(async () => {
  sendline = await startTestServer();
});
afterAll(() => sendline.stop());

describe('the transactional outbox', () => {
  it('knows exactly the event types of the contract', async () => {
    const doc = (await (await fetch(sendline.url + '/api/openapi.json')).json()) as { components: { schemas: { Event: { discriminator: { mapping: object } } } } };
    expect([...EVENT_TYPES].sort()).toEqual(Object.keys(doc.components.schemas.Event.discriminator.mapping).sort());
  });

  it('writes the event with the change, in one transaction', async () => {
    const em = sendline.orm.em.fork();
    const accountId = newId('acc');
    em.create(Account, { id: accountId, name: 'outbox' });
    const event = recordEvent(em, accountId, 'webhook.test', { webhook_id: 'wh_x', message: 'hello' });
    await em.flush();
    const stored = await sendline.orm.em.fork().findOneOrFail(Event, { id: event.id });
    expect(stored).toMatchObject({ accountId, type: 'webhook.test', data: { webhook_id: 'wh_x', message: 'hello' } });
    expect(stored.id).toMatch(/^evt_/);
  });

  it('writes nothing when the change rolls back', async () => {
    const accountId = newId('acc');
    let eventId = '';
    await expect(
      sendline.orm.em.fork().transactional(async (em) => {
        em.create(Account, { id: accountId, name: 'rolled back' });
        eventId = recordEvent(em, accountId, 'webhook.test', { webhook_id: 'wh_x', message: 'never' }).id;
        await em.flush();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const em = sendline.orm.em.fork();
    expect(await em.findOne(Event, { id: eventId })).toBeNull();
    expect(await em.findOne(Account, { id: accountId })).toBeNull();
  });
});
