import { describe, expect, it } from 'vitest';
import { compileCampaign } from './campaign-template.ts';
import { TokenSigner } from '../tracked-links/tokens.ts';
import { VerpTokens } from '../tracked-links/verp.ts';
import { renderArchived, renderMessage, renderWebVersion, type CampaignForRender } from './campaign-message.ts';
import type { SenderDomain } from './addressing.ts';

const ring = [{ id: 'test', key: Buffer.from('a test key that is long enough for tokens').toString('base64') }];
const signer = new TokenSigner(ring);
const addressing = { publicUrl: 'https://mail.example.test', signer, verp: new VerpTokens(ring) };
const recipient = { messageId: 'msg_1', email: 'ada@example.com', firstName: 'Łukasz', lastName: null, tags: [], attributes: {} };

function campaignOf(content: string, options: { preheader?: string; webVersionLink?: boolean } = {}): CampaignForRender {
  return {
    id: 'cmp_1',
    name: 'Test',
    fromEmail: 'news@shop.example',
    fromName: null,
    replyTo: null,
    trackOpens: true,
    trackClicks: true,
    webVersionLink: options.webVersionLink ?? true,
    data: null,
    compiled: compileCampaign({ subject: 'Hi {{ first_name }}', content, textContent: 'text', preheader: options.preheader ?? null }),
  };
}

function rendered(content: string, options: { preheader?: string; recipient?: typeof recipient; sender?: SenderDomain; webVersionLink?: boolean } = {}) {
  return renderMessage(campaignOf(content, options), options.recipient ?? recipient, addressing, options.sender ?? null);
}

const render = (content: string, options: { preheader?: string } = {}) => rendered(content, options).html;

const clickUrls = (html: string) => [...html.matchAll(/\/t\/c\/([\w.-]+)/g)].map((m) => (signer.verify(m[1]) as { url: string }).url);

describe('rendering a message', () => {
  it('tracks each http(s) link once, as WHATWG URL serialisation writes it', () => {
    const html = render(
      `<html><body class="x"><a href="https://shop.example/hi?name={{ first_name }}&amp;x=1">a</a>
<A HREF='http://example.com/☃' href="https://second.example/">b</A><a href = https://bücher.example/ä >c</a>
<!-- <a href="https://comment.example/"> --><style>a[href="https://style.example/"]{}</style><a href="mailto:x@y.example">m</a><a href="https://exa mple.com/">bad</a></body></html>`,
      { preheader: 'Pre' },
    );
    expect(clickUrls(html)).toEqual(['https://shop.example/hi?name=%C5%81ukasz&x=1', 'http://example.com/%E2%98%83', 'https://xn--bcher-kva.example/%C3%A4']);
    expect(html).toContain('<body class="x"><div style="display:none');
    expect(html).toContain('href="mailto:x@y.example"');
    expect(html).toContain('<!-- <a href="https://comment.example/"> -->');
    expect(html).toContain('href="https://exa mple.com/"');
    expect(html).toMatch(
      /Unsubscribe<\/a> · <a href="https:\/\/mail\.example\.test\/v\/[\w.-]+">View in browser<\/a><\/p><img src="https:\/\/mail\.example\.test\/t\/o\/[\w.-]+\.gif"[^>]*><\/body><\/html>$/,
    );
  });

  it('takes linear time over unclosed tags', () => {
    for (const content of ['<a '.repeat(128_000), '<a href="'.repeat(100_000), '<body '.repeat(150_000)]) {
      const started = performance.now();
      render(content, { preheader: 'Pre' });
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it('puts links, the open pixel and unsubscribe links under the sending domain, and bounces to its VERP address', () => {
    const messageId = 'msg_0dXk3Qa1bCdEfGhIjKlMnO';
    const sender = { returnPathDomain: 'bounces.shop.example', linkBaseUrl: 'https://links.shop.example' };
    const message = rendered('<p><a href="https://shop.example/">Shop</a></p>', { recipient: { ...recipient, messageId }, sender });
    const urls = [...message.html.matchAll(/(?:src|href)="(https?:\/\/[^/"]+)\/(?:t|u|v)\//g)].map((m) => m[1]);
    expect(urls.length).toBe(4);
    expect(new Set(urls)).toEqual(new Set(['https://links.shop.example']));
    expect(message.headers['List-Unsubscribe']).toMatch(/^<https:\/\/links\.shop\.example\/u\//);
    expect(message.text).toContain('https://links.shop.example/u/');
    expect(message.returnPath).toMatch(/^b-msg-[0-9a-z]+-[0-9a-z]+@bounces\.shop\.example$/);
    expect(addressing.verp.messageOf(message.returnPath)).toBe(messageId);
    // A domain without a verified tracking record keeps PUBLIC_URL for its links.
    const untracked = rendered('<p>Hi</p>', { recipient: { ...recipient, messageId }, sender: { ...sender, linkBaseUrl: null } });
    expect(untracked.headers['List-Unsubscribe']).toMatch(/^<https:\/\/mail\.example\.test\/u\//);
    expect(rendered('<p>Hi</p>').returnPath).toBe('bounces+msg_1@shop.example');
  });

  it('links its web version, signed for the message, unless the content places the link or the campaign turns it off', () => {
    const message = rendered('<p>Hi</p>');
    const [token] = [...message.html.matchAll(/href="https:\/\/mail\.example\.test\/v\/([\w.-]+)">View in browser</g)].map((m) => m[1]);
    expect(signer.verify(token)).toEqual({ kind: 'view', messageId: 'msg_1' });
    expect(message.text).toContain(`View in browser: https://mail.example.test/v/${token}`);
    const placed = rendered('<p><a href="{{ web_version_url }}">Read online</a></p>');
    expect(placed.html).not.toContain('View in browser');
    // The link is not tracked: it is the message's own page.
    expect(placed.html).toContain(`<a href="https://mail.example.test/v/${token}">Read online</a>`);
    const off = rendered('<p>Hi</p>', { webVersionLink: false });
    expect(off.html).not.toContain('/v/');
    expect(off.text).not.toContain('/v/');
  });
});

describe('the pages of a campaign', () => {
  it("shows a message's web version personalised, untracked, with its unsubscribe link", () => {
    const page = renderWebVersion(
      campaignOf('<p>Hello {{ first_name }}</p><a href="https://shop.example/">Shop</a><a href="{{ unsubscribe_url }}">Leave</a>'),
      recipient,
      addressing,
    );
    expect(page.subject).toBe('Hi Łukasz');
    expect(page.html).toContain('<p>Hello Łukasz</p><a href="https://shop.example/">Shop</a>');
    expect(page.html).not.toMatch(/\/t\/(o|c)\//);
    const [unsubscribe] = [...page.html.matchAll(/\/u\/([\w.-]+)/g)].map((m) => m[1]);
    expect(signer.verify(unsubscribe)).toEqual({ kind: 'unsubscribe', messageId: 'msg_1' });
  });

  it('archives a campaign with its archive fields in place of any contact', () => {
    const campaign = campaignOf('<p>Hello {{ first_name | default: "reader" }} {{ email }} {{ plan }}</p><a href="{{ unsubscribe_url }}">Leave</a>');
    expect(renderArchived(campaign, {}).html).toBe('<p>Hello reader  </p><a href="#">Leave</a>');
    expect(renderArchived(campaign, { first_name: 'friend', plan: 'pro' }).html).toBe('<p>Hello friend  pro</p><a href="#">Leave</a>');
  });
});
