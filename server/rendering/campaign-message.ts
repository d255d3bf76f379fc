import { compileCampaign, type CompiledCampaign } from './campaign-template.ts';
import type { TemplateBundle } from './liquid.ts';
import { normalizedUrl } from '../tracked-links/links.ts';
import { domainOf } from '../email.ts';
import { linkBase, returnPath, type Addressing, type SenderDomain } from './addressing.ts';
import { decorateHtml, escapeAttribute } from './html-links.ts';
import { buildMime } from './mime.ts';

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
  /** A template campaign's `template_data`: every recipient's variables start from it. */
  data: Record<string, unknown> | null;
  compiled: CompiledCampaign;
}

/**
 * What rendering needs of a campaign, as plain data that a thread can be handed. A template
 * campaign carries its version's bundle (`template`) instead of using `subject`, `content` and
 * `textContent`.
 */
export interface CampaignContent {
  id: string;
  name: string;
  subject: string;
  content: string;
  textContent: string | null;
  preheader: string | null;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
  template?: TemplateBundle | null;
  templateData?: Record<string, unknown> | null;
}

export function campaignContent(c: CampaignContent): CampaignContent {
  const { id, name, subject, content, textContent, preheader, fromEmail, fromName, replyTo, trackOpens, trackClicks, template, templateData } = c;
  return { id, name, subject, content, textContent, preheader, fromEmail, fromName, replyTo, trackOpens, trackClicks, template, templateData };
}

/** Compiles a campaign's templates once for all its messages. */
export function prepareCampaign(c: CampaignContent): CampaignForRender {
  return {
    id: c.id,
    name: c.name,
    fromEmail: c.fromEmail,
    fromName: c.fromName,
    replyTo: c.replyTo,
    trackOpens: c.trackOpens,
    trackClicks: c.trackClicks,
    data: c.templateData ?? null,
    compiled: compileCampaign(c),
  };
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

/** The unsubscribe link, the open pixel and click tracking for one message's HTML. */
function decorate(
  source: string,
  campaign: CampaignForRender,
  links: { unsubscribe: string; pixel: string | null; click: (url: string, index: number) => string },
  preheader: string | null,
): string {
  let index = 0;
  const footer = campaign.compiled.hasUnsubscribeLink
    ? ''
    : `<p style="font-size:12px;color:#888;text-align:center">You receive this email because you subscribed. <a href="${escapeAttribute(links.unsubscribe)}">Unsubscribe</a></p>`;
  const pixel = links.pixel
    ? `<img src="${escapeAttribute(links.pixel)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`
    : '';
  return decorateHtml(source, {
    link(url) {
      if (!campaign.trackClicks || url === links.unsubscribe) return null;
      // Signed normalised: the click's redirect must be a valid header. A link that is no URL stays as written.
      const normal = normalizedUrl(url);
      return normal === null || normal === links.unsubscribe ? null : links.click(normal, index++);
    },
    afterBodyStart: preheader ? `<div style="display:none;max-height:0;overflow:hidden;opacity:0">${escapeAttribute(preheader)}</div>` : '',
    beforeBodyEnd: footer + pixel,
  });
}

/**
 * Renders one campaign message for one recipient: personalised, tracked, unsubscribable; its
 * links and return path under its sending domain when it has one.
 */
export function renderMessage(campaign: CampaignForRender, recipient: Recipient, addressing: Addressing, sender: SenderDomain): RenderedMessage {
  const { signer } = addressing;
  const publicUrl = linkBase(addressing, sender);
  const unsubscribe = `${publicUrl}/u/${signer.sign({ kind: 'unsubscribe', messageId: recipient.messageId })}`;
  const data = campaign.data;
  const scope = {
    ...data,
    ...recipient.attributes,
    email: recipient.email,
    // A name the contact lacks leaves the template data's (a default, or a test send's value) visible.
    first_name: recipient.firstName ?? data?.first_name ?? null,
    last_name: recipient.lastName ?? data?.last_name ?? null,
    tags: recipient.tags,
    attributes: recipient.attributes,
    contact: { email: recipient.email, first_name: recipient.firstName, last_name: recipient.lastName, tags: recipient.tags, attributes: recipient.attributes },
    campaign: { id: campaign.id, name: campaign.name },
    unsubscribe_url: unsubscribe,
  };
  const { compiled } = campaign;
  const subject = compiled.render
    .plain(compiled.subject, scope)
    .replace(/[\r\n]+/g, ' ')
    .trim();
  const preheader = compiled.preheader ? compiled.render.plain(compiled.preheader, scope) : null;
  const personal = compiled.render.html(compiled.html, scope);
  const html = decorate(
    personal,
    campaign,
    {
      unsubscribe,
      pixel: campaign.trackOpens ? `${publicUrl}/t/o/${signer.sign({ kind: 'open', messageId: recipient.messageId })}.gif` : null,
      click: (url, link) => `${publicUrl}/t/c/${signer.sign({ kind: 'click', messageId: recipient.messageId, link, url })}`,
    },
    preheader,
  );
  let text = compiled.render.plain(compiled.text, scope);
  if (!text.includes(unsubscribe)) text += `\n\n--\nUnsubscribe: ${unsubscribe}\n`;
  const domain = domainOf(campaign.fromEmail);
  return {
    subject,
    html,
    text,
    messageIdHeader: `<${recipient.messageId}@${domain}>`,
    returnPath: returnPath(addressing, sender, recipient.messageId, campaign.fromEmail),
    headers: {
      'X-Sendline-Message': recipient.messageId,
      'X-Sendline-Campaign': campaign.id,
      'List-Unsubscribe': `<${unsubscribe}>, <mailto:unsubscribe+${recipient.messageId}@${domain}?subject=unsubscribe>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}

export interface OutgoingMail {
  from: { name: string | null; address: string };
  replyTo: string | null;
  to: string;
  rendered: RenderedMessage;
  extraHeaders?: Record<string, string>;
}

/** The MIME text of a campaign message. */
export function outgoingMime(mail: OutgoingMail): string {
  const { rendered } = mail;
  return buildMime({
    from: mail.from,
    to: mail.to,
    replyTo: mail.replyTo,
    subject: rendered.subject,
    messageId: rendered.messageIdHeader,
    date: new Date(),
    headers: { ...rendered.headers, ...mail.extraHeaders },
    text: rendered.text,
    html: rendered.html,
  });
}

/** A test message, marked as such in its subject and headers: its envelope and MIME text. */
export function testMessage(
  campaign: CampaignForRender,
  recipient: Recipient,
  addressing: Addressing,
  sender: SenderDomain,
): { envelope: { from: string; to: string }; raw: string } {
  const rendered = renderMessage(campaign, recipient, addressing, sender);
  rendered.subject = `[Test] ${rendered.subject}`;
  const raw = outgoingMime({
    from: { name: campaign.fromName, address: campaign.fromEmail },
    replyTo: campaign.replyTo,
    to: recipient.email,
    rendered,
    extraHeaders: { 'X-Sendline-Test': 'true' },
  });
  return { envelope: { from: rendered.returnPath, to: recipient.email }, raw };
}
