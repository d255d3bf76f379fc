/**
 * A campaign's public pages: each message's web version behind its signed link, and the
 * account's archive of published campaigns with its Atom feed. Mail through an SMTP sink, pages
 * fetched as a reader's browser fetches them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, uniqueEmail, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

const PUBLIC_URL = 'http://mail.pages.test';
let sendline: Sendline;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({ SMTP_URL: sink.url, PUBLIC_URL });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

/** A path of this server, from a link in a mail. */
const local = (url: string) => url.replace(PUBLIC_URL, '');
const get = (path: string, init: RequestInit = {}) => fetch(sendline.url + path, { redirect: 'manual', ...init });

async function contact(account: TestAccount, firstName: string, tag: string) {
  const res = await account.api('POST', '/api/contacts', { body: { email: uniqueEmail(firstName.toLowerCase()), first_name: firstName, tags: [tag] } });
  expect(res.status).toBe(201);
  return res.body as { id: string; email: string };
}

/** Sends a campaign to the contacts tagged `tag` and waits until it completed. */
async function sent(account: TestAccount, tag: string, fields: Record<string, unknown>): Promise<string> {
  const created = await account.api('POST', '/api/campaigns', {
    body: {
      name: tag,
      subject: 'Hello {{ first_name }}',
      from_email: 'news@shop.example',
      content: '<p>Hi {{ first_name }}</p>',
      audience: { tags_any: [tag] },
      ...fields,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await account.api('POST', `/api/campaigns/${created.body.id}/send`);
  await waitFor(async () => (await account.api('GET', `/api/campaigns/${created.body.id}`)).body.status === 'completed');
  return created.body.id;
}

const htmlTo = (email: string) => String(sink.to(email).at(-1)!.mail.html);
const viewLink = (email: string) => local(/href="([^"]+\/v\/[^"]+)">View in browser/.exec(htmlTo(email))![1]);

describe("a message's web version", () => {
  it("shows that recipient's message, personalised, and nothing of another's", async () => {
    const account = await newAccount(sendline.url, 'pages');
    const ada = await contact(account, 'Ada', 'web');
    const grace = await contact(account, 'Grace', 'web');
    await sent(account, 'web', { content: '<p>Hi {{ first_name }}</p><a href="https://shop.example/">Shop</a>' });
    const page = await get(viewLink(ada.email));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).toContain('<p>Hi Ada</p>');
    expect(html).not.toContain('Grace');
    // Reading it is not opening or clicking the mail.
    expect(html).toContain('<a href="https://shop.example/">Shop</a>');
    expect(html).not.toMatch(/\/t\/(o|c)\//);
    expect(await (await get(viewLink(grace.email))).text()).toContain('<p>Hi Grace</p>');
    expect(String(sink.to(ada.email)[0].mail.text)).toContain(`View in browser: ${PUBLIC_URL}${viewLink(ada.email)}`);
  });

  it('answers 404 for a forged or altered token, or one made for another page', async () => {
    const account = await newAccount(sendline.url, 'pages');
    const ada = await contact(account, 'Ada', 'forged');
    await sent(account, 'forged', {});
    const view = viewLink(ada.email);
    const token = view.slice(3);
    const unsubscribe = local(/href="([^"]+\/u\/[^"]+)"/.exec(htmlTo(ada.email))![1]);
    const [id, payload, mac] = token.split('.');
    const other = Buffer.from(JSON.stringify(['v', 'msg_0000000000000000000000'])).toString('base64url');
    for (const path of [`/v/${id}.${other}.${mac}`, `/v/${id}.${payload}.${mac.slice(0, -2)}AA`, `/v/${unsubscribe.slice(3)}`, '/v/', '/v/x'.repeat(500)]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
    }
    expect((await get(view, { method: 'POST' })).status).toBe(405);
  });

  it('is left out when the campaign says so, and placed where the content puts {{ web_version_url }}', async () => {
    const account = await newAccount(sendline.url, 'pages');
    const off = await contact(account, 'Off', 'off');
    await sent(account, 'off', { web_version_link: false });
    expect(htmlTo(off.email)).not.toContain('/v/');
    const placed = await contact(account, 'Placed', 'placed');
    await sent(account, 'placed', { content: '<p><a href="{{ web_version_url }}">Read it online</a></p>' });
    const html = htmlTo(placed.email);
    expect(html).not.toContain('View in browser');
    const link = local(/href="([^"]+\/v\/[^"]+)">Read it online/.exec(html)![1]);
    expect(await (await get(link)).text()).toContain('Read it online');
  });

  it('is gone once its contact is erased', async () => {
    const account = await newAccount(sendline.url, 'pages');
    const ada = await contact(account, 'Ada', 'erased');
    await sent(account, 'erased', {});
    const view = viewLink(ada.email);
    expect((await get(view)).status).toBe(200);
    expect((await account.api('POST', `/api/contacts/${ada.id}/erase`)).status).toBe(200);
    const page = await get(view);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain('Ada');
  });

  it('of a test send says it is one', async () => {
    const account = await newAccount(sendline.url, 'pages');
    const created = await account.api('POST', '/api/campaigns', { body: { name: 'T', subject: 'T', from_email: 'news@shop.example', content: '<p>T</p>' } });
    const to = uniqueEmail('tester');
    await account.api('POST', `/api/campaigns/${created.body.id}/test`, { body: { emails: [to] } });
    await waitFor(() => sink.to(to).length > 0);
    const page = await get(viewLink(to));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('test message');
  });
});

describe("an account's archive", () => {
  it('lists the published campaigns newest first, with their archive fields and no contact data, and an Atom feed', async () => {
    const account = await newAccount(sendline.url, 'archive');
    const ada = await contact(account, 'Ada', 'arch');
    const { public_id: publicId } = (await account.api('GET', '/api/account')).body;
    expect(publicId).toMatch(/^[A-Za-z0-9]{22}$/);
    const first = await sent(account, 'arch', { subject: 'First for {{ first_name }}', archive: true, content: '<p>Dear {{ first_name }} ({{ email }})</p>' });
    const hidden = await sent(account, 'arch', { subject: 'Not published', archive: false });
    const second = await sent(account, 'arch', {
      subject: 'Second for {{ first_name }}',
      archive: true,
      archive_meta: { first_name: 'reader' },
      content: '<p>Dear {{ first_name }} <a href="{{ unsubscribe_url }}">Leave</a></p>',
    });
    const draft = await account.api('POST', '/api/campaigns', {
      body: { name: 'D', subject: 'Draft', from_email: 'news@shop.example', content: '<p>D</p>', archive: true },
    });

    const listing = await get(`/archive/${publicId}`);
    expect(listing.status).toBe(200);
    const html = await listing.text();
    expect([...html.matchAll(/href="[^"]+\/(cmp_\w+)">([^<]*)</g)].map((m) => [m[1], m[2]])).toEqual([
      [second, 'Second for reader'],
      [first, 'First for'],
    ]);
    expect(html).not.toContain('Not published');
    expect(html).not.toContain('Ada');

    const page = await get(`/archive/${publicId}/${second}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<p>Dear reader <a href="#">Leave</a></p>');
    const plain = await (await get(`/archive/${publicId}/${first}`)).text();
    expect(plain).toBe('<p>Dear  ()</p>');
    expect(plain).not.toContain(ada.email);

    const feed = await get(`/archive/${publicId}/feed.xml`);
    expect(feed.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const atom = await feed.text();
    expect(atom).toMatch(/^<\?xml version="1\.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/);
    expect([...atom.matchAll(/<entry>\n<title>([^<]*)<\/title>/g)].map((m) => m[1])).toEqual(['Second for reader', 'First for']);
    expect(atom).toContain(`<link rel="alternate" type="text/html" href="${PUBLIC_URL}/archive/${publicId}/${second}"/>`);
    expect(atom).toContain('<content type="html">&#60;p&#62;Dear reader');
    expect(atom).not.toContain('Ada');

    for (const path of [
      `/archive/${publicId}/${hidden}`,
      `/archive/${publicId}/${draft.body.id}`,
      '/archive/nosuchaccount',
      '/archive/x/y/z',
      '/archive/../etc',
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
  });

  it('refuses archive fields over 16 KB, at /archive_meta', async () => {
    const account = await newAccount(sendline.url, 'archive');
    const res = await account.api('POST', '/api/campaigns', {
      body: {
        name: 'Big',
        subject: 'Big',
        from_email: 'news@shop.example',
        content: '<p>Big</p>',
        archive: true,
        archive_meta: { note: 'x'.repeat(17 * 1024) },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ pointer: '/archive_meta', detail: 'is larger than 16 KB as JSON' }]);
  });

  it("shows nothing of another account's campaigns under its public id", async () => {
    const owner = await newAccount(sendline.url, 'archive');
    const other = await newAccount(sendline.url, 'archive');
    await contact(other, 'Bo', 'theirs');
    const theirs = await sent(other, 'theirs', { archive: true });
    const mine = (await owner.api('GET', '/api/account')).body.public_id;
    expect((await get(`/archive/${mine}/${theirs}`)).status).toBe(404);
    expect(await (await get(`/archive/${mine}`)).text()).toContain('No campaigns yet.');
  });
});
