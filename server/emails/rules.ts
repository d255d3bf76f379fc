import type { components } from '../../generated/openapi.d.ts';
import { normaliseEmail } from '../email.ts';
import { formatAddress } from '../rendering/mime.ts';
import type { FieldError } from '../contract/problem.ts';
import type { RecipientKind } from './entities.ts';
import type { StoredAttachment } from '../rendering/transactional-message.ts';

export type EmailSendRequest = components['schemas']['EmailSendRequest'];
/** An address as the request gives it: `"ada@example.com"` or `{"email": "ada@example.com", "name": "Ada"}`. */
type AddressInput = components['schemas']['EmailMailbox'];
export type NamedAddress = components['schemas']['EmailNamedAddress'];

/** Decoded attachments of one message, in all. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** How far ahead `scheduled_at` may be. */
export const MAX_SCHEDULE_MS = 72 * 3600 * 1000;
const MAX_HEADERS = 20;
const MAX_METADATA_KEYS = 20;
const MAX_METADATA_KEY = 40;
const MAX_METADATA_VALUE = 500;

/** Headers Sendline writes itself, or that say who sent the message or how it is built: never the caller's. */
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'message-id',
  'reply-to',
  'sender',
  'return-path',
  'mime-version',
  'dkim-signature',
  'domainkey-signature',
  'arc-seal',
  'arc-message-signature',
  'arc-authentication-results',
  'authentication-results',
  'received',
  'received-spf',
  'resent-from',
  'resent-to',
  'resent-cc',
  'resent-bcc',
  'resent-sender',
  'resent-date',
  'resent-message-id',
  'content-transfer-encoding',
  'feedback-id',
]);
const RESERVED_PREFIXES = ['content-', 'list-', 'x-sendline-'];
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,75}$/;
const LINE_BREAK = /[\r\n]/;
/** C0 controls and DEL (a tab is allowed in header values, as folding whitespace). */
function hasControl(text: string, tabAllowed = false): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 32 && !(tabAllowed && code === 9)) || code === 127) return true;
  }
  return false;
}
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface Recipient {
  email: string;
  name: string | null;
  kind: RecipientKind;
}

/** A request checked beyond the contract, in the shape the store keeps. */
export interface CheckedEmail {
  from: { email: string; name: string | null };
  replyTo: string | null;
  recipients: Recipient[];
  toHeader: string;
  ccHeader: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: StoredAttachment[];
  tags: string[];
  metadata: Record<string, string>;
  trackOpens: boolean;
  trackClicks: boolean;
  scheduledAt: Date | null;
}

/** Both forms as one: a plain address is the object without a name, from here on. */
const addressOf = (input: AddressInput) => (typeof input === 'string' ? { email: input, name: null } : { email: input.email, name: input.name ?? null });

export const decodedSize = (base64: string) => Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

/** `Name <address>`, the name quoted or encoded; names are checked for line breaks before this. */
const headerAddress = (a: { email: string; name: string | null }) => formatAddress(a.email, a.name);

/**
 * The rules the contract cannot say: no line breaks where they would start a header, no
 * reserved header, attachments that are base64 and 10 MB in all, metadata limits, a schedule
 * within 72 hours. Answers the problems with their pointers (empty: the request is good).
 */
export function checkEmail(body: EmailSendRequest, now: Date): { email: CheckedEmail | null; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const noBreak = (value: string | undefined | null, pointer: string) => {
    if (value && LINE_BREAK.test(value)) errors.push({ pointer, detail: 'must not contain CR or LF' });
  };
  const from = addressOf(body.from);
  noBreak(from.name, '/from/name');
  noBreak(body.subject, '/subject');
  if (!body.subject) errors.push({ pointer: '/subject', detail: 'is required unless template_id is given' });
  if (!body.html && !body.text) errors.push({ pointer: '/html', detail: 'html or text is required' });

  const recipients: Recipient[] = [];
  const seen = new Set<string>();
  const lists: [RecipientKind, AddressInput[] | undefined][] = [
    ['to', body.to],
    ['cc', body.cc],
    ['bcc', body.bcc],
  ];
  for (const [kind, list] of lists) {
    for (const [i, input] of (list ?? []).entries()) {
      const a = addressOf(input);
      noBreak(a.name, `/${kind}/${i}/name`);
      const email = normaliseEmail(a.email);
      // One copy per address, under the first list that names it.
      if (seen.has(email.toLowerCase())) continue;
      seen.add(email.toLowerCase());
      recipients.push({ email, name: a.name, kind });
    }
  }

  const headers: Record<string, string> = {};
  const headerEntries = Object.entries(body.headers ?? {});
  if (headerEntries.length > MAX_HEADERS) errors.push({ pointer: '/headers', detail: `at most ${MAX_HEADERS} headers` });
  for (const [name, value] of headerEntries) {
    const pointer = `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) errors.push({ pointer, detail: 'a header name is letters, digits and "-", up to 76 characters' });
    else if (RESERVED_HEADERS.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p)))
      errors.push({ pointer, detail: `${name} is written by Sendline and cannot be set` });
    else if (typeof value !== 'string' || hasControl(value, true)) errors.push({ pointer, detail: 'must not contain CR, LF or other control characters' });
    else if (value.length > 998) errors.push({ pointer, detail: 'at most 998 characters' });
    else headers[name] = value;
  }

  let attachmentBytes = 0;
  const attachments: StoredAttachment[] = [];
  for (const [i, a] of (body.attachments ?? []).entries()) {
    if (hasControl(a.filename) || /[/\\"]/.test(a.filename))
      errors.push({ pointer: `/attachments/${i}/filename`, detail: 'must not contain control characters, quotes or slashes' });
    if (a.content.length % 4 !== 0 || !BASE64.test(a.content))
      errors.push({ pointer: `/attachments/${i}/content`, detail: 'must be base64 (RFC 4648, padded, no line breaks)' });
    attachmentBytes += decodedSize(a.content);
    attachments.push({ filename: a.filename, content_type: a.content_type.toLowerCase(), content: a.content });
  }
  if (attachmentBytes > MAX_ATTACHMENT_BYTES)
    errors.push({ pointer: '/attachments', detail: `the attachments total ${attachmentBytes} bytes decoded; at most ${MAX_ATTACHMENT_BYTES}` });

  const metadata = body.metadata ?? {};
  const metadataEntries = Object.entries(metadata);
  if (metadataEntries.length > MAX_METADATA_KEYS) errors.push({ pointer: '/metadata', detail: `at most ${MAX_METADATA_KEYS} keys` });
  for (const [key, value] of metadataEntries) {
    const pointer = `/metadata/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (key.length < 1 || key.length > MAX_METADATA_KEY) errors.push({ pointer, detail: `a key is 1 to ${MAX_METADATA_KEY} characters` });
    else if (typeof value !== 'string' || value.length > MAX_METADATA_VALUE)
      errors.push({ pointer, detail: `a value is a string of at most ${MAX_METADATA_VALUE} characters` });
  }

  let scheduledAt: Date | null = null;
  if (body.scheduled_at) {
    const at = new Date(body.scheduled_at);
    if (at.getTime() - now.getTime() > MAX_SCHEDULE_MS) errors.push({ pointer: '/scheduled_at', detail: 'at most 72 hours ahead' });
    // A time already past sends now.
    else if (at > now) scheduledAt = at;
  }

  if (errors.length) return { email: null, errors };
  const to = recipients.filter((r) => r.kind === 'to');
  const cc = recipients.filter((r) => r.kind === 'cc');
  return {
    errors,
    email: {
      from,
      replyTo: body.reply_to ?? null,
      recipients,
      toHeader: to.map(headerAddress).join(',\r\n '),
      ccHeader: cc.length ? cc.map(headerAddress).join(',\r\n ') : null,
      subject: body.subject ?? '',
      html: body.html ?? null,
      text: body.text ?? null,
      headers,
      attachments,
      tags: [...new Set(body.tags ?? [])],
      metadata,
      trackOpens: body.track_opens ?? false,
      trackClicks: body.track_clicks ?? false,
      scheduledAt,
    },
  };
}
