/**
 * Reads delivery status notifications (RFC 3464) and abuse feedback reports (RFC 5965): just
 * enough MIME to find the report part and the returned headers of the original message.
 */
export type BounceType = 'hard' | 'soft' | 'complaint';

export interface ParsedReport {
  /** The Sendline message, from the VERP address or the returned `X-Sendline-Message` header. */
  messageId: string | null;
  type: BounceType;
  recipient: string | null;
  reason: string | null;
  diagnosticCode: string | null;
  feedbackType: string | null;
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** A campaign message (`msg_`) or a transactional one (`em_`). */
const MESSAGE_ID = /^(?:msg|em)_[0-9A-Za-z]{22}$/;

function parseHeaderBlock(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  // Folded lines continue the header before them.
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

function splitEntity(raw: string): Part {
  const match = /\r?\n\r?\n/.exec(raw);
  if (!match) return { headers: parseHeaderBlock(raw), body: '' };
  return { headers: parseHeaderBlock(raw.slice(0, match.index)), body: raw.slice(match.index + match[0].length) };
}

function decode(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    return part.body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return part.body;
}

/** Every leaf part of a message, multiparts opened, with transfer encodings undone. */
function leafParts(entity: Part, depth = 0): Part[] {
  const type = entity.headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary || depth > 5) return [{ headers: entity.headers, body: decode(entity) }];
  const sections = entity.body.split(new RegExp(`(?:^|\\r?\\n)--${boundary.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:--)?[ \\t]*(?=\\r?\\n|$)`));
  return sections.slice(1, -1).flatMap((section) => leafParts(splitEntity(section.replace(/^\r?\n/, '')), depth + 1));
}

function contentType(part: Part): string {
  return (part.headers.get('content-type') ?? 'text/plain').split(';')[0].trim().toLowerCase();
}

/** Fields of a delivery-status body: groups separated by blank lines (per message, then per recipient). */
function statusGroups(body: string): Map<string, string>[] {
  return body
    .split(/\r?\n\s*\r?\n/)
    .map(parseHeaderBlock)
    .filter((g) => g.size > 0);
}

function stripType(value: string | undefined): string | null {
  if (!value) return null;
  return (
    value
      .replace(/^[a-z0-9-]+;\s*/i, '')
      .replace(/^<|>$/g, '')
      .trim() || null
  );
}

/** The message a report is about: the VERP recipient first, then the returned headers. */
export function findMessageId(raw: string, envelopeRecipients: string[]): string | null {
  for (const rcpt of envelopeRecipients) {
    const verp = /^bounces\+([^@]+)@/i.exec(rcpt)?.[1];
    if (verp && MESSAGE_ID.test(verp)) return verp;
  }
  const header = /^X-Sendline-Message:\s*((?:msg|em)_[0-9A-Za-z]{22})\s*$/im.exec(raw)?.[1];
  return header ?? null;
}

/** Classifies a DSN's status code: 5.x.x is permanent, 4.x.x transient. */
function bounceType(status: string | null, action: string | null): BounceType | null {
  if (action && !/failed|delayed/i.test(action)) return null;
  if (status?.startsWith('5')) return 'hard';
  if (status?.startsWith('4')) return 'soft';
  return action?.toLowerCase() === 'failed' ? 'hard' : action ? 'soft' : null;
}

/** Null when the message is neither a DSN reporting a failure or delay nor a feedback report. */
export function parseReport(rawMessage: string, envelopeRecipients: string[]): ParsedReport | null {
  const parts = leafParts(splitEntity(rawMessage));
  const decodedWhole = parts.map((p) => `${[...p.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${p.body}`).join('\n');
  const messageId = findMessageId(rawMessage, envelopeRecipients) ?? findMessageId(decodedWhole, []);

  const feedback = parts.find((p) => contentType(p) === 'message/feedback-report');
  if (feedback) {
    const fields = parseHeaderBlock(feedback.body);
    return {
      messageId,
      type: 'complaint',
      recipient: stripType(fields.get('original-rcpt-to') ?? fields.get('removal-recipient')),
      reason: fields.get('feedback-type') ? `feedback report: ${fields.get('feedback-type')}` : 'feedback report',
      diagnosticCode: null,
      feedbackType: fields.get('feedback-type')?.toLowerCase() ?? null,
    };
  }

  const status = parts.find((p) => contentType(p) === 'message/delivery-status');
  if (!status) return null;
  const [, ...recipients] = statusGroups(status.body);
  for (const fields of recipients) {
    const code = (fields.get('status') ?? '').match(/^[245]\.\d{1,3}\.\d{1,3}/)?.[0] ?? null;
    const action = fields.get('action')?.trim() ?? null;
    const type = bounceType(code, action);
    if (!type) continue;
    const diagnostic = fields.get('diagnostic-code') ?? null;
    return {
      messageId,
      type,
      recipient: stripType(fields.get('final-recipient') ?? fields.get('original-recipient')),
      reason: `${action ?? 'failed'} (${code ?? 'no status'})${diagnostic ? `: ${stripType(diagnostic)}` : ''}`.slice(0, 1000),
      diagnosticCode: diagnostic?.slice(0, 1000) ?? null,
      feedbackType: null,
    };
  }
  return null;
}
