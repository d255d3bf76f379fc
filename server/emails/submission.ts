import { isIP } from 'node:net';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';
import { authenticate, type Authenticators } from '../auth/middleware.ts';
import { requireScope, type Principal } from '../principal.ts';
import type { Config } from '../config.ts';
import { Problem } from '../contract/problem.ts';
import type { Logger } from '../logger.ts';
import { formatAddress } from '../rendering/mime.ts';
import { checkEmail, type EmailSendRequest, type NamedAddress } from './rules.ts';
import type { EmailService } from './service.ts';
import { describeErrors, HeaderRefused, submittedFields, type SubmittedFields } from './submission-headers.ts';

const MAX_CLIENTS = 200;
const MAX_RECIPIENTS = 150;
/** Headers of a submitted message carried over as custom headers; the rest Sendline writes itself. */
const KEPT_HEADERS = /^(x-(?!sendline-).+|in-reply-to|references|keywords|comments)$/i;

interface Authenticated {
  accountId: string;
  apiKey: string;
}

/** What the listener needs of a unit of work: the API key check, and `POST /emails`' sending. */
export interface SubmissionServices extends Authenticators {
  emails: Pick<EmailService, 'sendChecked' | 'refusals'>;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });
const isLoopback = (address: string) => address === '127.0.0.1' || address === '::1' || address.startsWith('::ffff:127.') || address.startsWith('127.');

/** The API key behind a session, checked again (revoked, expired, address, rate) as a request with it would be. */
async function principalOf(services: Authenticators, apiKey: string, ip: string): Promise<Principal> {
  const principal = await authenticate({ get: (name) => (name === 'x-api-key' ? apiKey : undefined), ip: isIP(ip) ? ip : '' }, services);
  requireScope(principal, 'POST');
  return principal;
}

const addressesOf = (field: AddressObject | AddressObject[] | undefined) => (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value);

/** A submitted message as `POST /emails` would take it: envelope recipients, kinds from the headers. */
function requestOf(
  parsed: ParsedMail,
  envelopeFrom: string,
  rcptTo: string[],
  fields: SubmittedFields,
): EmailSendRequest & { from: NamedAddress; toHeader: string | null } {
  const from = addressesOf(parsed.from)[0];
  const inTo = new Set(addressesOf(parsed.to).map((a) => a.address?.toLowerCase()));
  const inCc = new Set(addressesOf(parsed.cc).map((a) => a.address?.toLowerCase()));
  const headers: Record<string, string> = {};
  const kept = new Set<string>();
  for (const line of parsed.headerLines) {
    // The first of each name, unfolded.
    if (!KEPT_HEADERS.test(line.key) || kept.has(line.key)) continue;
    kept.add(line.key);
    const colon = line.line.indexOf(':');
    headers[line.line.slice(0, colon).trim()] = line.line
      .slice(colon + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
  }
  const shown = addressesOf(parsed.to).filter((a) => a.address);
  return {
    from: from?.address ? { email: from.address, ...(from.name ? { name: from.name } : {}) } : { email: envelopeFrom },
    to: rcptTo.filter((r) => inTo.has(r.toLowerCase())).map((email) => ({ email })),
    cc: rcptTo.filter((r) => !inTo.has(r.toLowerCase()) && inCc.has(r.toLowerCase())).map((email) => ({ email })),
    bcc: rcptTo.filter((r) => !inTo.has(r.toLowerCase()) && !inCc.has(r.toLowerCase())).map((email) => ({ email })),
    ...(parsed.replyTo && addressesOf(parsed.replyTo)[0]?.address ? { reply_to: addressesOf(parsed.replyTo)[0].address! } : {}),
    subject: parsed.subject ?? '',
    ...(parsed.html ? { html: parsed.html } : {}),
    ...(parsed.text ? { text: parsed.text } : {}),
    headers,
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename ?? 'attachment',
      content_type: a.contentType,
      content: a.content.toString('base64'),
    })),
    ...(fields.tags ? { tags: fields.tags } : {}),
    ...(fields.metadata ? { metadata: fields.metadata } : {}),
    track_opens: fields.trackOpens,
    track_clicks: fields.trackClicks,
    // The To header as written, when it names anyone: a copy to a Bcc recipient shows it too.
    toHeader: shown.length ? shown.map((a) => formatAddress(a.address!, a.name || null)).join(',\r\n ') : null,
  };
}

/**
 * The SMTP submission listener: applications that only speak SMTP send through the transactional
 * stream. AUTH PLAIN or LOGIN with an API key (any user name) that has the `write` scope; the
 * key's IP allow-list and rate limit apply to each message as to a request. With a certificate,
 * AUTH needs STARTTLS first; without one, only loopback clients may authenticate.
 */
export async function startSubmissionServer(
  settings: NonNullable<Config['submission']>,
  services: () => SubmissionServices,
  log: Logger,
): Promise<{ port: number; stop: () => Promise<void> }> {
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    size: settings.maxBytes,
    maxClients: MAX_CLIENTS,
    logger: false,
    banner: 'Sendline submission',
    ...(settings.tls
      ? { key: settings.tls.key, cert: settings.tls.cert, allowInsecureAuth: false }
      : { disabledCommands: ['STARTTLS'], allowInsecureAuth: true }),
    onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession, callback) {
      if (!settings.tls && !isLoopback(session.remoteAddress)) return callback(smtpError(538, '5.7.11 Encryption required: no certificate is configured'));
      const apiKey = auth.password ?? '';
      principalOf(services(), apiKey, session.remoteAddress).then(
        (principal) => callback(null, { user: { accountId: principal.accountId, apiKey } satisfies Authenticated }),
        (err: unknown) => {
          if (err instanceof Problem && err.status === 429) return callback(smtpError(454, '4.7.0 Too many attempts; try later'));
          if (!(err instanceof Problem)) log.error({ err }, 'SMTP submission authentication failed');
          callback(smtpError(535, '5.7.8 Authentication failed: use an API key with the write scope'));
        },
      );
    },
    onMailFrom(_address, session, callback) {
      if (!session.user) return callback(smtpError(530, '5.7.0 Authentication required'));
      callback();
    },
    onRcptTo(address, session, callback) {
      const user = session.user as Authenticated | undefined;
      if (!user) return callback(smtpError(530, '5.7.0 Authentication required'));
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError(452, `4.5.3 At most ${MAX_RECIPIENTS} recipients a message`));
      services()
        .emails.refusals(user.accountId, [address.address])
        .then(
          (refused) => {
            const reason = refused.get(address.address.toLowerCase());
            // Refused one by one, as the API refuses them, never dropped after a 250.
            if (reason) return callback(smtpError(550, `5.1.1 The address ${reason} before: refused by the transactional stream`));
            callback();
          },
          (err: Error) => {
            log.error({ err }, 'SMTP submission recipient check failed');
            callback(smtpError(451, '4.3.0 Try again later'));
          },
        );
    },
    onData(stream, session, callback) {
      const user = session.user as Authenticated;
      const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      const rcptTo = session.envelope.rcptTo.map((r) => r.address);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpError(552, `5.3.4 Message larger than ${settings.maxBytes} bytes`));
        submit(user, session.remoteAddress, envelopeFrom, rcptTo, Buffer.concat(chunks)).then(
          (reply) => callback(null, reply),
          (err: unknown) => {
            if (err instanceof Problem && err.status === 429) return callback(smtpError(451, '4.7.1 Rate limit reached; try again later'));
            if (err instanceof Problem && err.status < 500) return callback(smtpError(550, `5.7.1 ${err.message}`));
            if (err instanceof SubmissionRefused || err instanceof HeaderRefused) return callback(smtpError(550, `5.6.0 ${err.message}`));
            log.error({ err }, 'SMTP submission failed');
            callback(smtpError(451, '4.3.0 Try again later'));
          },
        );
      });
    },
  });
  server.on('error', (err) => log.debug({ err }, 'SMTP submission connection failed'));

  async function submit(user: Authenticated, ip: string, envelopeFrom: string, rcptTo: string[], raw: Buffer): Promise<string> {
    // Each message counts against the key's rate limit, and a key revoked since AUTH stops here.
    const principal = await principalOf(services(), user.apiKey, ip);
    if (principal.counted && principal.counted.count > principal.rateLimitPerMinute) throw new Problem(429, 'rate_limited', 'rate limited');
    const parsed = await simpleParser(raw);
    const { toHeader, ...body } = requestOf(parsed, envelopeFrom, rcptTo, submittedFields(parsed));
    if (!body.from.email) throw new SubmissionRefused('the message has no From header and no envelope sender');
    const { email, errors } = checkEmail(body, new Date());
    if (!email) throw new SubmissionRefused(describeErrors(errors));
    if (toHeader) email.toHeader = toHeader;
    const results = await services().emails.sendChecked(principal.accountId, email);
    const ids = results.filter((r) => r.id).map((r) => r.id);
    return `Queued as ${ids.join(' ')}`;
  }

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(settings.port, settings.host, resolve);
  });
  const { port } = server.server.address() as { port: number };
  log.info({ port, tls: Boolean(settings.tls) }, 'SMTP submission listener ready');
  return { port, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

class SubmissionRefused extends Error {}
