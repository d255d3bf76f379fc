import { describe, expect, it } from 'vitest';
import { compileCampaign } from './campaign-template.ts';
import { TokenSigner } from '../tracked-links/tokens.ts';
import { renderMessage, type CampaignForRender } from './campaign-message.ts';

const signer = new TokenSigner([{ id: 'test', key: Buffer.from('a test key that is long enough for tokens').toString('base64') }]);
const recipient = { messageId: 'msg_1', email: 'ada@example.com', firstName: 'Łukasz', lastName: null, tags: [], attributes: {} };

function render(content: string, options: { preheader?: string } = {}) {
  const campaign: CampaignForRender = {
    id: 'cmp_1',
    name: 'Test',
    fromEmail: 'news@shop.example',
    fromName: null,
    replyTo: null,
    trackOpens: true,
    trackClicks: true,
    data: null,
    compiled: compileCampaign({ subject: 'Hi', content, textContent: 'text', preheader: options.preheader ?? null }),
  };
  return renderMessage(campaign, recipient, 'https://mail.example.test', signer).html;
}

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
    expect(html).toMatch(/Unsubscribe<\/a><\/p><img src="https:\/\/mail\.example\.test\/t\/o\/[\w.-]+\.gif"[^>]*><\/body><\/html>$/);
  });

  it('takes linear time over unclosed tags', () => {
    for (const content of ['<a '.repeat(128_000), '<a href="'.repeat(100_000), '<body '.repeat(150_000)]) {
      const started = performance.now();
      render(content, { preheader: 'Pre' });
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });
});
