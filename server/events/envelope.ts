/** An event as every channel shows it: webhooks, the WebSocket and `GET /events`. */
export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  account_id: string;
  data: unknown;
}

/** The columns of `events` an envelope is made of. */
export const ENVELOPE_COLUMNS = 'id, type, created_at, account_id, data';

export function eventEnvelope(row: { id: string; type: string; created_at: Date; account_id: string; data: unknown }): EventEnvelope {
  return { id: row.id, type: row.type, created_at: row.created_at.toISOString(), account_id: row.account_id, data: row.data };
}

/** The fields every `email.*` event starts with. */
export function emailEventData(message: { id: string; campaign_id: string; contact_id: string | null; email: string }) {
  return { message_id: message.id, campaign_id: message.campaign_id, contact_id: message.contact_id, email: message.email };
}
