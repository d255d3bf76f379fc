import http from 'node:http';
import https from 'node:https';
import { guardedLookup, UnsafeAddressError, type GuardSettings } from './address-guard.ts';
import { signatureHeader } from './signing.ts';
import type { EventEnvelope } from '../events/envelope.ts';

const EXCERPT_BYTES = 1024;
/** Read no more of a response than this; the rest is not needed and could be endless. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface AttemptOutcome {
  success: boolean;
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
}

/**
 * One POST of one event (or an automation's `webhook` step), signed with Standard Webhooks headers. Redirects are not followed (a
 * 3xx is a failure), the connection goes only to an address the guard accepted, and the whole
 * attempt is bounded by `timeoutMs`.
 */
export function attemptDelivery(
  url: string,
  envelope: EventEnvelope | { readonly id: string },
  secrets: string[],
  settings: GuardSettings & { timeoutMs: number },
): Promise<AttemptOutcome> {
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, latencyMs: Math.round(performance.now() - started) });
    };
    const req = transport.request(
      target,
      {
        method: 'POST',
        lookup: guardedLookup(settings),
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Sendline-Webhooks/1.0',
          'webhook-id': envelope.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, envelope.id, timestamp, body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const code = res.statusCode ?? 0;
          const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') || null;
          const success = code >= 200 && code < 300;
          finish({
            success,
            statusCode: code,
            excerpt,
            error: success ? null : code >= 300 && code < 400 ? `redirect to ${res.headers.location ?? '?'} not followed` : `HTTP ${code}`,
          });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= EXCERPT_BYTES) chunks.push(chunk);
          if (size > MAX_RESPONSE_BYTES) done();
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ success: false, statusCode: null, excerpt: null, error: `timed out after ${settings.timeoutMs} ms` });
    }, settings.timeoutMs);
    req.on('error', (err) => {
      const reason = err instanceof UnsafeAddressError ? `refused: ${err.message}` : `${(err as NodeJS.ErrnoException).code ?? 'error'}: ${err.message}`;
      finish({ success: false, statusCode: null, excerpt: null, error: reason });
    });
    req.end(body);
  });
}
