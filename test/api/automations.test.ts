import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, uniqueEmail, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { verifyStandardWebhook, WebhookReceiver } from '../webhook-receiver.ts';

let sendline: Sendline;
let sink: SmtpSink;
let receiver: WebhookReceiver;
let account: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  [sink, receiver] = await Promise.all([new SmtpSink().start(), new WebhookReceiver().start()]);
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL: 'https://mail.example.test',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1,1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  [account, other] = await Promise.all([newAccount(sendline.url, 'journeys'), newAccount(sendline.url, 'journeys-other')]);
});
afterAll(async () => {
  await sendline?.stop();
  await Promise.all([sink?.stop(), receiver?.stop()]);
});

const sql = (text: string, params: unknown[] = []) => sendline.pool.query(text, params).then((r) => r.rows);

async function publishedTemplate(a: TestAccount, name: string, html: string, subject = 'Hello {{ first_name }}'): Promise<string> {
  const created = await a.api('POST', '/api/templates', { body: { name, subject, html } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await a.api('POST', `/api/templates/${created.body.id}/publish`)).status).toBe(201);
  return created.body.id;
}

async function contact(a: TestAccount, local: string, extra: Record<string, unknown> = {}): Promise<{ id: string; email: string }> {
  const res = await a.api('POST', '/api/contacts', { body: { email: uniqueEmail(local), first_name: 'Ada', ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function activeAutomation(a: TestAccount, body: Record<string, unknown>): Promise<string> {
  const created = await a.api('POST', '/api/automations', { body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const activated = await a.api('POST', `/api/automations/${created.body.id}/activate`);
  expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  return created.body.id;
}

const enrollmentOf = (a: TestAccount, automationId: string, contactId: string, status?: string) =>
  waitFor(async () => {
    const res = await a.api('GET', `/api/automations/${automationId}/enrollments?contact_id=${contactId}`);
    const found = res.body.data?.[0];
    return found && (!status || found.status === status) ? found : undefined;
  });

const received = (email: string, n = 1) =>
  waitFor(() => {
    const got = sink.to(email);
    return got.length >= n ? got : undefined;
  });

describe('automations', () => {
  it('refuses a journey that is not a graph, at the pointer of the step at fault', async () => {
    const unknownNext = await account.api('POST', '/api/automations', {
      body: { name: 'Broken', trigger: { type: 'manual' }, steps: [{ id: 'a', type: 'wait', duration: 'P1D', next: 'b' }] },
    });
    expectProblem(unknownNext, 400, 'validation_failed');
    expect(unknownNext.body.errors).toContainEqual({ pointer: '/steps/0/next', detail: 'no step has the id b' });

    const loop = await account.api('POST', '/api/automations', {
      body: {
        name: 'Loop',
        trigger: { type: 'manual' },
        steps: [
          { id: 'a', type: 'update_contact', add_tags: ['x'], next: 'b' },
          { id: 'b', type: 'update_contact', remove_tags: ['x'], next: 'a' },
        ],
      },
    });
    expectProblem(loop, 400, 'validation_failed');
    expect(loop.body.errors[0].pointer).toBe('/steps/0');

    const unreachable = await account.api('POST', '/api/automations', {
      body: {
        name: 'Island',
        trigger: { type: 'manual' },
        steps: [
          { id: 'a', type: 'exit' },
          { id: 'b', type: 'exit' },
        ],
      },
    });
    expect(unreachable.body.errors).toContainEqual({ pointer: '/steps/1', detail: expect.stringContaining('reachable') });

    const template = await account.api('POST', '/api/automations', {
      body: { name: 'No template', trigger: { type: 'manual' }, steps: [{ id: 'a', type: 'send_email', template_id: 'tpl_nope', from_email: 'a@b.example' }] },
    });
    expect(template.body.errors).toContainEqual({ pointer: '/steps/0/template_id', detail: 'no template of this account has this id' });

    const stray = await account.api('POST', '/api/automations', {
      body: { name: 'Stray', trigger: { type: 'tag_added' }, steps: [{ id: 'a', type: 'exit', next: 'a' }] },
    });
    expect(stray.body.errors).toEqual(
      expect.arrayContaining([
        { pointer: '/trigger/tag', detail: 'is required for a tag_added trigger' },
        { pointer: '/steps/0/next', detail: 'is not a field of a exit step' },
      ]),
    );
  });

  it('sends a welcome email when a contact joins a list, then branches on a tag', async () => {
    const templateId = await publishedTemplate(account, 'welcome', '<p>Welcome {{ first_name }}</p>');
    const list = await account.api('POST', '/api/lists', { body: { name: 'Newsletter' } });
    const automationId = await activeAutomation(account, {
      name: 'Welcome',
      trigger: { type: 'list_joined', list_id: list.body.id },
      steps: [
        { id: 'welcome', type: 'send_email', template_id: templateId, from_email: 'hello@shop.example', from_name: 'Shop', next: 'vip' },
        { id: 'vip', type: 'condition', rules: { all: [{ field: 'tags', operator: 'contains', value: 'vip' }] }, yes: 'tag-welcomed', no: null },
        { id: 'tag-welcomed', type: 'update_contact', add_tags: ['welcomed'], set_fields: { source: 'journey' } },
      ],
    });
    const [vip, plain] = await Promise.all([contact(account, 'vip', { tags: ['vip'] }), contact(account, 'plain')]);
    const added = await account.api('POST', `/api/lists/${list.body.id}/members`, { body: { contact_ids: [vip.id, plain.id] } });
    expect(added.status).toBe(200);

    const [mail] = await received(vip.email);
    expect(mail.mail.subject).toBe('Hello Ada');
    expect(mail.mail.html).toContain('Welcome Ada');
    await received(plain.email);

    const done = await enrollmentOf(account, automationId, vip.id, 'completed');
    expect(done.path.map((p: { step_id: string; branch: string | null }) => [p.step_id, p.branch])).toEqual([
      ['welcome', null],
      ['vip', 'yes'],
      ['tag-welcomed', null],
    ]);
    expect(done.path[0].message_id).toMatch(/^em_/);
    const updated = await account.api('GET', `/api/contacts/${vip.id}`);
    expect(updated.body.tags).toEqual(['vip', 'welcomed']);
    expect(updated.body.attributes).toMatchObject({ source: 'journey' });

    const plainDone = await enrollmentOf(account, automationId, plain.id, 'completed');
    expect(plainDone.path.map((p: { branch: string | null }) => p.branch)).toEqual([null, 'no']);

    const email = await account.api('GET', `/api/emails/${done.path[0].message_id}`);
    expect(email.body.status).toBe('delivered');

    const figures = await waitFor(async () => {
      const res = await account.api('GET', `/api/analytics/automations/${automationId}`);
      return res.body.steps?.[0]?.emails?.delivered === 2 ? res.body : undefined;
    });
    expect(figures.enrollments).toMatchObject({ total: 2, completed: 2 });
    expect(figures.steps.map((s: { step_id: string; entered: number }) => [s.step_id, s.entered])).toEqual([
      ['welcome', 2],
      ['vip', 2],
      ['tag-welcomed', 1],
    ]);
  });

  it('enrols on a custom event and resumes a journey waiting for another', async () => {
    const templateId = await publishedTemplate(account, 'shipped', '<p>Order {{ event.order_id }} shipped</p>', 'Shipped');
    const automationId = await activeAutomation(account, {
      name: 'Orders',
      trigger: { type: 'event', name: 'order.placed' },
      steps: [
        { id: 'wait-ship', type: 'wait_for_event', name: 'order.shipped', timeout: 'P7D', next: 'mail', timeout_next: null },
        { id: 'mail', type: 'send_email', template_id: templateId, from_email: 'orders@shop.example' },
      ],
    });
    const ada = await contact(account, 'orders');
    const placed = await account.api('POST', `/api/contacts/${ada.id}/events`, { body: { name: 'order.placed', properties: { order_id: 'A-1' } } });
    expect(placed.status).toBe(202);
    const waiting = await enrollmentOf(account, automationId, ada.id, 'waiting');
    expect(waiting).toMatchObject({ step_id: 'wait-ship', waiting_for: 'order.shipped' });

    await account.api('POST', `/api/contacts/${ada.id}/events`, { body: { name: 'order.shipped', properties: { order_id: 'A-1' } } });
    const [mail] = await received(ada.email);
    expect(mail.mail.html).toContain('Order A-1 shipped');
    const done = await enrollmentOf(account, automationId, ada.id, 'completed');
    expect(done.path.map((p: { branch: string | null }) => p.branch)).toEqual(['event', null]);
  });

  it('enrols by hand under the re-entry rule, and cancels an enrolment', async () => {
    const automationId = await activeAutomation(account, {
      name: 'Manual',
      trigger: { type: 'manual' },
      steps: [{ id: 'wait', type: 'wait', duration: 'P1D' }],
    });
    const ada = await contact(account, 'manual');
    const first = await account.api('POST', `/api/automations/${automationId}/enrollments`, {
      body: { contact_ids: [ada.id], emails: ['nobody@nowhere.example'] },
    });
    expect(first.body).toEqual({ enrolled: 1, skipped: [{ contact: 'nobody@nowhere.example', reason: 'not_found' }] });
    const again = await account.api('POST', `/api/automations/${automationId}/enrollments`, { body: { emails: [ada.email] } });
    expect(again.body).toEqual({ enrolled: 0, skipped: [{ contact: ada.email, reason: 'reentry' }] });

    const waiting = await enrollmentOf(account, automationId, ada.id, 'waiting');
    const cancelled = await account.api('POST', `/api/automations/${automationId}/enrollments/${waiting.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'exited', exit_reason: 'cancelled', step_id: null });
    expectProblem(await account.api('POST', `/api/automations/${automationId}/enrollments/${waiting.id}/cancel`), 409, 'enrollment_finished');

    const mine = await account.api('GET', `/api/contacts/${ada.id}/automations`);
    expect(mine.body.data.map((e: { id: string }) => e.id)).toEqual([waiting.id]);
  });

  it('carries an unsubscribe link that leaves the topic, and mails no one who left', async () => {
    const templateId = await publishedTemplate(account, 'news-1', '<html><body><p>Issue one</p></body></html>', 'Issue one');
    const topic = await account.api('POST', '/api/topics', { body: { name: 'Digest' } });
    const automationId = await activeAutomation(account, {
      name: 'Digest',
      trigger: { type: 'manual' },
      settings: { topic_id: topic.body.id },
      steps: [
        { id: 'one', type: 'send_email', template_id: templateId, from_email: 'digest@shop.example', next: 'hold' },
        { id: 'hold', type: 'wait_for_event', name: 'next_issue', timeout: 'P1D', next: 'two' },
        { id: 'two', type: 'send_email', template_id: templateId, from_email: 'digest@shop.example' },
      ],
    });
    const ada = await contact(account, 'digest');
    await account.api('POST', `/api/automations/${automationId}/enrollments`, { body: { contact_ids: [ada.id] } });
    const [mail] = await received(ada.email);
    const link = mail.raw.match(/^List-Unsubscribe: <(https:[^>]+)>/m)![1];
    expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    expect(mail.mail.html).toContain(link);
    await enrollmentOf(account, automationId, ada.id, 'waiting');

    const res = await fetch(link.replace('https://mail.example.test', sendline.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    const optouts = await account.api('GET', `/api/contacts/${ada.id}/topic-optouts`);
    expect(JSON.stringify(optouts.body)).toContain(topic.body.id);
    expect((await account.api('GET', `/api/contacts/${ada.id}`)).body.status).toBe('subscribed');

    await account.api('POST', `/api/contacts/${ada.id}/events`, { body: { name: 'next_issue' } });
    const done = await enrollmentOf(account, automationId, ada.id, 'completed');
    expect(done.path.map((p: { step_id: string; detail: string | null }) => [p.step_id, p.detail])).toEqual([
      ['one', null],
      ['hold', null],
      ['two', 'opted_out'],
    ]);
    expect(sink.to(ada.email)).toHaveLength(1);
    const figures = await account.api('GET', `/api/analytics/automations/${automationId}`);
    expect(figures.body.steps[0].emails.unsubscribed).toBe(1);
  });

  it('posts a webhook step signed with the automation secret, retrying the same post until it is taken', async () => {
    expectProblem(
      await account.api('POST', '/api/automations', {
        body: { name: 'Bad hook', trigger: { type: 'manual' }, steps: [{ id: 'h', type: 'webhook', url: 'ftp://crm.example/in' }] },
      }),
      400,
      'validation_failed',
    );
    const automationId = await activeAutomation(account, {
      name: 'CRM sync',
      trigger: { type: 'manual' },
      steps: [
        { id: 'hook', type: 'webhook', url: receiver.url, payload: { source: 'crm' }, next: 'tag' },
        { id: 'tag', type: 'update_contact', add_tags: ['synced'] },
      ],
    });
    const { secret } = (await account.api('GET', `/api/automations/${automationId}/webhook-secret`)).body;
    expect(secret).toMatch(/^whsec_/);
    const ada = await contact(account, 'hooked');
    receiver.script = [503];
    const before = receiver.received.length;
    await account.api('POST', `/api/automations/${automationId}/enrollments`, { body: { contact_ids: [ada.id] } });
    const done = await enrollmentOf(account, automationId, ada.id, 'completed');
    const posts = receiver.received.slice(before);
    expect(posts).toHaveLength(2);
    expect(posts[0].headers['webhook-id']).toBe(posts[1].headers['webhook-id']);
    expect(verifyStandardWebhook(secret, posts[1].headers, posts[1].body)).toBe(true);
    expect(JSON.parse(posts[1].body)).toMatchObject({
      type: 'automation.webhook',
      data: { source: 'crm', automation_id: automationId, step_id: 'hook', enrollment_id: done.id, contact: { id: ada.id, email: ada.email } },
    });
    expect(done.path.map((p: { step_id: string }) => p.step_id)).toEqual(['hook', 'tag']);
    expect((await account.api('GET', `/api/contacts/${ada.id}`)).body.tags).toEqual(['synced']);
  });

  it('takes an erased contact out of every journey, with what it kept of their events', async () => {
    const automationId = await activeAutomation(account, {
      name: 'Abandoned cart',
      trigger: { type: 'event', name: 'cart.abandoned' },
      steps: [{ id: 'wait', type: 'wait', duration: 'P1D' }],
    });
    const ada = await contact(account, 'erased');
    await account.api('POST', `/api/contacts/${ada.id}/events`, { body: { name: 'cart.abandoned', properties: { card_last4: '4242' } } });
    const waiting = await enrollmentOf(account, automationId, ada.id, 'waiting');
    expect((await account.api('POST', `/api/contacts/${ada.id}/erase`)).status).toBe(200);
    const after = await account.api('GET', `/api/automations/${automationId}/enrollments`);
    expect(after.body.data).toEqual([expect.objectContaining({ id: waiting.id, status: 'exited', exit_reason: 'contact_erased', step_id: null })]);
    const rows = await sql('select context from automation_enrollments where id = $1', [waiting.id]);
    expect(JSON.stringify(rows)).not.toContain('4242');
  });

  it('enrols on contact_created and tag_added under each re-entry rule', async () => {
    const created = await activeAutomation(account, { name: 'New contacts', trigger: { type: 'contact_created' }, steps: [{ id: 'bye', type: 'exit' }] });
    const always = await activeAutomation(account, {
      name: 'VIP, every time',
      trigger: { type: 'tag_added', tag: 'vip' },
      settings: { reentry: 'always' },
      steps: [{ id: 'wait', type: 'wait', duration: 'P1D' }],
    });
    const afterExit = await activeAutomation(account, {
      name: 'Gold, once at a time',
      trigger: { type: 'tag_added', tag: 'gold' },
      settings: { reentry: 'after_exit' },
      steps: [{ id: 'hold', type: 'wait_for_event', name: 'done', timeout: 'P1D' }],
    });
    const ada = await contact(account, 'reentry');
    const exited = await enrollmentOf(account, created, ada.id, 'exited');
    expect(exited).toMatchObject({ exit_reason: 'exit_step', path: [expect.objectContaining({ step_id: 'bye', type: 'exit' })] });

    const tag = async (tags: string[]) => expect((await account.api('PATCH', `/api/contacts/${ada.id}`, { body: { tags } })).status).toBe(200);
    const count = async (automationId: string) =>
      (await account.api('GET', `/api/automations/${automationId}/enrollments?contact_id=${ada.id}`)).body.data.length;
    await tag(['vip', 'gold']);
    await enrollmentOf(account, always, ada.id, 'waiting');
    await enrollmentOf(account, afterExit, ada.id, 'waiting');
    await tag([]);
    await tag(['vip', 'gold']);
    await waitFor(async () => ((await count(always)) === 2 ? true : undefined));
    // Still in the gold journey: not again until it ends.
    await new Promise((r) => setTimeout(r, 500));
    expect(await count(afterExit)).toBe(1);
    await account.api('POST', `/api/contacts/${ada.id}/events`, { body: { name: 'done' } });
    await enrollmentOf(account, afterExit, ada.id, 'completed');
    await tag([]);
    await tag(['gold']);
    await waitFor(async () => ((await count(afterExit)) === 2 ? true : undefined));
    // Contact created once: `never` enrolled it once.
    expect(
      (await account.api('GET', `/api/automations/${created}/enrollments`)).body.data.filter((e: { contact_id: string }) => e.contact_id === ada.id),
    ).toHaveLength(1);
  });

  it('sends no email to an unsubscribed contact, and holds email outside the send window in the contact’s zone', async () => {
    const templateId = await publishedTemplate(account, 'window', '<p>Hello</p>', 'Hello');
    const hour = new Date().getUTCHours();
    const automationId = await activeAutomation(account, {
      name: 'Office hours',
      trigger: { type: 'manual' },
      // Open for one hour, two hours from now in UTC: open now where the clock is two hours ahead.
      settings: { send_window: { from: (hour + 2) % 24, to: ((hour + 2) % 24) + 1 } },
      steps: [{ id: 'mail', type: 'send_email', template_id: templateId, from_email: 'office@shop.example' }],
    });
    const [utc, ahead, gone] = await Promise.all([
      contact(account, 'window-utc', { timezone: 'UTC' }),
      contact(account, 'window-ahead', { timezone: 'Etc/GMT-2' }),
      contact(account, 'window-gone', { timezone: 'Etc/GMT-2', status: 'unsubscribed' }),
    ]);
    await account.api('POST', `/api/automations/${automationId}/enrollments`, { body: { contact_ids: [utc.id, ahead.id, gone.id] } });
    await received(ahead.email);
    const held = await enrollmentOf(account, automationId, utc.id, 'waiting');
    expect(held.step_id).toBe('mail');
    expect(new Date(held.next_step_at).getUTCHours()).toBe((hour + 2) % 24);
    expect(held.path).toEqual([]);
    const skipped = await enrollmentOf(account, automationId, gone.id, 'completed');
    expect(skipped.path).toEqual([expect.objectContaining({ step_id: 'mail', message_id: null, detail: 'unsubscribed' })]);
    expect(sink.to(utc.email)).toHaveLength(0);
    expect(sink.to(gone.email)).toHaveLength(0);
  });

  it('splits 10,000 contacts by the branches’ percents, and their backlog holds up no other account', async () => {
    const emails = Array.from({ length: 10_000 }, (_, i) => `split${i}-${Date.now()}@split.example`);
    for (let i = 0; i < emails.length; i += 5000) {
      const imported = await account.api('POST', '/api/contacts/import', { body: { contacts: emails.slice(i, i + 5000).map((email) => ({ email })) } });
      expect(imported.status).toBeLessThan(300);
    }
    const automationId = await activeAutomation(account, {
      name: 'A/B/C',
      trigger: { type: 'manual' },
      steps: [
        {
          id: 'split',
          type: 'split',
          branches: [
            { percent: 20, next: 'a' },
            { percent: 30, next: 'b' },
            { percent: 50, next: null },
          ],
        },
        { id: 'a', type: 'exit' },
        { id: 'b', type: 'exit' },
      ],
    });
    for (let i = 0; i < emails.length; i += 10_000)
      await account.api('POST', `/api/automations/${automationId}/enrollments`, { body: { emails: emails.slice(i, i + 10_000) } });
    const figures = await waitFor(async () => {
      const res = await account.api('GET', `/api/analytics/automations/${automationId}`);
      return res.body.enrollments.exited + res.body.enrollments.completed === 10_000 ? res.body : undefined;
    }, 60_000);
    const entered = Object.fromEntries(figures.steps.map((s: { step_id: string; entered: number }) => [s.step_id, s.entered]));
    // Binomial: three standard deviations of 10,000 draws at 20 % and 30 % are about 120 and 140.
    expect(Math.abs(entered.a - 2000)).toBeLessThan(150);
    expect(Math.abs(entered.b - 3000)).toBeLessThan(150);
    expect(Math.abs(figures.enrollments.completed - 5000)).toBeLessThan(160);

    // A backlog of 10,000 emails in this account's journey holds up no other account's journey.
    const templateId = await publishedTemplate(account, 'backlog', '<p>Hi</p>', 'Hi');
    const backlog = await activeAutomation(account, {
      name: 'Backlog',
      trigger: { type: 'manual' },
      steps: [{ id: 'mail', type: 'send_email', template_id: templateId, from_email: 'bulk@shop.example' }],
    });
    const otherTemplate = await publishedTemplate(other, 'quick', '<p>Hi</p>', 'Hi');
    const quick = await activeAutomation(other, {
      name: 'Quick',
      trigger: { type: 'manual' },
      steps: [{ id: 'mail', type: 'send_email', template_id: otherTemplate, from_email: 'quick@other.example' }],
    });
    const theirs = await contact(other, 'quick');
    await account.api('POST', `/api/automations/${backlog}/enrollments`, { body: { emails } });
    await other.api('POST', `/api/automations/${quick}/enrollments`, { body: { contact_ids: [theirs.id] } });
    await enrollmentOf(other, quick, theirs.id, 'completed');
    const left = await sql("select count(*)::int as n from automation_enrollments where automation_id = $1 and status = 'active'", [backlog]);
    expect(left[0].n).toBeGreaterThan(0);
  }, 120_000);

  it("shows nothing of one account's automations to another", async () => {
    const automationId = await activeAutomation(account, { name: 'Mine', trigger: { type: 'manual' }, steps: [{ id: 'x', type: 'exit' }] });
    const ada = await contact(account, 'isolated');
    for (const [method, path] of [
      ['GET', `/api/automations/${automationId}`],
      ['PATCH', `/api/automations/${automationId}`],
      ['DELETE', `/api/automations/${automationId}`],
      ['POST', `/api/automations/${automationId}/pause`],
      ['POST', `/api/automations/${automationId}/archive`],
      ['POST', `/api/automations/${automationId}/activate`],
      ['GET', `/api/automations/${automationId}/enrollments`],
      ['GET', `/api/analytics/automations/${automationId}`],
      ['GET', `/api/contacts/${ada.id}/automations`],
    ] as const) {
      const res = await other.api(method, path, method === 'PATCH' ? { body: { name: 'theirs' } } : undefined);
      expectProblem(res, 404, 'not_found');
    }
    expectProblem(await other.api('POST', `/api/automations/${automationId}/enrollments`, { body: { contact_ids: [ada.id] } }), 404, 'not_found');
    expectProblem(await other.api('POST', `/api/contacts/${ada.id}/events`, { body: { name: 'x' } }), 404, 'not_found');
    expect((await other.api('GET', '/api/automations')).body.data.map((a: { id: string }) => a.id)).not.toContain(automationId);
  });
});
