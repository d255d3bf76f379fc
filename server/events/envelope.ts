import type { SendlineEvent } from './types.ts';

/** An event as every channel shows it (webhooks, the WebSocket, `GET /events`): the contract's `Event`. */
export type EventEnvelope = SendlineEvent;

/** The columns of `events` an envelope is made of. */
export const ENVELOPE_COLUMNS = 'id, type, created_at, account_id, data';

export function eventEnvelope(row: { id: string; type: string; created_at: Date; account_id: string; data: unknown }): EventEnvelope {
  // Every row of `events` was written by `append`, which types each payload by the event's type.
  return { id: row.id, type: row.type, created_at: row.created_at.toISOString(), account_id: row.account_id, data: row.data } as EventEnvelope;
}

/** The fields every `email.*` event starts with. */
export function emailEventData(message: { id: string; campaign_id: string; contact_id: string | null; email: string }) {
  return { message_id: message.id, campaign_id: message.campaign_id, contact_id: message.contact_id, email: message.email };
}
