import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { Problem } from '../../server/contract/problem.ts';
import { renderTemplate } from '../../server/templates/service.ts';
import { expectProblem, newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sendline: Sendline;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL: 'https://mail.example.test',
    SEND_BATCH_SIZE: '5',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

async function template(account: TestAccount, body: Record<string, unknown>) {
  const res = await account.api('POST', '/api/templates', { body });
  if (res.status !== 201) throw new Error(`template not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function published(account: TestAccount, body: Record<string, unknown>) {
  const created = await template(account, body);
  const res = await account.api('POST', `/api/templates/${created.id}/publish`);
  if (res.status !== 201) throw new Error(`not published: ${res.status} ${JSON.stringify(res.body)}`);
  return { template: created, version: res.body };
}

const render = (account: TestAccount, id: string, body: Record<string, unknown> = {}) => account.api('POST', `/api/templates/${id}/render`, { body });

describe('template drafts and versions', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'tpl-versions');
  });

  it('publishes numbered versions that later edits of the draft do not change', async () => {
    const t = await template(account, { name: 'receipt', subject: 'Order {{ order.id }}', html: '<p>Thanks v1</p>' });
    expect(t).toMatchObject({ name: 'receipt', description: null, text: null, published_version: null });
    const v1 = await account.api('POST', `/api/templates/${t.id}/publish`);
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ template_id: t.id, version: 1, subject: 'Order {{ order.id }}', html: '<p>Thanks v1</p>', partials: [] });

    const edited = await account.api('PATCH', `/api/templates/${t.id}`, { body: { html: '<p>Thanks v2</p>', description: 'Receipts' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ html: '<p>Thanks v2</p>', subject: 'Order {{ order.id }}', description: 'Receipts', published_version: 1 });

    // The draft renders the edit; version 1 stays as published.
    expect((await render(account, t.id, { data: { order: { id: 'A-1' } } })).body).toMatchObject({ subject: 'Order A-1', html: '<p>Thanks v2</p>' });
    expect((await render(account, t.id, { version: 1 })).body.html).toBe('<p>Thanks v1</p>');
    expect((await account.api('GET', `/api/templates/${t.id}/versions/1`)).body.html).toBe('<p>Thanks v1</p>');

    const v2 = await account.api('POST', `/api/templates/${t.id}/publish`);
    expect(v2.body.version).toBe(2);
    expect((await account.api('GET', `/api/templates/${t.id}`)).body.published_version).toBe(2);
    const list = await account.api('GET', `/api/templates/${t.id}/versions?limit=1`);
    expect(list.body.data.map((v: { version: number }) => v.version)).toEqual([2]);
    const rest = await account.api('GET', `/api/templates/${t.id}/versions?limit=1&cursor=${list.body.next_cursor}`);
    expect(rest.body).toMatchObject({ data: [{ version: 1 }], has_more: false });

    // Versions have no write route at all.
    expect((await account.api('PATCH', `/api/templates/${t.id}/versions/1`, { body: { html: 'x' } })).status).toBe(405);
    expectProblem(await account.api('GET', `/api/templates/${t.id}/versions/3`), 404, 'not_found');
    expectProblem(await render(account, t.id, { version: 3 }), 400, 'validation_failed');
  });

  it('lists templates a page at a time and refuses a second template of the same name, whatever the case', async () => {
    const other = await newAccount(sendline.url, 'tpl-list');
    const a = await template(other, { name: 'Alpha' });
    await template(other, { name: 'beta' });
    const taken = await other.api('POST', '/api/templates', { body: { name: 'ALPHA' } });
    expectProblem(taken, 409, 'template_name_taken');
    expect(taken.body.existing_id).toBe(a.id);
    const first = await other.api('GET', '/api/templates?limit=1');
    expect(first.body).toMatchObject({ data: [{ name: 'Alpha' }], has_more: true });
    const second = await other.api('GET', `/api/templates?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ data: [{ name: 'beta' }], has_more: false });
    expectProblem(await other.api('PATCH', `/api/templates/${second.body.data[0].id}`, { body: { name: 'alpha' } }), 409, 'template_name_taken');
    expectProblem(await other.api('POST', '/api/templates', { body: { name: "it's" } }), 400, 'validation_failed');
    expectProblem(await other.api('POST', '/api/templates', { body: { name: 'tab\there' } }), 400, 'validation_failed');
  });

  it('deletes a template and its versions', async () => {
    const { template: t } = await published(account, { name: 'short-lived', html: 'x' });
    expect((await account.api('DELETE', `/api/templates/${t.id}`)).status).toBe(204);
    expectProblem(await account.api('GET', `/api/templates/${t.id}`), 404, 'not_found');
    expectProblem(await account.api('GET', `/api/templates/${t.id}/versions/1`), 404, 'not_found');
  });
});

describe('layouts and partials', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'tpl-partials');
    await published(account, { name: 'footer', html: '<small>Bye {{ first_name }}</small>', text: 'Bye {{ first_name }}' });
    await published(account, {
      name: 'base',
      html: '<html><body><header>Shop</header>{% block content %}{% endblock %}<footer>{% render "footer" %}</footer></body></html>',
    });
  });

  it('renders a layout and its partials from the account, with the variables in every partial', async () => {
    const t = await template(account, {
      name: 'welcome',
      subject: 'Welcome {{ first_name }}',
      html: "{% layout 'base' %}{% block content %}<p>Hi {{ first_name }}</p>{% endblock %}",
    });
    const res = await render(account, t.id, { data: { first_name: '<Ada>' } });
    expect(res.status).toBe(200);
    expect(res.body.subject).toBe('Welcome <Ada>');
    expect(res.body.html).toBe('<html><body><header>Shop</header><p>Hi &lt;Ada&gt;</p><footer><small>Bye &lt;Ada&gt;</small></footer></body></html>');
    expect(res.body.text).toContain('Hi <Ada>');
    expect(res.body.text).toContain('Bye <Ada>');

    const v = await account.api('POST', `/api/templates/${t.id}/publish`);
    expect(v.body.partials).toEqual(['base', 'footer']);
  });

  it('freezes partials into a version: publishing a partial again changes drafts, not versions', async () => {
    const t = await template(account, { name: 'note', html: "<p>Note</p>{% render 'sig' %}" });
    const sig = await template(account, { name: 'sig', html: '<i>old</i>' });
    await account.api('POST', `/api/templates/${sig.id}/publish`);
    await account.api('POST', `/api/templates/${t.id}/publish`);
    await account.api('PATCH', `/api/templates/${sig.id}`, { body: { html: '<i>new</i>' } });
    // A partial's draft is not used: only what it published.
    expect((await render(account, t.id)).body.html).toBe('<p>Note</p><i>old</i>');
    await account.api('POST', `/api/templates/${sig.id}/publish`);
    expect((await render(account, t.id)).body.html).toBe('<p>Note</p><i>new</i>');
    expect((await render(account, t.id, { version: 1 })).body.html).toBe('<p>Note</p><i>old</i>');
  });

  it('finds no partial of another account, nor one never published', async () => {
    const other = await newAccount(sendline.url, 'tpl-other');
    await published(other, { name: 'secret', html: 'the other account' });
    const t = await template(account, { name: 'thief', html: "<p>{% render 'secret' %}</p>" });
    const res = await render(account, t.id);
    expectProblem(res, 422, 'template_error');
    expect(res.body.errors[0].detail).toMatch(/no published template of this account is named "secret"/);
    expect(JSON.stringify(res.body)).not.toContain('the other account');
    expectProblem(await account.api('POST', `/api/templates/${t.id}/publish`), 422, 'template_error');

    await template(account, { name: 'unpublished', html: 'draft only' });
    const draftOnly = await template(account, { name: 'uses-draft', html: "{% render 'unpublished' %}" });
    expectProblem(await render(account, draftOnly.id), 422, 'template_error');
  });

  it('refuses partials that call themselves, names that are not quoted and include', async () => {
    const loop = await template(account, { name: 'loop-a', html: "{% render 'loop-a' %}" });
    // Its first publish has no version of itself to call yet; the second would call itself.
    expect((await account.api('POST', `/api/templates/${loop.id}/publish`)).status).toBe(422);
    // Frozen versions cannot loop: a cycle appears only when a version would freeze one.
    const { template: ping } = await published(account, { name: 'ping', html: 'x' });
    const { template: pong } = await published(account, { name: 'pong', html: "{% render 'ping' %}" });
    await account.api('PATCH', `/api/templates/${ping.id}`, { body: { html: "{% render 'pong' %}" } });
    expect((await account.api('POST', `/api/templates/${ping.id}/publish`)).status).toBe(201);
    expect((await render(account, ping.id, { version: 2 })).body.html).toBe('x');
    await account.api('PATCH', `/api/templates/${pong.id}`, { body: { html: "<b>{% render 'ping' %}</b>" } });
    const cycle = await account.api('POST', `/api/templates/${pong.id}/publish`);
    expectProblem(cycle, 422, 'template_error');
    expect(cycle.body.errors[0].detail).toBe('"ping" calls itself: ping → pong → ping');

    const dynamic = await account.api('POST', '/api/templates', { body: { name: 'dyn', html: '<p>\n  {% render partial_name %}</p>' } });
    expectProblem(dynamic, 422, 'template_error');
    expect(dynamic.body.errors[0]).toMatchObject({ pointer: '/html', line: 2, column: 3 });
    const include = await account.api('POST', '/api/templates', { body: { name: 'inc', html: "{% include 'footer' %}" } });
    expectProblem(include, 422, 'template_error');
    expect(include.body.errors[0].detail).toMatch(/include %} is not available/);
  });
});

describe('render errors and limits', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'tpl-errors');
  });

  it('answers a draft that does not parse with the line and column of each error', async () => {
    const res = await account.api('POST', '/api/templates', { body: { name: 'broken', subject: 'Hi {{ name', html: '<p>ok</p>\n<p>{% if x %}</p>' } });
    expectProblem(res, 422, 'template_error');
    expect(res.body.errors).toEqual([
      { pointer: '/subject', line: 1, column: 4, detail: expect.stringMatching(/^line 1, column 4: output "\{\{ name" not closed/) },
      { pointer: '/html', line: 2, column: 4, detail: expect.stringMatching(/^line 2, column 4: tag \{% if x %\} not closed/) },
    ]);
    expect((await account.api('GET', '/api/templates')).body.data).toEqual([]);
  });

  it('answers a render error with its position, in the partial where it is', async () => {
    const filter = await account.api('POST', '/api/templates', { body: { name: 'filtered', html: 'a\n  {{ x | no_such_filter }}' } });
    expectProblem(filter, 422, 'template_error');
    expect(filter.body.errors[0]).toMatchObject({ pointer: '/html', line: 2, column: 3, detail: expect.stringMatching(/undefined filter: no_such_filter/) });

    const loop = await template(account, { name: 'huge', html: '<p>\n {% for i in (1..100000000) %}{{ i }}{% endfor %}</p>' });
    const res = await render(account, loop.id);
    expectProblem(res, 422, 'template_error');
    expect(res.body.errors[0]).toMatchObject({ pointer: '/html', line: 2, column: 2, detail: expect.stringMatching(/memory alloc limit exceeded/) });

    await published(account, { name: 'heavy', html: 'a\n  {% for i in (1..100000000) %}{{ i }}{% endfor %}' });
    const caller = await template(account, { name: 'calls-heavy', html: "<p>{% render 'heavy' %}</p>" });
    const inPartial = await render(account, caller.id);
    expectProblem(inPartial, 422, 'template_error');
    expect(inPartial.body.errors[0]).toMatchObject({
      pointer: '/html',
      line: 2,
      column: 3,
      detail: expect.stringMatching(/^in "heavy", line 2, column 3: memory alloc limit/),
    });
  }, 30_000);

  it('refuses partials nested deeper than the limit', async () => {
    await published(account, { name: 'level-0', html: 'bottom' });
    for (let i = 1; i <= 8; i++) await published(account, { name: `level-${i}`, html: `{% render 'level-${i - 1}' %}` });
    const ok = await template(account, { name: 'deep-ok', html: "{% render 'level-7' %}" });
    expect((await render(account, ok.id)).body.html).toBe('bottom');
    const deep = await template(account, { name: 'deep', html: "{% render 'level-8' %}" });
    const res = await render(account, deep.id);
    expectProblem(res, 422, 'template_error');
    expect(res.body.errors[0].detail).toMatch(/nest more than 8 deep/);
  }, 30_000);

  it('renders for a contact of the account, and not for another account’s', async () => {
    const contact = await account.api('POST', '/api/contacts', { body: { email: 'ada@inbox.example', first_name: 'Ada', attributes: { city: 'Rome' } } });
    const t = await template(account, { name: 'hello', subject: 'Hi {{ first_name }}', html: '<p>{{ contact.email }} in {{ city }}, {{ plan }}</p>' });
    const res = await render(account, t.id, { contact_id: contact.body.id, data: { plan: 'gold', first_name: 'ignored' } });
    expect(res.body).toMatchObject({ subject: 'Hi Ada', html: '<p>ada@inbox.example in Rome, gold</p>' });
    const other = await newAccount(sendline.url, 'tpl-errors-other');
    const theirs = await other.api('POST', '/api/contacts', { body: { email: 'eve@inbox.example' } });
    expectProblem(await render(account, t.id, { contact_id: theirs.body.id }), 422, 'contact_not_found');
  });
});

describe('test sends', () => {
  it('sends the draft or a version, marked as a test, through the campaigns’ test send', async () => {
    const account = await newAccount(sendline.url, 'tpl-test');
    const { template: t } = await published(account, { name: 'promo', subject: 'Deal {{ deal }} for {{ first_name }}', html: '<p>Only {{ deal }}</p>' });
    await account.api('PATCH', `/api/templates/${t.id}`, { body: { subject: 'New deal {{ deal }}' } });
    // No contact has the address: the data's first_name is not hidden by the missing contact's.
    const res = await account.api('POST', `/api/templates/${t.id}/test`, {
      body: { emails: ['qa-tpl@inbox.example'], from_email: 'shop@shop.example', data: { deal: '50%', first_name: 'Ada' }, version: 1 },
    });
    expect(res.body).toEqual({ accepted: ['qa-tpl@inbox.example'], rejected: [] });
    const [mail] = sink.to('qa-tpl@inbox.example');
    expect(mail.mail.subject).toBe('[Test] Deal 50% for Ada');
    expect(mail.mail.html).toContain('<p>Only 50%</p>');
    expect(mail.mail.headers.get('x-sendline-test')).toBe('true');
    const broken = await template(account, { name: 'bad-render', html: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' });
    expectProblem(
      await account.api('POST', `/api/templates/${broken.id}/test`, { body: { emails: ['qa-tpl@inbox.example'], from_email: 'shop@shop.example' } }),
      422,
      'template_error',
    );
  }, 30_000);
});

describe('campaigns that send a template', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'tpl-campaigns');
    await account.api('POST', '/api/contacts', { body: { email: 'ann-tpl@inbox.example', first_name: 'Ann', tags: ['tpl'] } });
    await account.api('POST', '/api/contacts', { body: { email: 'bob-tpl@inbox.example', tags: ['tpl'] } });
  });

  const campaign = (body: Record<string, unknown>) =>
    account.api('POST', '/api/campaigns', { body: { name: 'From a template', from_email: 'news@shop.example', audience: { tags_any: ['tpl'] }, ...body } });

  it('sends the latest published version, frozen when sending starts, with the template data', async () => {
    await published(account, {
      name: 'layout',
      html: '<html><body>{% block content %}{% endblock %}<p><a href="{{ unsubscribe_url }}">Leave</a></p></body></html>',
    });
    const { template: t } = await published(account, {
      name: 'newsletter',
      subject: '{{ issue }} for {{ first_name | default: "you" }}',
      html: "{% layout 'layout' %}{% block content %}<p>Issue {{ issue }}, {{ first_name | default: 'friend' }}</p>{% endblock %}",
    });
    const created = await campaign({ template_id: t.id, template_data: { issue: 'No. 7', first_name: 'reader' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ template_id: t.id, template_version: null, template_data: { issue: 'No. 7' }, subject: '', content: '' });

    // Published after the campaign was made: the version sent is the latest when sending starts.
    await account.api('PATCH', `/api/templates/${t.id}`, {
      body: { html: "{% layout 'layout' %}{% block content %}<p>Issue {{ issue }} v2, {{ first_name | default: 'friend' }}</p>{% endblock %}" },
    });
    await account.api('POST', `/api/templates/${t.id}/publish`);
    const started = await account.api('POST', `/api/campaigns/${created.body.id}/send`);
    expect(started.body).toMatchObject({ status: 'sending', template_version: 2 });
    // A draft edited now changes nothing sent.
    await account.api('PATCH', `/api/templates/${t.id}`, { body: { subject: 'changed' } });
    await waitFor(async () => (await account.api('GET', `/api/campaigns/${created.body.id}`)).body.status === 'completed');

    const [ann] = sink.to('ann-tpl@inbox.example');
    expect(ann.mail.subject).toBe('No. 7 for Ann');
    expect(ann.mail.html).toContain('<p>Issue No. 7 v2, Ann</p>');
    // The author's unsubscribe link is in the layout: no footer is added.
    expect(ann.mail.html).not.toContain('You receive this email because you subscribed');
    expect(ann.mail.html).toMatch(/<a href="https:\/\/mail\.example\.test\/u\/[\w.-]+">Leave<\/a>/);
    const [bob] = sink.to('bob-tpl@inbox.example');
    // Bob has no first name: the data's stands in, as a default for every unnamed contact.
    expect(bob.mail.subject).toBe('No. 7 for reader');
    expect(bob.mail.html).toContain('<p>Issue No. 7 v2, reader</p>');
  }, 30_000);

  it('sends a named version, and test-sends it', async () => {
    const { template: t } = await published(account, { name: 'pinned', subject: 'Pinned v1', html: '<p>v1</p>' });
    await account.api('PATCH', `/api/templates/${t.id}`, { body: { subject: 'Pinned v2' } });
    await account.api('POST', `/api/templates/${t.id}/publish`);
    const created = await campaign({ template_id: t.id, template_version: 1, audience: { tags_any: ['nobody'] } });
    const res = await account.api('POST', `/api/campaigns/${created.body.id}/test`, { body: { emails: ['qa-pinned@inbox.example'] } });
    expect(res.body.accepted).toEqual(['qa-pinned@inbox.example']);
    expect(sink.to('qa-pinned@inbox.example')[0].mail.subject).toBe('[Test] Pinned v1');
  });

  it('refuses a template of another account, a missing version, and sending before anything is published', async () => {
    const other = await newAccount(sendline.url, 'tpl-campaigns-other');
    const { template: theirs } = await published(other, { name: 'theirs', html: 'x' });
    expectProblem(await campaign({ template_id: theirs.id }), 400, 'validation_failed');
    const mine = await template(account, { name: 'never-published', html: 'x' });
    const res = await campaign({ template_id: mine.id, template_version: 4 });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].pointer).toBe('/template_version');
    expectProblem(await campaign({}), 400, 'validation_failed');

    const draft = await campaign({ template_id: mine.id });
    expect(draft.status).toBe(201);
    const send = await account.api('POST', `/api/campaigns/${draft.body.id}/send`);
    expectProblem(send, 400, 'validation_failed');
    expect(send.body.errors[0].detail).toMatch(/no published version/);
    expect((await account.api('GET', `/api/campaigns/${draft.body.id}`)).body.status).toBe('draft');
    expectProblem(
      await account.api('POST', `/api/campaigns/${draft.body.id}/schedule`, { body: { scheduled_at: '2099-01-01T00:00:00Z' } }),
      400,
      'validation_failed',
    );

    // Not deletable while the draft campaign uses it; deletable once the campaign is cancelled.
    expectProblem(await account.api('DELETE', `/api/templates/${mine.id}`), 409, 'template_in_use');
    await account.api('POST', `/api/campaigns/${draft.body.id}/cancel`);
    expect((await account.api('DELETE', `/api/templates/${mine.id}`)).status).toBe(204);
  });

  it('keeps inline campaigns as they were', async () => {
    const res = await campaign({ subject: 'Inline', content: '<p>inline</p>' });
    expect(res.body).toMatchObject({ subject: 'Inline', template_id: null, template_version: null, template_data: null });
  });
});

describe('renderTemplate, for transactional emails', () => {
  it('renders the latest published version or the one named, for the account only', async () => {
    const account = await newAccount(sendline.url, 'tpl-emails');
    const { template: t } = await published(account, { name: 'reset', subject: 'Reset for {{ email }}', html: '<a href="{{ link }}">v1</a>' });
    await account.api('PATCH', `/api/templates/${t.id}`, { body: { html: '<a href="{{ link }}">v2</a>' } });
    await account.api('POST', `/api/templates/${t.id}/publish`);
    const render = (accountId: string, version: number | undefined) =>
      renderTemplate(sendline.orm.em.fork(), sendline.templates, accountId, t.id, version, {
        email: 'ada@inbox.example',
        link: 'https://shop.example/r?a=1&b=2',
      });
    expect(await render(account.accountId, undefined)).toEqual({
      subject: 'Reset for ada@inbox.example',
      html: '<a href="https://shop.example/r?a=1&amp;b=2">v2</a>',
      text: 'v2 [https://shop.example/r?a=1&b=2]',
    });
    expect(await render(account.accountId, 1)).toMatchObject({ html: '<a href="https://shop.example/r?a=1&amp;b=2">v1</a>' });
    const missing = await render(account.accountId, 7);
    expect(missing).toBeInstanceOf(Problem);
    expect(missing).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ pointer: '/template_version' }] });
    const other = await newAccount(sendline.url, 'tpl-emails-other');
    expect(await render(other.accountId, undefined)).toMatchObject({ status: 400, errors: [{ pointer: '/template_id' }] });

    const { template: looping } = await published(account, { name: 'loops', html: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' });
    const failed = await renderTemplate(sendline.orm.em.fork(), sendline.templates, account.accountId, looping.id, undefined, {});
    expect(failed).toMatchObject({
      status: 422,
      code: 'template_error',
      errors: [
        { pointer: '/html', line: 1, column: 1 },
        { pointer: '/text', line: 1, column: 1 },
      ],
    });
  });
});

describe('tenant isolation', () => {
  it('finds no template of another account on any route', async () => {
    const owner = await newAccount(sendline.url, 'tpl-owner');
    const intruder = await newAccount(sendline.url, 'tpl-intruder');
    const { template: t } = await published(owner, { name: 'private', subject: 'secret', html: '<p>secret</p>' });
    const routes: [string, string, Record<string, unknown>?][] = [
      ['GET', `/api/templates/${t.id}`],
      ['PATCH', `/api/templates/${t.id}`, { subject: 'mine now' }],
      ['DELETE', `/api/templates/${t.id}`],
      ['POST', `/api/templates/${t.id}/publish`],
      ['GET', `/api/templates/${t.id}/versions`],
      ['GET', `/api/templates/${t.id}/versions/1`],
      ['POST', `/api/templates/${t.id}/render`, {}],
      ['POST', `/api/templates/${t.id}/test`, { emails: ['x@inbox.example'], from_email: 'a@shop.example' }],
    ];
    for (const [method, path, body] of routes) expectProblem(await intruder.api(method, path, body ? { body } : {}), 404, 'not_found');
    expect((await intruder.api('GET', '/api/templates')).body.data).toEqual([]);
    // The intruder may use the same name: names are per account.
    expect((await intruder.api('POST', '/api/templates', { body: { name: 'private' } })).status).toBe(201);
    const mine = await owner.api('GET', `/api/templates/${t.id}`);
    expect(mine.body).toMatchObject({ subject: 'secret', published_version: 1 });
    expect((await owner.api('GET', `/api/templates/${t.id}/versions`)).body.data).toHaveLength(1);
  });
});
