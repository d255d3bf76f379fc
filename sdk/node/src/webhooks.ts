/**
 * Standard Webhooks verification (`webhook-id`, `webhook-timestamp`, `webhook-signature`), as
 * Svix's libraries do it: the raw body as bytes or text, headers in any case, arrays accepted.
 */
// A namespace import: a browser bundle (which never verifies webhooks) still resolves this module.
import * as crypto from 'node:crypto';
import { WebhookVerificationError } from './errors.ts';
import { events } from './operations.ts';
import type { components } from './schema.js';

/** An event of a type this SDK knows, typed by its `type`: `switch (event.type)` narrows `data`. */
export type KnownEvent = components['schemas']['Event'];

/**
 * An event this SDK cannot type: a type newer than this version, or a payload that does not fit
 * its type. Test `event instanceof UnknownEvent` first; the rest is a `KnownEvent`.
 */
export class UnknownEvent {
  readonly id: string;
  readonly type: string;
  readonly created_at: string;
  readonly account_id: string;
  readonly data: Record<string, unknown>;
  /** Types it apart from every KnownEvent, so that `instanceof UnknownEvent` narrows both ways (no field at run time). */
  private declare readonly unknownEvent: true;

  constructor(event: { id: string; type: string; created_at: string; account_id: string; data: Record<string, unknown> }) {
    this.id = event.id;
    this.type = event.type;
    this.created_at = event.created_at;
    this.account_id = event.account_id;
    this.data = event.data;
  }
}
export type WebhookEvent = KnownEvent | UnknownEvent;

/** Headers as frameworks hand them over: a plain object (any key case, string or array values) or a `Headers`. */
export type WebhookHeaders = Record<string, string | readonly string[] | undefined> | { get(name: string): string | null };

const TOLERANCE_SECONDS = 5 * 60;
const NOT_AN_EVENT = 'webhook body is not a JSON event';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : Array.isArray(value) ? value.join(' ') : undefined;
  }
  return undefined;
}

function bytes(payload: string | Uint8Array): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new WebhookVerificationError(NOT_AN_EVENT);
}

/** Whether a value has the members a shape of `events` lists, with their JSON types. */
function fits(value: unknown, shape: unknown): boolean {
  if (shape === 'any') return true;
  if (shape === 'array') return Array.isArray(value);
  if (typeof shape === 'string') return typeof value === shape;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.entries(shape as Record<string, unknown>).every(([key, member]) => fits((value as Record<string, unknown>)[key], member));
}

const ENVELOPE = { id: 'string', type: 'string', created_at: 'string', account_id: 'string', data: {} };

export class Webhook {
  readonly #key: Buffer;

  /** The endpoint's signing secret, `whsec_…` (the prefix is optional). */
  constructor(secret: string) {
    const base64 = typeof secret === 'string' ? secret.replace(/^whsec_/, '') : '';
    if (!base64 || base64.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64))
      throw new WebhookVerificationError('webhook secret is not a whsec_ base64 secret');
    this.#key = Buffer.from(base64, 'base64');
  }

  /**
   * Checks the delivery's signature and age (5 minutes either way) and answers the parsed event:
   * a `KnownEvent`, or an `UnknownEvent` when its type is newer than this SDK or its payload does
   * not fit its type. Pass the raw body exactly as received.
   */
  verify(payload: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook timestamp is not a number');
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) throw new WebhookVerificationError('webhook timestamp is more than 300 s from now');
    const body = bytes(payload);
    const expected = this.#digest(id, timestamp, body);
    const matches = signatures.split(' ').some((entry) => {
      const [version, signature] = entry.split(',');
      if (version !== 'v1' || !signature) return false;
      const given = Buffer.from(signature, 'base64');
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    });
    if (!matches) throw new WebhookVerificationError('no webhook signature matches');
    let event: unknown;
    try {
      event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    } catch (cause) {
      throw new WebhookVerificationError(NOT_AN_EVENT, { cause });
    }
    if (!fits(event, ENVELOPE)) throw new WebhookVerificationError(NOT_AN_EVENT);
    const envelope = event as UnknownEvent;
    const shape = Object.hasOwn(events, envelope.type) ? events[envelope.type] : undefined;
    return shape !== undefined && fits(envelope.data, shape) ? (event as KnownEvent) : new UnknownEvent(envelope);
  }

  /** The `webhook-signature` value for a delivery (to test a receiver): `timestamp` a `Date` or Unix seconds. */
  sign(msgId: string, timestamp: Date | number, payload: string | Uint8Array): string {
    if (typeof timestamp === 'number' && (!Number.isFinite(timestamp) || timestamp < 0 || timestamp > 1e11))
      throw new WebhookVerificationError(
        `webhook timestamp ${timestamp} is not Unix seconds${timestamp > 1e11 ? ' (it looks like milliseconds: pass a Date or Math.floor(Date.now() / 1000))' : ''}`,
      );
    const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : Math.floor(timestamp);
    return `v1,${this.#digest(msgId, String(seconds), bytes(payload)).toString('base64')}`;
  }

  #digest(id: string, timestamp: string, body: Buffer): Buffer {
    return crypto.createHmac('sha256', this.#key).update(`${id}.${timestamp}.`).update(body).digest();
  }
}
