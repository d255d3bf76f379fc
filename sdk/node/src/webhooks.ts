/**
 * Standard Webhooks verification (`webhook-id`, `webhook-timestamp`, `webhook-signature`), as
 * Svix's libraries do it: the raw body as bytes or text, headers in any case, arrays accepted.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.ts';
import type { components } from './schema.js';

/** An event of a type this SDK knows, typed by its `type`. */
export type KnownEvent = components['schemas']['Event'];
/** An event of a type newer than this SDK: the envelope every event has. */
export interface UnknownEvent {
  id: string;
  type: string;
  created_at: string;
  account_id: string;
  data: Record<string, unknown>;
}
export type WebhookEvent = KnownEvent | UnknownEvent;

/** Headers as frameworks hand them over: a plain object (any key case, string or array values) or a `Headers`. */
export type WebhookHeaders = Record<string, string | readonly string[] | undefined> | { get(name: string): string | null };

const TOLERANCE_SECONDS = 5 * 60;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') throw new WebhookVerificationError('The headers must be an object or a Headers');
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.join(' ');
  }
  return undefined;
}

function bytes(payload: string | Uint8Array): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new WebhookVerificationError('The payload must be the raw body: a string, Buffer or Uint8Array');
}

export class Webhook {
  readonly #key: Buffer;

  /** The endpoint's signing secret, `whsec_…` (the prefix is optional). */
  constructor(secret: string) {
    const key = Buffer.from(String(secret).replace(/^whsec_/, ''), 'base64');
    if (key.length === 0) throw new WebhookVerificationError('The webhook secret is empty or not base64');
    this.#key = key;
  }

  /**
   * Checks the delivery's signature and age (5 minutes either way) and answers the parsed event,
   * typed when its type is known, as is otherwise. Pass the raw body exactly as received.
   */
  verify(payload: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
      throw new WebhookVerificationError('The webhook-timestamp is outside the tolerance');
    const body = bytes(payload);
    const expected = this.#digest(id, timestamp, body);
    const matches = signatures.split(' ').some((entry) => {
      const [version, signature] = entry.split(',');
      if (version !== 'v1' || !signature) return false;
      const given = Buffer.from(signature, 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!matches) throw new WebhookVerificationError('No signature matches');
    let event: unknown;
    try {
      event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    } catch (cause) {
      throw new WebhookVerificationError('The payload is not UTF-8 JSON', { cause });
    }
    if (!event || typeof event !== 'object' || typeof (event as UnknownEvent).type !== 'string')
      throw new WebhookVerificationError('The payload is not an event');
    return event as WebhookEvent;
  }

  /** The `webhook-signature` value for a delivery (to test a receiver). */
  sign(msgId: string, timestamp: Date | number, payload: string | Uint8Array): string {
    const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : Math.floor(timestamp);
    return `v1,${this.#digest(msgId, String(seconds), bytes(payload)).toString('base64')}`;
  }

  #digest(id: string, timestamp: string, body: Buffer): Buffer {
    return createHmac('sha256', this.#key).update(`${id}.${timestamp}.`).update(body).digest();
  }
}
