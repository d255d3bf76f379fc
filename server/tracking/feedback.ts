import type { Metrics } from '../metrics/metrics.ts';
import { sql } from 'kysely';
import type { Transactions } from '../db/transactions.ts';
import { accountOfId } from '../db/by-account.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/kysely.ts';
import type { PendingEvent } from '../events/types.ts';
import { append } from '../events/outbox.ts';
import type { BounceType } from './reports.ts';
import { emailEventData } from '../events/envelope.ts';
import { insertBounce, insertUnsubscribe, Rollups, writeRollups, type BounceRecord } from './store.ts';
import type { CampaignRecords } from './campaign-records.ts';
import { isTransactionalId, transactionalFeedback } from '../emails/engagement.ts';
import { transactionalEventData } from '../emails/events.ts';
import type { ContactRecords } from './contact-records.ts';
import { contactForEvent } from '../topics/service.ts';

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

/** A message as feedback reads it (locked). */
interface MessageRef {
  id: string;
  account_id: string;
  campaign_id: string;
  contact_id: string | null;
  email: string;
  variant: string | null;
  bounced_at: Date | null;
  unsubscribed_at: Date | null;
}

const MESSAGE_COLUMNS = sql.raw('id, account_id, campaign_id, contact_id, email, variant, bounced_at, unsubscribed_at');

/** `topic`: the name of the topic left, when only a topic was. */
export type UnsubscribeResult = { outcome: 'unsubscribed' | 'already'; email: string; topic: string | null } | { outcome: 'not_found' };

/**
 * Bounces, complaints and unsubscribes: the feedback that suppresses addresses. Each report is
 * one transaction: the raw record, the rollups, the message, the contact's status and the events.
 * A message counts as bounced (in `stats` and in analytics alike) once, at its first hard bounce,
 * and as complained once, at its first complaint, however often either is reported.
 */
export class FeedbackService {
  private readonly transactions: Transactions;
  private readonly db: Db;
  private readonly campaigns: CampaignRecords;
  private readonly contacts: ContactRecords;
  private readonly metrics: Metrics;

  /**
   * `db` reads on the ORM's connection; `transactions` gives a report its own transaction, in
   * which its events may be COPYed.
   */
  constructor(transactions: Transactions, db: Db, campaigns: CampaignRecords, contacts: ContactRecords, metrics: Metrics) {
    this.metrics = metrics;
    this.transactions = transactions;
    this.db = db;
    this.campaigns = campaigns;
    this.contacts = contacts;
  }

  /** Null when neither the message nor the address is known (to this account, when given). */
  async recordBounce(input: BounceInput): Promise<BounceRecord | null> {
    const record = await this.record(input);
    if (record) this.metrics.feedbackReports.inc({ type: input.type === 'complaint' ? 'complaint' : 'bounce' });
    return record;
  }

  private async record(input: BounceInput): Promise<BounceRecord | null> {
    if (input.messageId && isTransactionalId(input.messageId)) return this.recordTransactionalBounce({ ...input, messageId: input.messageId });
    return this.transactions.run(async (db) => {
      const message = await this.findMessage(db, input);
      const accountId = message?.account_id ?? input.accountId;
      if (!accountId) return null;
      const contact = await this.findContact(db, accountId, message?.contact_id ?? null, message ? null : (input.email ?? null));
      if (!message && !contact) return null;
      const email = message?.email ?? contact!.email;
      const events: PendingEvent[] = [];
      const record = await insertBounce(db, {
        id: newId('bnc'),
        account_id: accountId,
        campaign_id: message?.campaign_id ?? null,
        message_id: message?.id ?? null,
        contact_id: contact?.id ?? null,
        email,
        type: input.type,
        reason: input.reason,
        diagnostic_code: input.diagnosticCode,
        source: input.source,
        occurred_at: input.occurredAt,
      });
      if (message) {
        const rollups = new Rollups();
        const base = emailEventData(message);
        if (input.type === 'complaint') {
          if (await this.campaigns.markComplained(db, accountId, message.id, input.occurredAt)) {
            rollups.campaign(message.campaign_id, accountId, { complained: 1 }).hour(message.campaign_id, accountId, input.occurredAt, { complaints: 1 });
          }
          events.push({ type: 'email.complained', data: { ...base, feedback_type: input.feedbackType ?? null } });
        } else {
          if (input.type === 'soft') {
            rollups.hour(message.campaign_id, accountId, input.occurredAt, { bounces_soft: 1 }).domain(message.campaign_id, accountId, email, { bounces: 1 });
          } else if (message.bounced_at === null) {
            await this.campaigns.markBounced(db, accountId, message.id, input.reason, input.occurredAt);
            rollups
              .campaign(message.campaign_id, accountId, { bounced: 1 })
              .hour(message.campaign_id, accountId, input.occurredAt, { bounces_hard: 1 })
              .domain(message.campaign_id, accountId, email, { bounces: 1 });
          }
          events.push({ type: 'email.bounced', data: { ...base, bounce_type: input.type, reason: input.reason, diagnostic_code: input.diagnosticCode } });
        }
        await writeRollups(db, rollups, this.campaigns);
      }
      const suppressed = contact ? await this.suppressAfter(db, accountId, contact.id, input.type, input.reason) : [];
      events.push(...suppressed);
      // The address goes on the list when it is suppressed: a hard bounce or complaint, or the soft bounce that suppressed its contact.
      if (email !== '' && (input.type !== 'soft' || suppressed.length)) {
        const complaint = input.type === 'complaint';
        await this.contacts.addSuppressions(db, accountId, [
          { email, reason: complaint ? 'complained' : 'bounced', source: complaint ? 'complaint' : 'bounce', detail: input.reason },
        ]);
      }
      await append(db, accountId, events);
      return record;
    });
  }

  /** A bounce or complaint of a transactional message: no campaign counts it; the address is suppressed as for campaigns. */
  private recordTransactionalBounce(input: BounceInput & { messageId: string }): Promise<BounceRecord | null> {
    return this.transactions.run(async (db) => {
      const message = await transactionalFeedback.lock(db, input.messageId);
      // A copy whose recipient was erased is unknown to reports: its reason and events would name them again.
      if (!message || message.email === '' || (input.accountId && message.account_id !== input.accountId)) return null;
      const accountId = message.account_id;
      const contact = await this.findContact(db, accountId, message.contact_id, message.contact_id ? null : message.email);
      const record = await insertBounce(db, {
        id: newId('bnc'),
        account_id: accountId,
        campaign_id: null,
        message_id: message.id,
        contact_id: contact?.id ?? null,
        email: message.email,
        type: input.type,
        reason: input.reason,
        diagnostic_code: input.diagnosticCode,
        source: input.source,
        occurred_at: input.occurredAt,
      });
      const base = transactionalEventData(message);
      const events: PendingEvent[] = [];
      if (input.type === 'complaint') {
        await transactionalFeedback.markComplained(db, accountId, message.id, input.occurredAt);
        events.push({ type: 'email.complained', data: { ...base, feedback_type: input.feedbackType ?? null } });
      } else {
        if (input.type === 'hard' && message.bounced_at === null)
          await transactionalFeedback.markBounced(db, accountId, message.id, input.reason, input.occurredAt);
        events.push({ type: 'email.bounced', data: { ...base, bounce_type: input.type, reason: input.reason, diagnostic_code: input.diagnosticCode } });
      }
      if (contact) events.push(...(await this.suppressAfter(db, accountId, contact.id, input.type, input.reason)));
      await append(db, accountId, events);
      return record;
    });
  }

  /**
   * Idempotent. `scope` `topic` leaves the campaign's topic only (the contact stays subscribed to
   * the rest), `all` suppresses the contact and puts the address on the suppression list. The
   * first unsubscribe from a message records it and emits `email.unsubscribed` once; leaving
   * everything after leaving the topic through the same message suppresses without counting again.
   * A campaign without a topic, or a message whose contact is gone, always leaves everything.
   */
  async unsubscribe(messageId: string, source: 'link' | 'one_click', scope: 'topic' | 'all'): Promise<UnsubscribeResult> {
    if (isTransactionalId(messageId)) return this.unsubscribeCopy(messageId, source, scope);
    return this.transactions.run(async (db) => {
      const accountId = await accountOfId(db, 'messages', messageId);
      const {
        rows: [message],
      } = accountId
        ? await sql<MessageRef>`select ${MESSAGE_COLUMNS} from messages where account_id = ${accountId} and id = ${messageId} for update`.execute(db)
        : { rows: [] };
      // A message whose recipient was erased has no address left to unsubscribe: its link is void.
      if (!message || message.email === '') return { outcome: 'not_found' };
      const topic = scope === 'topic' && message.contact_id ? await this.campaignTopic(db, message.account_id, message.campaign_id) : null;
      const first = message.unsubscribed_at === null;
      const events: PendingEvent[] = [];
      if (topic && message.contact_id) {
        if (await this.contacts.optOut(db, message.account_id, topic.id, message.contact_id)) {
          const contact = await contactForEvent(db, message.account_id, message.contact_id);
          if (contact) events.push({ type: 'contact.updated', data: { contact, changed: ['topic_optouts'] } });
        } else if (!first) {
          return { outcome: 'already', email: message.email, topic: topic.name };
        }
      } else {
        if (message.contact_id) {
          events.push(
            ...(await this.contacts.suppress(
              db,
              message.account_id,
              [message.contact_id],
              'unsubscribed',
              `unsubscribed from campaign ${message.campaign_id}`,
            )),
          );
        }
        const listed = await this.contacts.addSuppressions(db, message.account_id, [
          {
            email: message.email,
            reason: 'unsubscribed',
            source: source === 'link' ? 'unsubscribe_link' : 'one_click',
            detail: `campaign ${message.campaign_id}`,
          },
        ]);
        if (!events.length && !listed.length) return { outcome: 'already', email: message.email, topic: null };
      }
      if (first) {
        await this.campaigns.markUnsubscribed(db, message.account_id, message.id);
        const at = new Date();
        await insertUnsubscribe(db, {
          id: newId('uns'),
          account_id: message.account_id,
          campaign_id: message.campaign_id,
          message_id: message.id,
          contact_id: message.contact_id,
          email: message.email,
          source,
          occurred_at: at,
        });
        await writeRollups(
          db,
          new Rollups()
            .campaign(message.campaign_id, message.account_id, { unsubscribed: 1 })
            .hour(message.campaign_id, message.account_id, at, { unsubscribes: 1 }),
          this.campaigns,
        );
        events.unshift({ type: 'email.unsubscribed', data: { ...emailEventData(message), source } });
      }
      await append(db, message.account_id, events);
      return { outcome: 'unsubscribed', email: message.email, topic: topic?.name ?? null };
    });
  }

  /**
   * `unsubscribe` for an automation's email (a transactional copy; others carry no link): the
   * automation's topic stands for the campaign's.
   */
  private unsubscribeCopy(messageId: string, source: 'link' | 'one_click', scope: 'topic' | 'all'): Promise<UnsubscribeResult> {
    return this.transactions.run(async (db) => {
      const copy = await transactionalFeedback.lock(db, messageId);
      if (!copy?.automation_id || copy.email === '') return { outcome: 'not_found' };
      const topic = scope === 'topic' && copy.contact_id ? await this.automationTopic(db, copy.account_id, copy.automation_id) : null;
      const first = copy.unsubscribed_at === null;
      const events: PendingEvent[] = [];
      if (topic && copy.contact_id) {
        if (await this.contacts.optOut(db, copy.account_id, topic.id, copy.contact_id)) {
          const contact = await contactForEvent(db, copy.account_id, copy.contact_id);
          if (contact) events.push({ type: 'contact.updated', data: { contact, changed: ['topic_optouts'] } });
        } else if (!first) return { outcome: 'already', email: copy.email, topic: topic.name };
      } else {
        if (copy.contact_id)
          events.push(
            ...(await this.contacts.suppress(db, copy.account_id, [copy.contact_id], 'unsubscribed', `unsubscribed from automation ${copy.automation_id}`)),
          );
        const listed = await this.contacts.addSuppressions(db, copy.account_id, [
          {
            email: copy.email,
            reason: 'unsubscribed',
            source: source === 'link' ? 'unsubscribe_link' : 'one_click',
            detail: `automation ${copy.automation_id}`,
          },
        ]);
        if (!events.length && !listed.length) return { outcome: 'already', email: copy.email, topic: null };
      }
      if (first && (await transactionalFeedback.markUnsubscribed(db, copy.account_id, copy.id, new Date())))
        events.unshift({ type: 'email.unsubscribed', data: { ...transactionalEventData(copy), source } });
      await append(db, copy.account_id, events);
      return { outcome: 'unsubscribed', email: copy.email, topic: topic?.name ?? null };
    });
  }

  /** The topic of an automation, if it has one. */
  private async automationTopic(db: Db, accountId: string, automationId: string): Promise<{ id: string; name: string } | null> {
    const { rows } = await sql<{ id: string; name: string }>`
      select t.id, t.name from automations a join topics t on t.account_id = a.account_id and t.id = a.settings->>'topic_id'
      where a.account_id = ${accountId} and a.id = ${automationId}`.execute(db);
    return rows[0] ?? null;
  }

  /** The topic of a campaign, if it has one. */
  private async campaignTopic(db: Db, accountId: string, campaignId: string): Promise<{ id: string; name: string } | null> {
    const row = await db
      .selectFrom('campaigns')
      .innerJoin('topics', (join) => join.onRef('topics.account_id', '=', 'campaigns.account_id').onRef('topics.id', '=', 'campaigns.topic_id'))
      .select(['topics.id', 'topics.name'])
      .where('campaigns.account_id', '=', accountId)
      .where('campaigns.id', '=', campaignId)
      .executeTakeFirst();
    return row ?? null;
  }

  /** The address of a message and its campaign's topic, for the confirmation page; null when unknown. */
  async unsubscribePage(messageId: string): Promise<{ email: string; topic: string | null } | null> {
    if (isTransactionalId(messageId)) {
      const copy = await transactionalFeedback.find(this.db, messageId);
      if (!copy?.automation_id || copy.email === '') return null;
      const topic = copy.contact_id ? await this.automationTopic(this.db, copy.account_id, copy.automation_id) : null;
      return { email: copy.email, topic: topic?.name ?? null };
    }
    const row = await this.db
      .selectFrom('messages')
      .innerJoin('campaigns', (join) => join.onRef('campaigns.account_id', '=', 'messages.account_id').onRef('campaigns.id', '=', 'messages.campaign_id'))
      .leftJoin('topics', (join) => join.onRef('topics.account_id', '=', 'campaigns.account_id').onRef('topics.id', '=', 'campaigns.topic_id'))
      .select(['messages.email', 'messages.contact_id', 'topics.name'])
      .where('messages.id', '=', messageId)
      .executeTakeFirst();
    if (!row || row.email === '') return null;
    return { email: row.email, topic: row.contact_id ? row.name : null };
  }

  private async findMessage(db: Db, input: BounceInput): Promise<MessageRef | null> {
    if (input.messageId) {
      const accountId = await accountOfId(db, 'messages', input.messageId);
      if (!accountId || (input.accountId && input.accountId !== accountId)) return null;
      const { rows } = await sql<MessageRef>`select ${MESSAGE_COLUMNS} from messages
        where account_id = ${accountId} and id = ${input.messageId} for update`.execute(db);
      return rows[0] ?? null;
    }
    if (!input.email || !input.accountId) return null;
    const { rows } = await sql<MessageRef>`select ${MESSAGE_COLUMNS} from messages
      where account_id = ${input.accountId} and lower(email) = lower(${input.email}) order by created_at desc limit 1 for update`.execute(db);
    return rows[0] ?? null;
  }

  private async findContact(db: Db, accountId: string, contactId: string | null, email: string | null): Promise<{ id: string; email: string } | null> {
    if (!contactId && !email) return null;
    const query = db.selectFrom('contacts').select(['id', 'email']).forUpdate();
    const row = contactId
      ? await query.where('account_id', '=', accountId).where('id', '=', contactId).executeTakeFirst()
      : await query
          .where('account_id', '=', accountId)
          .where(sql<boolean>`lower(email) = lower(${email})`)
          .executeTakeFirst();
    return row ?? null;
  }

  /** Hard bounce → bounced; the third soft bounce in a row → bounced; complaint → complained. */
  private async suppressAfter(db: Db, accountId: string, contactId: string, type: BounceType, reason: string | null): Promise<PendingEvent[]> {
    if (type === 'complaint') return this.contacts.suppress(db, accountId, [contactId], 'complained', reason);
    if (type === 'hard') return this.contacts.suppress(db, accountId, [contactId], 'bounced', reason);
    const softBounces = await this.contacts.countSoftBounce(db, accountId, contactId);
    if (softBounces < SOFT_BOUNCE_LIMIT) return [];
    return this.contacts.suppress(db, accountId, [contactId], 'bounced', `${softBounces} soft bounces in a row${reason ? `; last: ${reason}` : ''}`);
  }
}
