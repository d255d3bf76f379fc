import { renderHtml, renderPlain, type CompiledCampaign } from '../campaigns/template.ts';
import type { TokenSigner } from '../tracking/tokens.ts';

export interface Recipient {
  messageId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  tags: string[];
  attributes: Record<string, unknown>;
}

export interface CampaignForRender {
  id: string;
  name: string;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
  compiled: CompiledCampaign;
}

export interface RenderedMessage {
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  messageIdHeader: string;
  /** The envelope sender: bounces come back to an address that names the message. */
  returnPath: string;
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** The unsubscribe link, the open pixel and click tracking for one message's HTML. */
function decorateHtml(source: string, campaign: CampaignForRender, links: { unsubscribe: string; pixel: string | null; click: (url: string, index: number) => string }, preheader: string | null): string {
  let html = source;
  if (campaign.trackClicks) {
    let index = 0;
    html = html.replace(/(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi, (whole, start: string, quote: string, rawUrl: string) => {
      const url = rawUrl.replace(/&amp;/g, '&');
      if (url === links.unsubscribe) return whole;
      return `${start}${quote}${escapeAttribute(links.click(url, index++))}${quote}`;
    });
  }
  if (!campaign.compiled.hasUnsubscribeLink) {
    const footer = `<p style="font-size:12px;color:#888;text-align:center">You receive this email because you subscribed. <a href="${escapeAttribute(links.unsubscribe)}">Unsubscribe</a></p>`;
    html = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${footer}</body>`) : html + footer;
  }
  if (preheader) {
    const hidden = `<div style="display:none;max-height:0;overflow:hidden;opacity:0">${escapeAttribute(preheader)}</div>`;
    html = /<body[^>]*>/i.test(html) ? html.replace(/<body[^>]*>/i, (tag) => tag + hidden) : hidden + html;
  }
  if (links.pixel) {
    const pixel = `<img src="${escapeAttribute(links.pixel)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`;
    html = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${pixel}</body>`) : html + pixel;
  }
  return html;
}

/** Renders one campaign message for one recipient: personalised, tracked, unsubscribable. */
export function renderMessage(campaign: CampaignForRender, recipient: Recipient, publicUrl: string, signer: TokenSigner): RenderedMessage {
  const unsubscribe = `${publicUrl}/u/${signer.sign({ kind: 'unsubscribe', messageId: recipient.messageId })}`;
  const scope = {
    ...recipient.attributes,
    email: recipient.email,
    first_name: recipient.firstName,
    last_name: recipient.lastName,
    tags: recipient.tags,
    attributes: recipient.attributes,
    contact: { email: recipient.email, first_name: recipient.firstName, last_name: recipient.lastName, tags: recipient.tags, attributes: recipient.attributes },
    campaign: { id: campaign.id, name: campaign.name },
    unsubscribe_url: unsubscribe,
  };
  const { compiled } = campaign;
  const subject = renderPlain(compiled.subject, scope).replace(/[\r\n]+/g, ' ').trim();
  const preheader = compiled.preheader ? renderPlain(compiled.preheader, scope) : null;
  const personal = renderHtml(compiled.html, scope);
  const html = decorateHtml(personal, campaign, {
    unsubscribe,
    pixel: campaign.trackOpens ? `${publicUrl}/t/o/${signer.sign({ kind: 'open', messageId: recipient.messageId })}.gif` : null,
    click: (url, link) => `${publicUrl}/t/c/${signer.sign({ kind: 'click', messageId: recipient.messageId, link, url })}`,
  }, preheader);
  let text = renderPlain(compiled.text, scope);
  if (!text.includes(unsubscribe)) text += `\n\n--\nUnsubscribe: ${unsubscribe}\n`;
  const domain = domainOf(campaign.fromEmail);
  return {
    subject,
    html,
    text,
    messageIdHeader: `<${recipient.messageId}@${domain}>`,
    returnPath: `bounces+${recipient.messageId}@${domain}`,
    headers: {
      'X-Sendline-Message': recipient.messageId,
      'X-Sendline-Campaign': campaign.id,
      'List-Unsubscribe': `<${unsubscribe}>, <mailto:unsubscribe+${recipient.messageId}@${domain}?subject=unsubscribe>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
