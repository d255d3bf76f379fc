import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import type { Logger } from '../logger.ts';
import type { JourneyEmail } from '../emails/journey-mail.ts';

/** A contact as the steps read it. */
export interface JourneyContact {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  status: string;
  tags: string[];
  attributes: Record<string, unknown>;
  /** The contact's time zone, or its account's when it has none. */
  timezone: string | null;
}

export interface ContactChange {
  addTags: string[];
  removeTags: string[];
  setFields: Record<string, unknown>;
  addListIds: string[];
  removeListIds: string[];
}

/** What the journeys read and change of contacts, lists and topics: their owners' functions, handed in by the composition root. */
export interface JourneyContacts {
  read(db: Db, accountId: string, ids: readonly string[]): Promise<Map<string, JourneyContact>>;
  /** The account's contacts by id or address (lower-cased), for a manual enrolment. */
  find(db: Db, accountId: string, ids: readonly string[], emails: readonly string[]): Promise<{ id: string; email: string }[]>;
  /** Which of the contacts left the topic. */
  optedOut(db: Db, accountId: string, topicId: string, contactIds: readonly string[]): Promise<Set<string>>;
  /** Applies an `update_contact` step to contacts of one account, in the step's transaction. */
  change(tx: Db, accountId: string, contactIds: readonly string[], change: ContactChange): Promise<void>;
}

/** Renders a template's published `version` (with `subject` instead of its own, when given) for one contact. */
export type RenderJourneyEmail = (
  accountId: string,
  templateId: string,
  version: number,
  subject: string | undefined,
  data: Record<string, unknown>,
) => Promise<{ subject: string; html: string; text: string } | { error: string }>;

export interface JourneyDeps {
  transactions: Transactions;
  db: Db;
  log: Logger;
  contacts: JourneyContacts;
  render: RenderJourneyEmail;
  /** The latest published version of a template; null when it has none. */
  publishedVersion(db: Db, accountId: string, templateId: string): Promise<number | null>;
  queueEmails(tx: Db, items: readonly JourneyEmail[]): Promise<({ id: string } | { refused: string })[]>;
  /** Posts a `webhook` step's body, signed with the automation's secret (sealed), through the webhooks' guard. */
  postWebhook(url: string, body: { readonly id: string }, sealedSecret: string): Promise<{ success: boolean; error: string | null }>;
  /** Seconds before each retry of a failing `webhook` step; after the last, the journey goes on without it. */
  webhookRetries: readonly number[];
  /** The signed unsubscribe link of an automation email. */
  unsubscribeUrl(messageId: string): string;
  /** Wakes the email senders of this process once the queuing transaction has committed. */
  emailsQueued(): void;
}
