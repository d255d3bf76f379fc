import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';

// ---------------------------------------------------------------------------------------------
// Sending: what the send path records about a batch in the tracking tables, in its transaction.
// ---------------------------------------------------------------------------------------------

export interface SendRollup {
  sent: number;
  delivered: number;
  deferred: number;
  failed: number;
  /** Messages the relay accepted, per recipient domain (lower case). */
  domains: Map<string, number>;
}

/**
 * Adds a batch's outcomes to the campaign's hourly and per-domain rollups. Domains go in a fixed
 * order, so concurrent batches lock their rows in the same order.
 */
export async function addSendRollup(tx: Db, accountId: string, campaignId: string, rollup: SendRollup): Promise<void> {
  await sql`
    insert into campaign_hourly as h (campaign_id, bucket, account_id, sent, delivered, deferred, failed)
    values (${campaignId}, date_trunc('hour', now(), 'UTC'), ${accountId}, ${rollup.sent}, ${rollup.delivered}, ${rollup.deferred}, ${rollup.failed})
    on conflict (campaign_id, bucket) do update set sent = h.sent + excluded.sent, delivered = h.delivered + excluded.delivered,
      deferred = h.deferred + excluded.deferred, failed = h.failed + excluded.failed`.execute(tx);
  if (!rollup.domains.size) return;
  const domains = [...rollup.domains.keys()].sort();
  const accepted = domains.map((domain) => rollup.domains.get(domain) ?? 0);
  await sql`
    insert into campaign_domains as d (campaign_id, domain, sent, delivered)
    select ${campaignId}, u.domain, u.accepted, u.accepted from unnest(${domains}::text[], ${accepted}::int[]) as u(domain, accepted)
    on conflict (campaign_id, domain) do update set sent = d.sent + excluded.sent, delivered = d.delivered + excluded.delivered`.execute(tx);
}

/** A 5xx answer of the relay to one message. */
export interface SmtpBounce {
  messageId: string;
  contactId: string | null;
  email: string;
  reason: string;
  code: number;
}

/** Records hard bounces the relay answered while sending (the `bounces` trigger keeps the rollups). */
export async function recordSmtpBounces(tx: Db, accountId: string, campaignId: string, bounces: SmtpBounce[]): Promise<void> {
  if (!bounces.length) return;
  await sql`
    insert into bounces (id, account_id, campaign_id, message_id, contact_id, email, type, reason, diagnostic_code, source, occurred_at)
    select sendline_id('bnc'), ${accountId}, ${campaignId}, u.message_id, u.contact_id, u.email, 'hard', u.reason, u.code, 'smtp', now()
    from unnest(${bounces.map((b) => b.messageId)}::text[], ${bounces.map((b) => b.contactId)}::text[], ${bounces.map((b) => b.email)}::text[],
                ${bounces.map((b) => b.reason)}::text[], ${bounces.map((b) => `smtp; ${b.code}`)}::text[]) as u(message_id, contact_id, email, reason, code)`.execute(tx);
}

/** Marks subscribed contacts `bounced`; answers those whose status changed. */
export async function suppressBouncedContacts(tx: Db, bounces: { contactId: string; reason: string }[]): Promise<{ id: string; email: string; reason: string }[]> {
  if (!bounces.length) return [];
  const { rows } = await sql<{ id: string; email: string; reason: string }>`
    update contacts c set status = 'bounced', status_reason = u.reason, status_changed_at = now(), updated_at = now()
    from unnest(${bounces.map((b) => b.contactId)}::text[], ${bounces.map((b) => b.reason)}::text[]) as u(id, reason)
    where c.id = u.id and c.status = 'subscribed'
    returning c.id, c.email, u.reason`.execute(tx);
  return rows;
}
