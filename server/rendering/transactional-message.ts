import { randomBytes } from 'node:crypto';
import { decorateHtml, escapeAttribute } from './html-links.ts';
import { body, encodeHeaderText, formatAddress } from './mime.ts';
import { normalizedUrl } from '../tracked-links/links.ts';
import type { TokenSigner } from '../tracked-links/tokens.ts';
import { domainOf } from '../email.ts';
import { linkBase, returnPath, type Addressing, type SenderDomain } from './addressing.ts';

/** A stored attachment: as the request gave it (base64), so sending never decodes it again. */
export interface StoredAttachment {
  filename: string;
  content_type: string;
  content: string;
}

/** One request's content, as a sending thread is handed it (once per batch, whatever its recipients). */
export interface TransactionalContent {
  id: string;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  toHeader: string;
  ccHeader: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: StoredAttachment[];
}

/** One recipient's copy. */
export interface TransactionalMail {
  messageId: string;
  /** `automation` for an automation's copy: relays may be routed by stream. */
  stream: 'transactional' | 'automation';
  contentId: string;
  to: string;
  trackOpens: boolean;
  trackClicks: boolean;
}

const CRLF = '\r\n';

/** The open pixel and tracked links, when asked for; transactional mail has no unsubscribe footer. */
function trackedHtml(html: string, mail: TransactionalMail, publicUrl: string, signer: TokenSigner): string {
  if (!mail.trackOpens && !mail.trackClicks) return html;
  let index = 0;
  const pixel = mail.trackOpens
    ? `<img src="${escapeAttribute(`${publicUrl}/t/o/${signer.sign({ kind: 'open', messageId: mail.messageId })}.gif`)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`
    : '';
  return decorateHtml(html, {
    link(url) {
      if (!mail.trackClicks) return null;
      const normal = normalizedUrl(url);
      // An automation email's own unsubscribe link is not a click.
      if (normal === null || isUnsubscribeLink(normal, signer)) return null;
      return `${publicUrl}/t/c/${signer.sign({ kind: 'click', messageId: mail.messageId, link: index++, url: normal })}`;
    },
    afterBodyStart: '',
    beforeBodyEnd: pixel,
  });
}

function isUnsubscribeLink(url: string, signer: TokenSigner): boolean {
  const at = url.lastIndexOf('/u/');
  return at >= 0 && signer.verify(url.slice(at + 3))?.kind === 'unsubscribe';
}

function part(contentType: string, text: string): string[] {
  const encoded = body(text);
  return [`Content-Type: ${contentType}; charset=utf-8`, `Content-Transfer-Encoding: ${encoded.encoding}`, '', encoded.content];
}

/** The base64 as stored, folded at 76 characters. */
function folded(base64: string): string {
  const lines: string[] = [];
  for (let i = 0; i < base64.length; i += 76) lines.push(base64.slice(i, i + 76));
  return lines.join(CRLF);
}

/** A filename parameter: plain when it is printable ASCII, else RFC 2231 percent-encoded UTF-8. */
function filenameParameter(name: string): string {
  if (/^[\x20-\x7e]*$/.test(name)) return `filename="${name}"`;
  return `filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/**
 * One recipient's message: its envelope and MIME text. `multipart/alternative` for text and
 * HTML, inside `multipart/mixed` with the attachments. No List-Unsubscribe: that is marketing's.
 * Its links and return path go under its sending domain when it has one.
 */
export function transactionalMessage(
  content: TransactionalContent,
  mail: TransactionalMail,
  addressing: Addressing,
  sender: SenderDomain,
): { envelope: { from: string; to: string }; raw: string } {
  const domain = domainOf(content.fromEmail);
  const boundary = (kind: string) => `=_sendline_${kind}_${randomBytes(9).toString('base64url')}`;
  const headers = [
    `From: ${formatAddress(content.fromEmail, content.fromName)}`,
    `To: ${content.toHeader}`,
    ...(content.ccHeader ? [`Cc: ${content.ccHeader}`] : []),
    ...(content.replyTo ? [`Reply-To: ${content.replyTo}`] : []),
    `Subject: ${encodeHeaderText(content.subject)}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${mail.messageId}@${domain}>`,
    'MIME-Version: 1.0',
    ...Object.entries(content.headers).map(([name, value]) => `${name}: ${encodeHeaderText(value)}`),
    `X-Sendline-Message: ${mail.messageId}`,
  ];
  const html = content.html === null ? null : trackedHtml(content.html, mail, linkBase(addressing, sender), addressing.signer);
  let bodyLines: string[];
  if (html !== null && content.text !== null) {
    const alt = boundary('alt');
    bodyLines = [
      `Content-Type: multipart/alternative; boundary="${alt}"`,
      '',
      `--${alt}`,
      ...part('text/plain', content.text),
      `--${alt}`,
      ...part('text/html', html),
      `--${alt}--`,
    ];
  } else bodyLines = html !== null ? part('text/html', html) : part('text/plain', content.text ?? '');
  if (content.attachments.length) {
    const mixed = boundary('mixed');
    const lines = [`Content-Type: multipart/mixed; boundary="${mixed}"`, '', `--${mixed}`, ...bodyLines];
    for (const a of content.attachments) {
      lines.push(
        `--${mixed}`,
        `Content-Type: ${a.content_type}`,
        'Content-Transfer-Encoding: base64',
        `Content-Disposition: attachment; ${filenameParameter(a.filename)}`,
        '',
        folded(a.content),
      );
    }
    lines.push(`--${mixed}--`);
    bodyLines = lines;
  }
  // The body's first line is its Content-Type header: it joins the message's headers.
  const [contentType, ...rest] = bodyLines;
  const raw = [...headers, contentType, ...rest, ''].join(CRLF);
  return { envelope: { from: returnPath(addressing, sender, mail.messageId, content.fromEmail), to: mail.to }, raw };
}
