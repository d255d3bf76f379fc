/**
 * The triggers and exits automations sweep for rather than receive: contacts newly in a segment,
 * dates in each contact's time zone, goals. A database of its own: the sweep is a periodic job,
 * and servers on one database share those.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { freshDatabase } from '../databases.ts';
import { newAccount, startTestServer, type TestAccount, uniqueEmail, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sendline: Sendline;
let sink: SmtpSink;
let account: TestAccount;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    DATABASE_URL: await freshDatabase('automation_sweeps'),
    SMTP_URL: sink.url,
    AUTOMATION_SWEEP_SECONDS: '1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  account = await newAccount(sendline.url, 'sweeps');
});
afterAll(async () => {
  await sendline?.stop();
  await sink?.stop();
});

async function contact(body: Record<string, unknown>): Promise<string> {
  const res = await account.api('POST', '/api/contacts', { body: { email: uniqueEmail('sweep'), ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function activeAutomation(body: Record<string, unknown>): Promise<string> {
  const created = await account.api('POST', '/api/automations', { body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await account.api('POST', `/api/automations/${created.body.id}/activate`)).status).toBe(200);
  return created.body.id;
}

const enrolled = async (automationId: string) =>
  ((await account.api('GET', `/api/automations/${automationId}/enrollments?limit=100`)).body.data as { contact_id: string; status: string }[]).map(
    (e) => e.contact_id,
  );

/** Waits for two sweeps to have run: what they would have enrolled is enrolled. */
const afterSweeps = () => new Promise((resolve) => setTimeout(resolve, 2500));

describe('automation sweeps', () => {
  it('enrols contacts who newly match a segment, not those in it at activation', async () => {
    const segment = await account.api('POST', '/api/segments', {
      body: { name: 'Hot', rules: { all: [{ field: 'tags', operator: 'contains', value: 'hot' }] } },
    });
    // In the segment before activation: never enrolled (the list below holds `later` alone).
    await contact({ tags: ['hot'] });
    const automationId = await activeAutomation({
      name: 'Hot leads',
      trigger: { type: 'segment_entered', segment_id: segment.body.id },
      steps: [{ id: 'wait', type: 'wait', duration: 'P1D' }],
    });
    const later = await contact({});
    await account.api('PATCH', `/api/contacts/${later}`, { body: { tags: ['hot'] } });
    await waitFor(async () => ((await enrolled(automationId)).includes(later) ? true : undefined));
    await afterSweeps();
    expect(await enrolled(automationId)).toEqual([later]);
  });

  it("enrols on a date field's anniversary in each contact's time zone, once", async () => {
    const field = await account.api('POST', '/api/fields', { body: { key: 'birthday', label: 'Birthday', type: 'date' } });
    expect(field.status).toBe(201);
    // Kiritimati (UTC+14) and Pago Pago (UTC-11) are never on the same date.
    const kiritimatiToday = DateTime.now().setZone('Pacific/Kiritimati');
    const born = kiritimatiToday.minus({ years: 30 }).toISODate()!;
    const there = await contact({ attributes: { birthday: born }, timezone: 'Pacific/Kiritimati' });
    // The same date in Pago Pago is not today there: never enrolled (the list below holds `there` alone).
    await contact({ attributes: { birthday: born }, timezone: 'Pacific/Pago_Pago' });
    const automationId = await activeAutomation({
      name: 'Birthdays',
      trigger: { type: 'date', field: 'birthday', at: '00:00' },
      settings: { reentry: 'always' },
      steps: [{ id: 'wait', type: 'wait', duration: 'P1D' }],
    });
    await waitFor(async () => ((await enrolled(automationId)).includes(there) ? true : undefined));
    await afterSweeps();
    expect(await enrolled(automationId)).toEqual([there]);
  });

  it('lets a contact who reaches the goal leave at once, converted', async () => {
    const automationId = await activeAutomation({
      name: 'Until they buy',
      trigger: { type: 'manual' },
      settings: { goal: { all: [{ field: 'tags', operator: 'contains', value: 'bought' }] } },
      steps: [{ id: 'wait', type: 'wait', duration: 'P7D' }],
    });
    const buyer = await contact({});
    await account.api('POST', `/api/automations/${automationId}/enrollments`, { body: { contact_ids: [buyer] } });
    await waitFor(async () => {
      const [e] = (await account.api('GET', `/api/automations/${automationId}/enrollments`)).body.data;
      return e?.status === 'waiting' ? e : undefined;
    });
    await account.api('PATCH', `/api/contacts/${buyer}`, { body: { tags: ['bought'] } });
    const converted = await waitFor(async () => {
      const [e] = (await account.api('GET', `/api/automations/${automationId}/enrollments`)).body.data;
      return e?.status === 'converted' ? e : undefined;
    });
    expect(converted).toMatchObject({ exit_reason: 'goal', step_id: null });
    const figures = await account.api('GET', `/api/analytics/automations/${automationId}`);
    expect(figures.body.enrollments).toMatchObject({ total: 1, converted: 1 });
  });
});
