import { inTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import { newId } from '../db/ids.ts';
import type { PendingEvent } from '../events/outbox.ts';
import { append } from '../events/store.ts';
import type { BounceType } from './reports.ts';
import { emailEventData } from '../events/envelope.ts';

/** Soft bounces in a row (no open or click between them) that make an address bounced. */
export const SOFT_BOUNCE_LIMIT = 3;

export interface BounceInput {
  /** Set for reports made through the API: the message or address must belong to it. */
  accountId?: string;
  messageId?: string | null;
  email?: string | null;
  type: BounceType;
  reason: string | null;
  diagnosticCode: string | null;
  feedbackType?: string | null;
  occurredAt: Date;
  source: 'dsn' | 'arf' | 'api';
}

export interface BounceRecordRow {
  id: string;
  account_id: string;
  campaign_id: string | null;
  contact_id: string | null;
  email: string;
  type: BounceType;
  reason: string | null;
  diagnostic_code: string | null;
  occurred_at: Date;
}

interface MessageRef {
  id: string;
  account_id: string;
  campaign_id: string;
  contact_id: string | null;
  email: string;
  bounced_at: Date | null;
  unsubscribed_at: Date | null;
}

const MESSAGE_COLUMNS = 'id, account_id, campaign_id, contact_id, email, bounced_at, unsubscribed_at';

export type UnsubscribeResult = { outcome: 'unsubscribed' | 'already'; email: string } | { outcome: 'not_found' };

/**
 * Bounces, complaints and unsubscribes: the feedback that suppresses addresses. Each report is
 * one transaction: the raw record (its trigger keeps the rollups), the message, the contact's
 * status and the events.
 */
export class FeedbackService {
  private readonly pool: Pool;

  constructor(pool: Pool) {
    this.pool = pool;
  }

  /** Null when neither the message nor the address is known (to this account, when given). */
  async recordBounce(input: BounceInput): Promise<BounceRecordRow | null> {
    return inTransaction(this.pool, async (client) => {
      const message = await this.findMessage(client, input);
      const accountId = message?.account_id ?? input.accountId;
      if (!accountId) return null;
      const contact = await this.findContact(client, accountId, message?.contact_id ?? null, message ? null : input.email ?? null);
      if (!message && !contact) return null;
      const email = message?.email ?? contact!.email;
      const events: PendingEvent[] = [];
      const { rows: [record] } = await client.query<BounceRecordRow>(
        `insert into bounces (id, account_id, campaign_id, message_id, contact_id, email, type, reason, diagnostic_code, source, occurred_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning *`,
        [newId('bnc'), accountId, message?.campaign_id ?? null, message?.id ?? null, contact?.id ?? null, email, input.type, input.reason, input.diagnosticCode, input.source, input.occurredAt],
      );
      if (message) {
        const base = emailEventData(message);
        if (input.type === 'complaint') {
          await client.query('update messages set complained_at = coalesce(complained_at, $2) where id = $1', [message.id, input.occurredAt]);
          events.push({ type: 'email.complained', data: { ...base, feedback_type: input.feedbackType ?? null } });
        } else {
          if (input.type === 'hard' && message.bounced_at === null) {
            await client.query("update messages set status = 'bounced', reason = $2, bounced_at = $3 where id = $1", [message.id, input.reason, input.occurredAt]);
            await client.query('update campaigns set bounced = bounced + 1, updated_at = now() where id = $1', [message.campaign_id]);
          }
          events.push({ type: 'email.bounced', data: { ...base, bounce_type: input.type, reason: input.reason, diagnostic_code: input.diagnosticCode } });
        }
      }
      if (contact) events.push(...(await this.suppressAfter(client, contact.id, input.type, input.reason)));
      await append(client, accountId, events);
      return record;
    });
  }

  /**
   * Idempotent: the first call for a message unsubscribes its contact and emits
   * `email.unsubscribed` once; later calls (and other messages to an already suppressed
   * contact) change nothing.
   */
  async unsubscribe(messageId: string, source: 'link' | 'one_click'): Promise<UnsubscribeResult> {
    return inTransaction(this.pool, async (client) => {
      const { rows: [message] } = await client.query<MessageRef>(`select ${MESSAGE_COLUMNS} from messages where id = $1 for update`, [messageId]);
      if (!message) return { outcome: 'not_found' };
      if (message.unsubscribed_at) return { outcome: 'already', email: message.email };
      await client.query('update messages set unsubscribed_at = now() where id = $1', [message.id]);
      let changed = message.contact_id === null;
      const events: PendingEvent[] = [];
      if (message.contact_id) {
        const { rows } = await client.query(
          `update contacts set status = 'unsubscribed', status_reason = $2, status_changed_at = now(), updated_at = now()
           where id = $1 and status = 'subscribed' returning id, email`,
          [message.contact_id, `unsubscribed from campaign ${message.campaign_id}`],
        );
        changed = rows.length > 0;
        if (changed) events.push({ type: 'contact.suppressed', data: { contact_id: rows[0].id, email: rows[0].email, status: 'unsubscribed', reason: `unsubscribed from campaign ${message.campaign_id}` } });
      }
      if (!changed) return { outcome: 'already', email: message.email };
      await client.query(
        `insert into unsubscribes (id, account_id, campaign_id, message_id, contact_id, email, source, occurred_at) values ($1, $2, $3, $4, $5, $6, $7, now())`,
        [newId('uns'), message.account_id, message.campaign_id, message.id, message.contact_id, message.email, source],
      );
      events.unshift({ type: 'email.unsubscribed', data: { ...emailEventData(message), source } });
      await append(client, message.account_id, events);
      return { outcome: 'unsubscribed', email: message.email };
    });
  }

  /** The address of a message, for the confirmation page; null when unknown. */
  async messageEmail(messageId: string): Promise<string | null> {
    const { rows } = await this.pool.query('select email from messages where id = $1', [messageId]);
    return rows[0]?.email ?? null;
  }

  private async findMessage(client: PoolClient, input: BounceInput): Promise<MessageRef | null> {
    if (input.messageId) {
      const { rows } = await client.query<MessageRef>(
        `select ${MESSAGE_COLUMNS} from messages where id = $1 and ($2::text is null or account_id = $2) for update`,
        [input.messageId, input.accountId ?? null],
      );
      return rows[0] ?? null;
    }
    if (!input.email || !input.accountId) return null;
    const { rows } = await client.query<MessageRef>(
      `select ${MESSAGE_COLUMNS} from messages where account_id = $1 and lower(email) = lower($2) order by created_at desc limit 1 for update`,
      [input.accountId, input.email],
    );
    return rows[0] ?? null;
  }

  private async findContact(client: PoolClient, accountId: string, contactId: string | null, email: string | null): Promise<{ id: string; email: string } | null> {
    if (!contactId && !email) return null;
    const { rows } = contactId
      ? await client.query('select id, email from contacts where id = $1 for update', [contactId])
      : await client.query('select id, email from contacts where account_id = $1 and lower(email) = lower($2) for update', [accountId, email]);
    return rows[0] ?? null;
  }

  /** Hard bounce → bounced; the third soft bounce in a row → bounced; complaint → complained. */
  private async suppressAfter(client: PoolClient, contactId: string, type: BounceType, reason: string | null): Promise<PendingEvent[]> {
    let status: 'bounced' | 'complained';
    let why = reason;
    if (type === 'complaint') {
      status = 'complained';
    } else if (type === 'hard') {
      status = 'bounced';
    } else {
      const { rows: [row] } = await client.query('update contacts set soft_bounces = soft_bounces + 1 where id = $1 returning soft_bounces', [contactId]);
      if (row.soft_bounces < SOFT_BOUNCE_LIMIT) return [];
      status = 'bounced';
      why = `${row.soft_bounces} soft bounces in a row${reason ? `; last: ${reason}` : ''}`;
    }
    // A complaint outranks an unsubscribe; a bounced address stays bounced.
    const from = status === 'complained' ? ['subscribed', 'unsubscribed'] : ['subscribed'];
    const { rows } = await client.query(
      `update contacts set status = $2, status_reason = $3, status_changed_at = now(), updated_at = now()
       where id = $1 and status = any($4) returning id, email`,
      [contactId, status, why, from],
    );
    return rows.length ? [{ type: 'contact.suppressed', data: { contact_id: rows[0].id, email: rows[0].email, status, reason: why } }] : [];
  }
}
