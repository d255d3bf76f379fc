import type { components } from '../../generated/openapi.d.ts';
import { newId } from '../db/ids.ts';
import { normaliseEmail } from '../email.ts';
import type { EntityManager } from '../db/orm.ts';
import type { PendingEvent } from '../events/types.ts';
import { signal } from '../signals/outbox.ts';
import { append } from '../events/outbox.ts';
import { conflict, notFound, validationFailed } from '../contract/problem.ts';
import { pageOf } from '../contract/pagination.ts';
import type { ContactRow } from './entities.ts';
import { MAX_ATTRIBUTES_BYTES, PENDING_SIGNUP_REASON, attributesTooLarge, isSuppressed, type ContactStatus } from './rules.ts';
import { contactJson, type ContactJson, type ShownContact } from './json.ts';
import { deleteContact, insertContact, takeOverPendingSignup, type NewContact } from './store.ts';
import { suppressedEvent, type SuppressedStatus } from './suppression.ts';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Transactions } from '../db/transactions.ts';
import type { ContactFilters, ContactRepository } from './repository.ts';
import { countContacts } from './count.ts';
import { countStatusChange, lockedStatus } from './status-counts.ts';
import { decodeSortCursor, encodeSortCursor, positionOf, type ContactSort } from './sort.ts';
import { sqlOf, type Db } from '../db/kysely.ts';
import { attributeErrors } from '../fields/rules.ts';
import { fieldSchema } from '../fields/definitions.ts';
import { timeZoneName } from '../formats/timezone.ts';

type ContactCreate = components['schemas']['ContactCreate'];
type ContactReplace = components['schemas']['ContactReplace'];
type ContactUpdate = components['schemas']['ContactUpdate'];

function checkAttributes(attributes: Record<string, unknown>): void {
  if (attributesTooLarge(attributes)) {
    throw validationFailed([{ pointer: '/attributes', detail: `must be at most ${MAX_ATTRIBUTES_BYTES} bytes as JSON` }]);
  }
}

/** A time zone as given (null clears it), or a 400 at `/timezone` for a name that is no IANA zone. */
function checkedTimeZone(name: string | null): string | null {
  if (name === null) return null;
  const zone = timeZoneName(name);
  if (zone === null) throw validationFailed([{ pointer: '/timezone', detail: 'is not an IANA time zone name such as Europe/Paris' }]);
  return zone;
}

const uniqueTags = (tags: string[]) => [...new Set(tags.map((t) => t.trim()).filter(Boolean))];

/**
 * A status change, as a rule: suppressing is always allowed; bringing a suppressed contact back
 * to `subscribed` is explicit and recorded, so it takes a `status_reason`.
 */
function checkStatusChange(from: ContactStatus, to: ContactStatus, reason: string | null | undefined): void {
  if (from !== to && isSuppressed(from) && to === 'subscribed' && !reason?.trim()) {
    throw validationFailed(
      [{ pointer: '/status_reason', detail: `is required to resubscribe a contact that is ${from}` }],
      'Resubscribing a suppressed contact is an explicit action: say why in status_reason.',
    );
  }
}

/**
 * The suppression list, as a person's status change of a contact keeps it: the suppressions'
 * store, handed in by the composition root. Each call runs in the contact's transaction on `db`.
 */
export interface SuppressionList {
  add(
    db: Db,
    accountId: string,
    entries: readonly { email: string; reason: SuppressedStatus; source: 'contact_status'; detail: string | null }[],
  ): Promise<unknown>;
  removeEmail(db: Db, accountId: string, email: string): Promise<void>;
}

/**
 * A person's status change moves the address on the suppression list with it, in the contact's
 * transaction: suppressing puts it there (source `contact_status`), resubscribing takes it off.
 */
async function keepListInStep(
  list: SuppressionList,
  tx: Db,
  accountId: string,
  previousEmail: string,
  contact: Pick<ContactRow, 'email' | 'status' | 'statusReason'>,
): Promise<void> {
  if (contact.status === 'subscribed') {
    await list.removeEmail(tx, accountId, previousEmail);
    if (previousEmail.toLowerCase() !== contact.email.toLowerCase()) await list.removeEmail(tx, accountId, contact.email);
  } else {
    await list.add(tx, accountId, [{ email: contact.email, reason: contact.status, source: 'contact_status', detail: contact.statusReason ?? null }]);
  }
}

const conflictWith = (email: string, existingId: string) =>
  conflict('contact_exists', `A contact with the email ${email} exists.`, { existing_id: existingId });

/**
 * Clears, in the deleting transaction, what other features keep pointing at contacts being
 * deleted: their messages and emails stay, tied to no contact.
 */
export type ReleaseContacts = (db: Db, accountId: string, contactIds: readonly string[]) => Promise<void>;

export class ContactService {
  private readonly repo: ContactRepository;
  private readonly em: EntityManager;

  /** For the one-statement create (`insertContact`) and its transaction when created suppressed. */
  private readonly transactions: Transactions;

  private readonly suppressionList: SuppressionList;
  private readonly releaseContacts: ReleaseContacts;

  constructor(repo: ContactRepository, em: EntityManager, transactions: Transactions, suppressionList: SuppressionList, releaseContacts: ReleaseContacts) {
    this.repo = repo;
    this.em = em;
    this.transactions = transactions;
    this.suppressionList = suppressionList;
    this.releaseContacts = releaseContacts;
  }

  /** Values under a custom field's key must be of its type (read only when there are attributes). */
  private async checkFields(accountId: string, attributes: Record<string, unknown>): Promise<void> {
    if (!Object.keys(attributes).length) return;
    const errors = attributeErrors(await fieldSchema(sqlOf(this.em), accountId), attributes);
    if (errors.length) throw validationFailed(errors, 'A custom field has a value of another type.');
  }

  /**
   * A new contact and its `contact.created` event, written in one statement; one created
   * suppressed also goes on the suppression list, in the same transaction. An address that only
   * an unconfirmed sign-up made a contact is new to the account: that contact is taken over.
   */
  create(accountId: string, input: ContactCreate): Promise<ContactJson> {
    return this.insert(accountId, input, false);
  }

  /**
   * The contact a public double opt-in form makes for a new address: unsubscribed until its link
   * is followed, so that no campaign reaches an address anyone could type, and kept off the
   * suppression list, so that it keeps no one from subscribing or from the account's imports.
   */
  createPendingSignup(accountId: string, input: Pick<ContactCreate, 'email' | 'first_name' | 'last_name' | 'timezone'>): Promise<ContactJson> {
    return this.insert(accountId, { ...input, status: 'unsubscribed', status_reason: PENDING_SIGNUP_REASON }, true);
  }

  private async insert(accountId: string, input: ContactCreate, pendingSignup: boolean): Promise<ContactJson> {
    checkAttributes(input.attributes ?? {});
    await this.checkFields(accountId, input.attributes ?? {});
    const status = input.status ?? 'subscribed';
    const now = new Date();
    const contact: ShownContact = {
      id: newId('ct'),
      email: normaliseEmail(input.email),
      firstName: input.first_name ?? null,
      lastName: input.last_name ?? null,
      attributes: input.attributes ?? {},
      tags: uniqueTags(input.tags ?? []),
      timezone: checkedTimeZone(input.timezone ?? null),
      status,
      statusReason: input.status_reason ?? null,
      statusChangedAt: isSuppressed(status) ? now : null,
      createdAt: now,
      updatedAt: now,
    };
    const json = contactJson(contact);
    const row: NewContact = {
      id: contact.id,
      account_id: accountId,
      email: contact.email,
      first_name: contact.firstName,
      last_name: contact.lastName,
      attributes: contact.attributes,
      tags: contact.tags,
      timezone: contact.timezone,
      status,
      status_reason: contact.statusReason,
      status_changed_at: contact.statusChangedAt,
      created_at: now,
      updated_at: now,
    };
    const event = { type: 'contact.created', data: { contact: json } } as const;
    const created =
      isSuppressed(status) && !pendingSignup
        ? await this.transactions.run(async (tx) => {
            const inserted = await insertContact(tx, row, event, !pendingSignup);
            if (inserted) await keepListInStep(this.suppressionList, tx, accountId, contact.email, contact);
            return inserted;
          })
        : await insertContact(this.transactions, row, event, !pendingSignup);
    if (created) return json;
    const takenOver = pendingSignup ? null : await this.takeOverPendingSignup(accountId, row, contact);
    if (!takenOver) throw await this.exists(accountId, contact.email);
    return takenOver;
  }

  /** The account's new contact written over one an unconfirmed sign-up made, with `contact.updated`. */
  private async takeOverPendingSignup(accountId: string, row: NewContact, contact: ShownContact): Promise<ContactJson | null> {
    return this.transactions.run(async (db) => {
      const kept = await takeOverPendingSignup(db, row);
      if (!kept) return null;
      const json = contactJson({ ...contact, id: kept.id, createdAt: kept.created_at });
      // Every field is the account's now, as if the contact were new.
      const changed = ['email', 'first_name', 'last_name', 'attributes', 'tags', 'timezone', 'status', 'status_reason', 'status_changed_at', 'updated_at'];
      await append(db, accountId, [{ type: 'contact.updated', data: { contact: json, changed } }]);
      if (isSuppressed(contact.status)) await keepListInStep(this.suppressionList, db, accountId, contact.email, contact);
      return json;
    });
  }

  async list(accountId: string, filters: ContactFilters, sort: ContactSort, limit: number, cursor?: string) {
    const rows = await this.repo.page(accountId, filters, sort, decodeSortCursor(sort, cursor), limit);
    return pageOf(rows, limit, (last) => encodeSortCursor(positionOf(sort, last)), contactJson);
  }

  /** `GET /contacts/count`: see `countContacts`. */
  count(accountId: string, filters: ContactFilters): Promise<{ count: number; exact: boolean }> {
    return countContacts(sqlOf(this.em), this.transactions, accountId, filters);
  }

  async get(accountId: string, id: string): Promise<ContactJson> {
    return contactJson(await this.load(accountId, id));
  }

  private async load(accountId: string, id: string): Promise<ContactRow> {
    const contact = await this.repo.byId(accountId, id);
    if (!contact) throw notFound('contact');
    return contact;
  }

  /** PUT: the whole record; fields left out are cleared, except `status`, which stays. */
  replace(accountId: string, id: string, input: ContactReplace): Promise<ContactJson> {
    return this.change(
      accountId,
      id,
      {
        email: input.email,
        first_name: input.first_name ?? null,
        last_name: input.last_name ?? null,
        attributes: input.attributes ?? {},
        tags: input.tags ?? [],
        timezone: input.timezone ?? null,
        ...(input.status !== undefined ? { status: input.status, status_reason: input.status_reason } : {}),
      },
      false,
    );
  }

  /** PATCH: only the fields given; attributes merge into the stored ones, a null value removes a key. */
  update(accountId: string, id: string, input: ContactUpdate): Promise<ContactJson> {
    return this.change(accountId, id, input, true);
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.transactions.run(async (db) => {
      if ((await deleteContact(db, accountId, id)) === null) throw notFound('contact');
      await this.releaseContacts(db, accountId, [id]);
      await append(db, accountId, [{ type: 'contact.deleted', data: { contact_id: id } }]);
    });
  }

  /**
   * Writes a change to a loaded contact entity with its events in `em.transactional`, not
   * `Transactions`: the change is flushed by the ORM's unit of work, which cannot adopt our connection.
   */
  private async change(accountId: string, id: string, input: ContactUpdate, mergeAttributes: boolean): Promise<ContactJson> {
    const contact = await this.load(accountId, id);
    const before = contactJson(contact);
    const previousStatus = contact.status;
    if (input.email !== undefined) contact.email = normaliseEmail(input.email);
    if (input.first_name !== undefined) contact.firstName = input.first_name;
    if (input.last_name !== undefined) contact.lastName = input.last_name;
    if (input.tags !== undefined) contact.tags = uniqueTags(input.tags);
    if (input.timezone !== undefined) contact.timezone = checkedTimeZone(input.timezone);
    if (input.attributes !== undefined) {
      const merged = mergeAttributes ? { ...contact.attributes, ...input.attributes } : { ...input.attributes };
      for (const [key, value] of Object.entries(merged)) if (value === null && mergeAttributes) delete merged[key];
      checkAttributes(merged);
      await this.checkFields(accountId, input.attributes);
      contact.attributes = merged;
    }
    if (input.status !== undefined && input.status !== previousStatus) {
      checkStatusChange(previousStatus, input.status, input.status_reason);
      contact.status = input.status;
      contact.statusReason = input.status_reason ?? null;
      contact.statusChangedAt = new Date();
    } else if (input.status_reason !== undefined) {
      contact.statusReason = input.status_reason;
    }

    const after = contactJson(contact);
    const changed = (Object.keys(after) as (keyof ContactJson)[]).filter((key) => JSON.stringify(after[key]) !== JSON.stringify(before[key]));
    if (!changed.length) return after;
    contact.updatedAt = new Date();
    const updated = contactJson(contact);
    const events: PendingEvent[] = [{ type: 'contact.updated', data: { contact: updated, changed } }];
    if (contact.status !== previousStatus) {
      events.push(
        contact.status === 'subscribed'
          ? { type: 'contact.subscribed', data: { contact_id: contact.id, email: contact.email, previous_status: previousStatus } }
          : suppressedEvent(contact.id, contact.email, contact.status, updated.status_reason ?? null),
      );
    }
    try {
      await this.em.transactional(async (tx) => {
        const stored = contact.status !== previousStatus ? await lockedStatus(sqlOf(tx), accountId, contact.id) : null;
        await append(tx, accountId, events);
        await tx.flush();
        if (stored !== null) await countStatusChange(sqlOf(tx), accountId, stored, contact.status);
        const added = contact.tags.filter((tag) => !before.tags.includes(tag));
        await signal(
          sqlOf(tx),
          accountId,
          added.map((tag) => ({ kind: 'tag_added', contactId: contact.id, key: tag })),
        );
        if (contact.status !== previousStatus) await keepListInStep(this.suppressionList, sqlOf(tx), accountId, before.email, contact);
      });
    } catch (error) {
      // Nothing was written: the request's unit of work must not flush the change later.
      this.em.clear();
      if (error instanceof UniqueConstraintViolationException) throw await this.exists(accountId, contact.email);
      throw error;
    }
    return contactJson(contact);
  }

  private async exists(accountId: string, email: string): Promise<Error> {
    return conflictWith(email, (await this.repo.idByEmail(accountId, email)) ?? 'unknown');
  }
}
