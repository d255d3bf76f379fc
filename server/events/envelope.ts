import type { SendlineEvent } from './types.ts';

/** An event as every channel shows it (webhooks, the WebSocket, `GET /events`): the contract's `Event`. */
export type EventEnvelope = SendlineEvent;

/** The columns of `events` an envelope is made of. */
export const ENVELOPE_COLUMNS = 'id, type, created_at, account_id, data';

export function eventEnvelope(row: { id: string; type: string; created_at: Date; account_id: string; data: unknown }): EventEnvelope {
  // Every row of `events` was written by `append`, which types each payload by the event's type.
  return { id: row.id, type: row.type, created_at: row.created_at.toISOString(), account_id: row.account_id, data: current(row.data) } as EventEnvelope;
}

/**
 * A stored payload as the contract has it now: a contact written into an event before contacts
 * had a `timezone` shows it as null, as the contact had none then.
 */
function current(data: unknown): unknown {
  const contact = (data as { contact?: unknown } | null)?.contact;
  if (!contact || typeof contact !== 'object' || 'timezone' in contact) return data;
  return { ...(data as object), contact: { ...contact, timezone: null } };
}

/** The fields every `email.*` event starts with; an A/B test's message names its variant. */
export function emailEventData(message: { id: string; campaign_id: string; contact_id: string | null; email: string; variant?: string | null }) {
  const data = { message_id: message.id, campaign_id: message.campaign_id, contact_id: message.contact_id, email: message.email };
  return message.variant ? { ...data, variant: message.variant } : data;
}
