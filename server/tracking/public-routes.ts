import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '../formats/html.ts';
import type { Logger } from '../logger.ts';
import { isTestMessageId } from '../tracked-links/test-message.ts';
import type { FeedbackService } from './feedback.ts';
import { normalizedUrl } from '../tracked-links/links.ts';
import type { TrackedRequest } from './pending.ts';
import type { TrackingRecorder } from './recorder.ts';
import type { TokenSigner } from '../tracked-links/tokens.ts';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const PIXEL_HEADERS = { 'Content-Type': 'image/gif', 'Content-Length': PIXEL.length, 'Cache-Control': 'no-store, max-age=0', Pragma: 'no-cache' };
const MAX_FORM_BYTES = 4096;
/** Open tokens are about 70 characters; a longer one is forged and not worth holding until it is checked. */
const MAX_OPEN_TOKEN_LENGTH = 256;
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

export interface PublicRouteDeps {
  signer: TokenSigner;
  recorder: TrackingRecorder;
  feedback: FeedbackService;
  log: Logger;
}

/** A plain HTML page, as every public route answers (list confirmations too). */
export function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, PAGE_HEADERS);
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><meta name="robots" content="noindex"><title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font:inherit;padding:.5rem 1rem}</style></head>
<body><h1>${title}</h1>${body}</body></html>`);
}

function readForm(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}

/** RFC 8058: the POST carries `List-Unsubscribe=One-Click`, URL-encoded or as a form-data field. */
function oneClickForm(body: string, contentType: string | undefined): { oneClick: boolean; fromPage: boolean; scope: string | null } {
  if (contentType?.startsWith('multipart/form-data')) {
    return { oneClick: /name="List-Unsubscribe"\r?\n\r?\nOne-Click\r?\n/.test(body), fromPage: false, scope: null };
  }
  const form = new URLSearchParams(body);
  return { oneClick: form.get('List-Unsubscribe') === 'One-Click', fromPage: form.get('from') === 'page', scope: form.get('scope') };
}

/** What a tracked request leaves for its batch, read off the raw headers: `req.headers` is built on first use. */
function trackedRequest(req: IncomingMessage, openToken: string | undefined, click: TrackedRequest['click']): TrackedRequest {
  let userAgent: string | null = null;
  let forwardedFor: string | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    // As `req.headers` has them: the first User-Agent, every X-Forwarded-For joined.
    if (name.length === 10 && userAgent === null && name.toLowerCase() === 'user-agent') userAgent = raw[i + 1];
    else if (name.length === 15 && name.toLowerCase() === 'x-forwarded-for')
      forwardedFor = forwardedFor === undefined ? raw[i + 1] : `${forwardedFor}, ${raw[i + 1]}`;
  }
  return { openToken, click, at: Date.now(), userAgent, remoteAddress: req.socket.remoteAddress, forwardedFor };
}

/**
 * The public routes on PUBLIC_URL, answered before Express sees the request: they are the
 * hottest in the service and need none of its machinery. Returns false for every other path.
 */
export function publicRoutes(deps: PublicRouteDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { signer, recorder, feedback, log } = deps;

  const open = (req: IncomingMessage, res: ServerResponse, token: string) => {
    res.writeHead(200, PIXEL_HEADERS);
    res.end(req.method === 'HEAD' ? undefined : PIXEL);
    // The token is checked with its batch: the answer is the same either way.
    if (req.method === 'GET' && token.length <= MAX_OPEN_TOKEN_LENGTH) recorder.add(trackedRequest(req, token, undefined));
  };

  const click = (req: IncomingMessage, res: ServerResponse, token: string) => {
    const parsed = signer.verify(token);
    // A token may hold its URL as the message's HTML wrote it: redirect to its normalised form.
    const location = parsed?.kind === 'click' && /^https?:\/\//i.test(parsed.url) ? normalizedUrl(parsed.url) : null;
    if (parsed?.kind !== 'click' || location === null) {
      page(res, 404, 'Link not found', '<p>This link is not valid. Please use the link in the original email.</p>');
      return;
    }
    res.writeHead(302, { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    res.end();
    if (req.method === 'GET') {
      recorder.add(trackedRequest(req, undefined, { messageId: parsed.messageId, link: parsed.link, url: location }));
    }
  };

  const unsubscribe = async (req: IncomingMessage, res: ServerResponse, token: string) => {
    const parsed = signer.verify(token);
    const notFound = () => page(res, 404, 'Link not found', '<p>This unsubscribe link is not valid.</p>');
    if (parsed?.kind !== 'unsubscribe') return notFound();
    if (isTestMessageId(parsed.messageId)) {
      return page(
        res,
        200,
        'Unsubscribe',
        '<p>This link came in a test message, so there is nobody to unsubscribe and nothing was changed. In the messages of a campaign it asks the recipient to confirm, then unsubscribes them.</p>',
      );
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      // Never unsubscribes by itself: mail scanners follow every link.
      const found = await feedback.unsubscribePage(parsed.messageId);
      if (!found) return notFound();
      const form = (scope: 'topic' | 'all', label: string) =>
        `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><input type="hidden" name="from" value="page"><input type="hidden" name="scope" value="${scope}"><button type="submit">${label}</button></form>`;
      return page(
        res,
        200,
        'Unsubscribe',
        found.topic === null
          ? `<p>Stop sending email to <strong>${escapeHtml(found.email)}</strong>?</p>\n${form('all', 'Unsubscribe')}`
          : `<p>Which email should <strong>${escapeHtml(found.email)}</strong> stop receiving?</p>
${form('topic', `Only “${escapeHtml(found.topic)}”`)}
<p></p>${form('all', 'Everything from this sender')}`,
      );
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'GET, HEAD, POST' });
      return res.end();
    }
    const body = await readForm(req);
    if (body === null) return page(res, 413, 'Request too large', '<p>The form is too large.</p>');
    const form = oneClickForm(body, req.headers['content-type']);
    if (!form.oneClick) return page(res, 400, 'Not unsubscribed', '<p>The request must carry <code>List-Unsubscribe=One-Click</code>.</p>');
    // RFC 8058 one-click leaves the campaign's topic; the page leaves what the recipient chose.
    const scope = form.fromPage && form.scope === 'all' ? 'all' : 'topic';
    const result = await feedback.unsubscribe(parsed.messageId, form.fromPage ? 'link' : 'one_click', scope);
    if (result.outcome === 'not_found') return notFound();
    if (result.topic !== null) {
      return page(
        res,
        200,
        'Unsubscribed',
        `<p><strong>${escapeHtml(result.email)}</strong> will receive no more “${escapeHtml(result.topic)}” email from this sender.</p>`,
      );
    }
    return page(res, 200, 'Unsubscribed', `<p><strong>${escapeHtml(result.email)}</strong> will receive no more email from this sender.</p>`);
  };

  /** Whatever a route throws becomes a 500 page (or a closed connection): never an uncaught exception. */
  const failed = (res: ServerResponse, err: unknown) => {
    log.error({ err }, 'a public route failed');
    try {
      if (!res.headersSent) page(res, 500, 'Something went wrong', '<p>Please try again in a moment.</p>');
      else res.destroy();
    } catch {
      res.destroy();
    }
  };

  const route = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    // Prefix and suffix tests, not a regular expression: this runs before every answer.
    const gif = path.endsWith('.gif');
    // Anything else under these paths is a token that was not signed: it fails verification.
    if (path.startsWith('/t/o/') && gif) open(req, res, path.slice(5, -4));
    else if (path.startsWith('/t/c/') && !gif) click(req, res, path.slice(5));
    else if (path.startsWith('/u/') && !gif) unsubscribe(req, res, path.slice(3)).catch((err) => failed(res, err));
    else return false;
    return true;
  };

  return (req, res) => {
    try {
      return route(req, res);
    } catch (err) {
      failed(res, err);
      return true;
    }
  };
}
