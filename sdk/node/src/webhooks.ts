import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './schema.d.ts';

export type Event = components['schemas']['Event'];

export class WebhookVerificationError extends Error {}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: Headers, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name] ?? (headers as Record<string, string | string[] | undefined>)[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a Standard Webhooks delivery (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the endpoint's `whsec_…` secret and answers the typed event.
 * Pass the raw body, exactly as received.
 */
export function verifyWebhook(secret: string, headers: Headers, rawBody: string, toleranceSeconds = 300): Event {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook headers');
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) throw new WebhookVerificationError('timestamp outside the tolerance');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  const valid = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!valid) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(rawBody) as Event;
}
