import { sql } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { Transactions } from '../db/transactions.ts';
import type { Db } from '../db/kysely.ts';
import { notFound } from '../contract/problem.ts';
import { eventEnvelope } from '../events/envelope.ts';
import { append } from '../events/outbox.ts';
import { messageJson } from '../campaigns/service.ts';
import { contactEmailJson } from '../emails/json.ts';
import { analyzeSoon } from '../db/statistics.ts';
import { suppressionJson } from '../suppressions/service.ts';
import { contactForEvent } from '../topics/service.ts';
import { exportsStore } from './store.ts';

type ContactDataExport = components['schemas']['ContactDataExport'];
type ContactErasure = components['schemas']['ContactErasure'];

/** Records of one person in a table: by contact id, or by address (records of a deleted contact keep it). */
const ofPerson = (contactId: string, email: string) => sql<boolean>`(contact_id = ${contactId} or lower(email) = ${email.toLowerCase()})`;

/**
 * What the other features keep about a person, read for access and erased in the erasure's
 * transaction on `db`: each owner's functions, handed in by the composition root. Erasing
 * functions answer how many records they anonymised or deleted.
 */
export interface PersonalData {
  topicOptouts(db: Db, accountId: string, contactId: string): Promise<string[]>;
  suppression(db: Db, accountId: string, email: string): Promise<Parameters<typeof suppressionJson>[0] | null>;
  emails(db: Db, accountId: string, contactId: string, email: string): Promise<Parameters<typeof contactEmailJson>[0][]>;
  /** Campaign messages keep their counts without the address. */
  eraseMessages(db: Db, accountId: string, contactId: string, email: string): Promise<number>;
  eraseEmails(db: Db, accountId: string, contactId: string, email: string): Promise<number>;
  eraseTracking(db: Db, accountId: string, contactId: string, email: string): Promise<number>;
  /** Conversions and payments stay without the contact. */
  detachConversions(db: Db, accountId: string, contactId: string): Promise<number>;
  /** Answers the ids of the events deleted. */
  deleteEvents(db: Db, accountId: string, contactId: string, email: string): Promise<string[]>;
  deleteDeliveries(db: Db, accountId: string, eventIds: readonly string[]): Promise<number>;
  deleteImportErrors(db: Db, accountId: string, email: string): Promise<number>;
  forgetIdempotentAnswers(db: Db, accountId: string, email: string): Promise<number>;
  /** The address stays on the suppression list as a hash only; answers the entry's id. */
  keepSuppressedAsHash(db: Db, accountId: string, email: string): Promise<string>;
  /** The contact leaves every journey, which forget its events. */
  leaveJourneys(db: Db, accountId: string, contactId: string): Promise<number>;
  deleteContact(db: Db, accountId: string, contactId: string): Promise<unknown>;
}

/** GDPR: everything stored about one contact, and erasing it. */
export class PersonalDataService {
  private readonly transactions: Transactions;
  private readonly db: Db;
  private readonly data: PersonalData;

  constructor(transactions: Transactions, db: Db, data: PersonalData) {
    this.transactions = transactions;
    this.db = db;
    this.data = data;
  }

  /** Right of access: the contact and every record that names it, in one document. */
  async access(accountId: string, contactId: string): Promise<ContactDataExport> {
    const db = this.db;
    const contact = await contactForEvent(db, accountId, contactId);
    if (!contact) throw notFound('contact');
    const person = ofPerson(contactId, contact.email);
    const [topicOptouts, suppression, messages, emails, opens, clicks, bounces, unsubscribes, events, importErrors] = await Promise.all([
      this.data.topicOptouts(db, accountId, contactId),
      this.data.suppression(db, accountId, contact.email),
      db
        .selectFrom('messages')
        .select(['id', 'campaign_id', 'contact_id', 'email', 'status', 'variant', 'reason', 'attempts', 'sent_at', 'opened_at', 'clicked_at', 'created_at'])
        .where('account_id', '=', accountId)
        .where(person)
        .orderBy('created_at')
        .execute(),
      this.data.emails(db, accountId, contactId, contact.email),
      db
        .selectFrom('opens')
        .select(['id', 'campaign_id', 'contact_id', 'email', 'occurred_at', 'user_agent', 'ip', 'machine'])
        .where('account_id', '=', accountId)
        .where(person)
        .orderBy('occurred_at')
        .execute(),
      db
        .selectFrom('clicks')
        .select(['id', 'campaign_id', 'contact_id', 'email', 'occurred_at', 'url', 'user_agent', 'ip'])
        .where('account_id', '=', accountId)
        .where(person)
        .orderBy('occurred_at')
        .execute(),
      db
        .selectFrom('bounces')
        .select(['id', 'campaign_id', 'contact_id', 'email', 'occurred_at', 'type', 'reason', 'diagnostic_code'])
        .where('account_id', '=', accountId)
        .where(person)
        .orderBy('occurred_at')
        .execute(),
      db
        .selectFrom('unsubscribes')
        .select(['id', 'campaign_id', 'email', 'source', 'occurred_at'])
        .where('account_id', '=', accountId)
        .where(person)
        .orderBy('occurred_at')
        .execute(),
      sql<{ id: string; type: string; created_at: Date; account_id: string; data: unknown }>`
        select id, type, created_at, account_id, data from events where account_id = ${accountId}
          and (data->>'contact_id' = ${contactId} or data->'contact'->>'id' = ${contactId} or position(${contact.email.toLowerCase()} in lower(data::text)) > 0)
        order by seq`.execute(db),
      sql<{ import_id: string; row: number; code: string; detail: string }>`
        select e.import_id, e.row, e.code, e.detail from contact_import_errors e
        where e.account_id = ${accountId} and lower(e.email) = ${contact.email.toLowerCase()} order by e.import_id, e.row`.execute(db),
    ]);
    const at = (r: { occurred_at: Date }) => r.occurred_at.toISOString();
    return {
      contact,
      topic_optouts: topicOptouts,
      suppression: suppression ? suppressionJson(suppression) : null,
      messages: messages.map(messageJson),
      emails: emails.map(contactEmailJson),
      opens: opens.map((r) => ({ ...r, occurred_at: at(r) })),
      clicks: clicks.map((r) => ({ ...r, occurred_at: at(r) })),
      bounces: bounces.map((r) => ({ ...r, occurred_at: at(r) })),
      unsubscribes: unsubscribes.map((r) => ({ ...r, occurred_at: at(r) })),
      events: events.rows.map((r) => eventEnvelope(r) as unknown as Record<string, unknown>),
      import_errors: importErrors.rows,
    };
  }

  /**
   * Right to erasure, in one transaction: the contact is deleted; its messages, transactional
   * emails and tracking records stay for the counts without address, IP or user agent (see
   * `eraseEmailsOfPerson` for what goes of the emails); conversions and payments stay without
   * the contact; events, webhook deliveries of those events, failed import rows, exports and
   * stored idempotent answers that name the person are deleted; the address stays suppressed as
   * a hash only.
   */
  async erase(accountId: string, contactId: string): Promise<ContactErasure> {
    const { erasure, rewritten } = await this.transactions.run(async (db) => {
      const row = await db
        .selectFrom('contacts')
        .select('email')
        .where('account_id', '=', accountId)
        .where('id', '=', contactId)
        .forUpdate()
        .executeTakeFirst();
      if (!row) throw notFound('contact');
      const { email } = row;
      const { data } = this;
      const messages = await data.eraseMessages(db, accountId, contactId, email);
      const emails = await data.eraseEmails(db, accountId, contactId, email);
      const tracking = await data.eraseTracking(db, accountId, contactId, email);
      let anonymised = messages + emails + tracking;
      anonymised += await data.detachConversions(db, accountId, contactId);
      anonymised += await data.leaveJourneys(db, accountId, contactId);
      const events = await data.deleteEvents(db, accountId, contactId, email);
      let deleted = events.length + (await data.deleteDeliveries(db, accountId, events));
      deleted += await data.deleteImportErrors(db, accountId, email);
      deleted += await exportsStore.deleteHolding(db, accountId, email);
      deleted += await data.forgetIdempotentAnswers(db, accountId, email);
      const suppressionId = await data.keepSuppressedAsHash(db, accountId, email);
      await data.deleteContact(db, accountId, contactId);
      await append(db, accountId, [{ type: 'contact.deleted', data: { contact_id: contactId } }]);
      return {
        erasure: { contact_id: contactId, suppression_id: suppressionId, records_anonymised: anonymised, records_deleted: deleted },
        rewritten: { messages, emails, tracking },
      };
    });
    // A person with a long history rewrites many rows of these tables (their address leaves them).
    analyzeSoon(this.db, ['messages'], rewritten.messages);
    analyzeSoon(this.db, ['emails'], rewritten.emails);
    analyzeSoon(this.db, ['opens', 'clicks'], rewritten.tracking);
    return erasure;
  }
}
