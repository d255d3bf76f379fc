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
  /** Whether messages end with a "View in browser" link (unless their content has `{{ web_version_url }}`). */
  webVersionLink: boolean;
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
  /** True when left out (test sends of older callers). */
  webVersionLink?: boolean;
  /** The A/B test's variant this content is (its overrides applied); null for a campaign sent as one. */
  variant?: string | null;
  template?: TemplateBundle | null;
  templateData?: Record<string, unknown> | null;
}

export function campaignContent(c: CampaignContent): CampaignContent {
  const { id, name, subject, content, textContent, preheader, fromEmail, fromName, replyTo, trackOpens, trackClicks, webVersionLink, template, templateData } =
    c;
  return { id, name, subject, content, textContent, preheader, fromEmail, fromName, replyTo, trackOpens, trackClicks, webVersionLink, template, templateData };
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
    webVersionLink: c.webVersionLink ?? true,
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

/** The unsubscribe link, the web version's link, the open pixel and click tracking for one message's HTML. */
function decorate(
  source: string,
  campaign: CampaignForRender,
  links: { unsubscribe: string; webVersion: string; footerWebVersion: boolean; pixel: string | null; click: (url: string, index: number) => string },
  preheader: string | null,
): string {
  let index = 0;
  const view = !links.footerWebVersion ? '' : `<a href="${escapeAttribute(links.webVersion)}">View in browser</a>`;
  const unsubscribe = campaign.compiled.hasUnsubscribeLink
    ? ''
    : `You receive this email because you subscribed. <a href="${escapeAttribute(links.unsubscribe)}">Unsubscribe</a>`;
  const footer = view || unsubscribe ? `<p style="font-size:12px;color:#888;text-align:center">${[unsubscribe, view].filter(Boolean).join(' · ')}</p>` : '';
  const pixel = links.pixel
    ? `<img src="${escapeAttribute(links.pixel)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`
    : '';
  return decorateHtml(source, {
    link(url) {
      if (!campaign.trackClicks || url === links.unsubscribe || url === links.webVersion) return null;
      // Signed normalised: the click's redirect must be a valid header. A link that is no URL stays as written.
      const normal = normalizedUrl(url);
      return normal === null || normal === links.unsubscribe ? null : links.click(normal, index++);
    },
    afterBodyStart: preheader ? `<div style="display:none;max-height:0;overflow:hidden;opacity:0">${escapeAttribute(preheader)}</div>` : '',
    beforeBodyEnd: footer + pixel,
  });
}

/** The variables of one recipient's message: the template data, the contact's fields and the message's links. */
function messageScope(campaign: CampaignForRender, recipient: Recipient, links: { unsubscribe: string; webVersion: string }): Record<string, unknown> {
  const data = campaign.data;
  return {
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
    unsubscribe_url: links.unsubscribe,
    web_version_url: links.webVersion,
  };
}

/** A message's signed public links: its unsubscribe page and its web version. */
function messageLinks(base: string, addressing: Addressing, messageId: string) {
  return {
    unsubscribe: `${base}/u/${addressing.signer.sign({ kind: 'unsubscribe', messageId })}`,
    webVersion: `${base}/v/${addressing.signer.sign({ kind: 'view', messageId })}`,
  };
}

/** A page of a campaign's HTML: its subject and body as a browser shows them, no link tracked. */
export interface CampaignPage {
  subject: string;
  html: string;
}

/**
 * A message's web version: the recipient's message as it was mailed, personalised, with its
 * unsubscribe link but no open pixel and no tracked link.
 */
export function renderWebVersion(campaign: CampaignForRender, recipient: Recipient, addressing: Addressing): CampaignPage {
  const links = messageLinks(addressing.publicUrl, addressing, recipient.messageId);
  return renderPage(campaign, messageScope(campaign, recipient, links));
}

/**
 * A campaign as its public archive shows it: personalised with `meta` (the campaign's
 * `archive_meta`) instead of any contact, its unsubscribe and web version links going nowhere.
 */
export function renderArchived(campaign: CampaignForRender, meta: Record<string, unknown>): CampaignPage {
  const data = campaign.data;
  return renderPage(campaign, {
    ...data,
    ...meta,
    email: meta.email ?? '',
    first_name: meta.first_name ?? data?.first_name ?? null,
    last_name: meta.last_name ?? data?.last_name ?? null,
    tags: [],
    attributes: meta,
    contact: { email: meta.email ?? '', first_name: meta.first_name ?? null, last_name: meta.last_name ?? null, tags: [], attributes: meta },
    campaign: { id: campaign.id, name: campaign.name },
    unsubscribe_url: '#',
    web_version_url: '#',
  });
}

function renderPage(campaign: CampaignForRender, scope: Record<string, unknown>): CampaignPage {
  const { compiled } = campaign;
  return {
    subject: compiled.render
      .plain(compiled.subject, scope)
      .replace(/[\r\n]+/g, ' ')
      .trim(),
    html: compiled.render.html(compiled.html, scope),
  };
}

/**
 * Renders one campaign message for one recipient: personalised, tracked, unsubscribable, with a
 * link to its web version; its links and return path under its sending domain when it has one.
 */
export function renderMessage(campaign: CampaignForRender, recipient: Recipient, addressing: Addressing, sender: SenderDomain): RenderedMessage {
  const { signer } = addressing;
  const publicUrl = linkBase(addressing, sender);
  const { unsubscribe, webVersion } = messageLinks(publicUrl, addressing, recipient.messageId);
  const scope = messageScope(campaign, recipient, { unsubscribe, webVersion });
  const { compiled } = campaign;
  const subject = compiled.render
    .plain(compiled.subject, scope)
    .replace(/[\r\n]+/g, ' ')
    .trim();
  const preheader = compiled.preheader ? compiled.render.plain(compiled.preheader, scope) : null;
  const personal = compiled.render.html(compiled.html, scope);
  // The default link unless the content places its own.
  const viewLink = campaign.webVersionLink && !personal.includes(webVersion);
  const html = decorate(
    personal,
    campaign,
    {
      unsubscribe,
      webVersion,
      footerWebVersion: viewLink,
      pixel: campaign.trackOpens ? `${publicUrl}/t/o/${signer.sign({ kind: 'open', messageId: recipient.messageId })}.gif` : null,
      click: (url, link) => `${publicUrl}/t/c/${signer.sign({ kind: 'click', messageId: recipient.messageId, link, url })}`,
    },
    preheader,
  );
  let text = compiled.render.plain(compiled.text, scope);
  const footer = [];
  if (!text.includes(unsubscribe)) footer.push(`Unsubscribe: ${unsubscribe}`);
  if (campaign.webVersionLink && !text.includes(webVersion)) footer.push(`View in browser: ${webVersion}`);
  if (footer.length) text += `\n\n--\n${footer.join('\n')}\n`;
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
