import type { components } from '../../generated/openapi.d.ts';
import { newId, randomToken } from '../db/ids.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { analyzeSoon } from '../db/statistics.ts';
import type { PendingEvent } from '../events/types.ts';
import { signal } from '../signals/outbox.ts';
import { append } from '../events/outbox.ts';
import { escapeHtml } from '../formats/html.ts';
import { decodeCursor, toPage, type Page } from '../contract/pagination.ts';
import { Problem, notFound, validationFailed } from '../contract/problem.ts';
import type { RateLimitStore } from '../rate-limits/limiter.ts';
import type { ContactService } from '../contacts/service.ts';
import { PENDING_SIGNUP_REASON } from '../contacts/rules.ts';
import type { MemberStatus } from './entities.ts';
import { thankYouPath } from './links.ts';
import { timeZoneName } from '../formats/timezone.ts';
import { listStore, type FoundContact, type ListRecord, type ListedMember, type MemberCounts, type Membership } from './store.ts';

type ListJson = components['schemas']['MailingList'];
type ListCreate = components['schemas']['MailingListCreate'];
type ListUpdate = components['schemas']['MailingListUpdate'];
type MembersAdd = components['schemas']['ListMembersAdd'];
type MembersRemove = components['schemas']['ListMembersRemove'];
type SubscribeRequest = components['schemas']['PublicSubscribeRequest'];

/** Contact ids and emails one bulk call may name, in all. */
export const MAX_MEMBERS_PER_CALL = 10_000;

/** A member still unconfirmed who subscribes again gets another confirmation after this long, not before. */
const RESEND_AFTER_MS = 10 * 60_000;
/** Confirmations public sign-ups may ask for per address and list in a day; later ones send nothing. */
export const MAX_CONFIRMATIONS_PER_DAY = 3;
/** A public sign-up not confirmed in this time is removed, with the contact it alone made. */
export const SIGNUP_EXPIRES_IN_SECONDS = 7 * 86_400;

export const listJson = (l: ListRecord, members: MemberCounts): ListJson => ({
  id: l.id,
  name: l.name,
  description: l.description,
  double_opt_in: l.double_opt_in,
  from_email: l.from_email,
  from_name: l.from_name,
  public_id: l.public_id,
  members,
  created_at: l.created_at.toISOString(),
  updated_at: l.updated_at.toISOString(),
});

const memberJson = (m: ListedMember) => ({
  contact_id: m.contact_id,
  email: m.email,
  status: m.status,
  confirmed_at: m.confirmed_at?.toISOString() ?? null,
  created_at: m.created_at.toISOString(),
  updated_at: m.updated_at.toISOString(),
});

const membershipJson = (m: Membership) => ({ list_id: m.list_id, name: m.name, status: m.status, created_at: m.created_at.toISOString() });

/** A double opt-in list sends its confirmations from somewhere. */
function checkSender(doubleOptIn: boolean, fromEmail: string | null | undefined): void {
  if (doubleOptIn && !fromEmail) throw validationFailed([{ pointer: '/from_email', detail: 'is required when double_opt_in is true' }]);
}

const subscribedEvent = (contact: FoundContact, listId: string): PendingEvent => ({
  type: 'contact.subscribed',
  data: { contact_id: contact.id, email: contact.email, previous_status: contact.status, list_id: listId },
});

/**
 * Adds contacts to lists of their account as subscribed members, in the caller's transaction,
 * with the events and signals of a join (an automation's `update_contact` step).
 */
export async function joinLists(tx: Db, accountId: string, contactIds: readonly string[], listIds: readonly string[]): Promise<void> {
  if (!listIds.length || !contactIds.length) return;
  const found = await listStore.findContacts(tx, accountId, contactIds, []);
  const byId = new Map(found.contacts.map((c) => [c.id, c]));
  for (const listId of listIds) {
    if (!(await listStore.get(tx, accountId, listId))) continue;
    const joined = (await listStore.addMembers(tx, { accountId, listId }, [...byId.keys()].sort(), 'subscribed', true)).filter(
      (w) => w.status === 'subscribed',
    );
    await append(
      tx,
      accountId,
      joined.map((w) => subscribedEvent(byId.get(w.contact_id)!, listId)),
    );
    await signal(
      tx,
      accountId,
      joined.map((w) => ({ kind: 'list_joined', contactId: w.contact_id, key: listId })),
    );
  }
}

/** Takes contacts off lists of their account, in the caller's transaction. */
export async function leaveLists(tx: Db, accountId: string, contactIds: readonly string[], listIds: readonly string[]): Promise<void> {
  for (const listId of listIds) if (await listStore.get(tx, accountId, listId)) await listStore.removeMembers(tx, accountId, listId, contactIds);
}

/** Names in a bulk request, at most `MAX_MEMBERS_PER_CALL` in all. */
function named(body: { contact_ids?: string[]; emails?: string[] }) {
  const ids = body.contact_ids ?? [];
  const emails = (body.emails ?? []).map((e) => e.trim());
  if (ids.length + emails.length > MAX_MEMBERS_PER_CALL) {
    throw validationFailed([{ pointer: '/contact_ids', detail: `contact_ids and emails may name at most ${MAX_MEMBERS_PER_CALL} contacts in all` }]);
  }
  return { ids, emails };
}

export interface PublicSubscribeSettings {
  publicUrl: string;
  /** Subscriptions a minute per client address. */
  perMinute: number;
}

export class ListService {
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly contacts: ContactService;
  private readonly rateLimits: RateLimitStore;
  private readonly settings: PublicSubscribeSettings;

  constructor(db: Db, transactions: Transactions, contacts: ContactService, rateLimits: RateLimitStore, settings: PublicSubscribeSettings) {
    this.db = db;
    this.transactions = transactions;
    this.contacts = contacts;
    this.rateLimits = rateLimits;
    this.settings = settings;
  }

  async create(accountId: string, input: ListCreate): Promise<ListJson> {
    const doubleOptIn = input.double_opt_in ?? false;
    checkSender(doubleOptIn, input.from_email);
    const row = await listStore.create(this.db, {
      id: newId('lst'),
      account_id: accountId,
      name: input.name,
      description: input.description ?? null,
      double_opt_in: doubleOptIn,
      from_email: input.from_email ?? null,
      from_name: input.from_name ?? null,
      public_id: randomToken(22),
    });
    return listJson(row, { unconfirmed: 0, subscribed: 0, unsubscribed: 0 });
  }

  async list(accountId: string, limit: number, cursor?: string): Promise<Page<ListJson>> {
    const rows = await listStore.page(this.db, accountId, decodeCursor(cursor), limit);
    const counts = await listStore.counts(
      this.db,
      accountId,
      rows.slice(0, limit).map((r) => r.id),
    );
    return toPage(
      rows,
      limit,
      (r) => ({ at: r.created_at, id: r.id }),
      (r) => listJson(r, counts.get(r.id)!),
    );
  }

  async exists(accountId: string, id: string): Promise<boolean> {
    return Boolean(await listStore.get(this.db, accountId, id));
  }

  async get(accountId: string, id: string): Promise<ListJson> {
    const row = await this.load(accountId, id);
    return listJson(row, (await listStore.counts(this.db, accountId, [id])).get(id)!);
  }

  private async load(accountId: string, id: string): Promise<ListRecord> {
    const row = await listStore.get(this.db, accountId, id);
    if (!row) throw notFound('list');
    return row;
  }

  async update(accountId: string, id: string, input: ListUpdate): Promise<ListJson> {
    const current = await this.load(accountId, id);
    checkSender(input.double_opt_in ?? current.double_opt_in, input.from_email === undefined ? current.from_email : input.from_email);
    const row = await listStore.update(this.db, accountId, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.double_opt_in !== undefined ? { double_opt_in: input.double_opt_in } : {}),
      ...(input.from_email !== undefined ? { from_email: input.from_email } : {}),
      ...(input.from_name !== undefined ? { from_name: input.from_name } : {}),
    });
    if (!row) throw notFound('list');
    return listJson(row, (await listStore.counts(this.db, accountId, [id])).get(id)!);
  }

  async delete(accountId: string, id: string): Promise<void> {
    const deleted = await this.transactions.run((trx) => listStore.delete(trx, accountId, id));
    if (!deleted) throw notFound('list');
    analyzeSoon(this.db, ['list_members'], deleted.members);
  }

  async members(accountId: string, id: string, status: MemberStatus | undefined, limit: number, cursor?: string) {
    await this.load(accountId, id);
    // The cursor's time is not used: members are in contact order alone.
    const rows = await listStore.membersPage(this.db, accountId, id, status, decodeCursor(cursor)?.id ?? null, limit);
    return toPage(rows, limit, (m) => ({ at: m.created_at, id: m.contact_id }), memberJson);
  }

  async contactLists(accountId: string, contactId: string, limit: number, cursor?: string) {
    await this.contacts.get(accountId, contactId);
    const rows = await listStore.memberships(this.db, accountId, contactId, decodeCursor(cursor), limit);
    return toPage(rows, limit, (m) => ({ at: m.created_at, id: m.list_id }), membershipJson);
  }

  /**
   * Adds contacts in one transaction: one statement for the memberships, one for the events of
   * the members it made `subscribed` (`contact.subscribed` with the list).
   */
  async addMembers(accountId: string, id: string, body: MembersAdd) {
    const { ids, emails } = named(body);
    const { written, result } = await this.transactions.run(async (trx) => {
      const list = await listStore.get(trx, accountId, id);
      if (!list || !(await listStore.lockKey(trx, accountId, id))) throw notFound('list');
      const found = await listStore.findContacts(trx, accountId, ids, emails);
      const status: MemberStatus = body.status ?? (list.double_opt_in ? 'unconfirmed' : 'subscribed');
      const written = await listStore.addMembers(
        trx,
        { accountId, listId: id },
        found.contacts.map((c) => c.id),
        status,
        body.status !== undefined,
      );
      const byId = new Map(found.contacts.map((c) => [c.id, c]));
      const joined = written.filter((w) => w.status === 'subscribed');
      await append(
        trx,
        accountId,
        joined.map((w) => subscribedEvent(byId.get(w.contact_id)!, id)),
      );
      await signal(
        trx,
        accountId,
        joined.map((w) => ({ kind: 'list_joined', contactId: w.contact_id, key: id })),
      );
      const added = written.filter((w) => w.added).length;
      return {
        written: written.length,
        result: {
          added,
          updated: written.length - added,
          already_members: found.contacts.length - written.length,
          not_found: { contact_ids: found.missingIds, emails: found.missingEmails },
        },
      };
    });
    analyzeSoon(this.db, ['list_members'], written);
    return result;
  }

  async removeMembers(accountId: string, id: string, body: MembersRemove) {
    const { ids, emails } = named(body);
    await this.load(accountId, id);
    const found = await listStore.findContacts(this.db, accountId, ids, emails);
    const removed = await listStore.removeMembers(
      this.db,
      accountId,
      id,
      found.contacts.map((c) => c.id),
    );
    analyzeSoon(this.db, ['list_members'], removed);
    return { removed, not_members: found.contacts.length - removed, not_found: { contact_ids: found.missingIds, emails: found.missingEmails } };
  }

  async form(accountId: string, id: string) {
    const list = await this.load(accountId, id);
    const action = `${this.settings.publicUrl.replace(/\/$/, '')}/api/v1/public/lists/${list.public_id}/subscribe`;
    const html = `<form method="post" action="${escapeHtml(action)}" accept-charset="utf-8">
  <p><strong>${escapeHtml(list.name)}</strong></p>
  <p><label>Email <input type="email" name="email" required maxlength="254" autocomplete="email"></label></p>
  <p><label>First name <input type="text" name="first_name" maxlength="200" autocomplete="given-name"></label></p>
  <div style="position:absolute;left:-10000px" aria-hidden="true"><label>Leave this empty <input type="text" name="website" tabindex="-1" autocomplete="off"></label></div>
  <p><button type="submit">Subscribe</button></p>
</form>
`;
    return { html, action };
  }

  /**
   * A subscription from a public form. The answer depends on the list alone: whether the address
   * is a contact or a member already (or the honeypot was filled) changes what is done, never
   * what is said.
   */
  async publicSubscribe(publicId: string, input: SubscribeRequest, clientAddress: string) {
    const { count, resetIn } = await this.rateLimits.hit(`public-subscribe:${clientAddress}`, 60);
    if (count > this.settings.perMinute) {
      throw new Problem(429, 'rate_limited', 'Too many subscriptions from this address; try again later.', { headers: { 'Retry-After': String(resetIn) } });
    }
    const list = await listStore.byPublicId(this.db, publicId);
    if (!list) throw notFound('list');
    const answer = {
      result: { accepted: true as const, confirmation_required: list.double_opt_in },
      thankYouUrl: `${this.settings.publicUrl.replace(/\/$/, '')}${thankYouPath(list.public_id)}`,
    };
    if (input.website) return answer;
    const contact = await this.findOrCreateContact(list.account_id, input, list.double_opt_in);
    await this.transactions.run(async (trx) => {
      // Deleted since it was read: the answer stays the same.
      if (!(await listStore.lockKey(trx, list.account_id, list.id))) return;
      const member = await listStore.lockMember(trx, list.account_id, list.id, contact.id);
      if (!list.double_opt_in) {
        if (!member) await listStore.addMembers(trx, { accountId: list.account_id, listId: list.id }, [contact.id], 'subscribed', false);
        else if (member.status === 'unsubscribed') await listStore.setMemberStatus(trx, list.account_id, list.id, contact.id, 'subscribed');
        else return;
        await append(trx, list.account_id, [subscribedEvent(contact, list.id)]);
        await signal(trx, list.account_id, [{ kind: 'list_joined', contactId: contact.id, key: list.id }]);
        return;
      }
      if (member && !confirmationMayBeAsked(member)) return;
      if (!member) {
        await listStore.addMembers(trx, { accountId: list.account_id, listId: list.id }, [contact.id], 'unconfirmed', false);
      } else if (member.status === 'unsubscribed' || (member.status === 'unconfirmed' && !member.confirmation_due_at)) {
        await listStore.setMemberStatus(trx, list.account_id, list.id, contact.id, 'unconfirmed');
      } else {
        return;
      }
      await listStore.signupRequested(trx, list.account_id, list.id, contact.id, SIGNUP_EXPIRES_IN_SECONDS);
    });
    return answer;
  }

  /**
   * The account's contact with this address, made (with `contact.created`) when there is none.
   * Made for a double opt-in list, it waits as a pending sign-up until its link is followed (see
   * `ContactService.createPendingSignup`).
   */
  private async findOrCreateContact(accountId: string, input: SubscribeRequest, pending: boolean): Promise<FoundContact> {
    // A form filling the zone from the browser must not fail on one the server does not know.
    const timezone = input.timezone ? timeZoneName(input.timezone) : null;
    const fields = { email: input.email, first_name: input.first_name || null, last_name: input.last_name || null, timezone };
    try {
      const created = pending ? await this.contacts.createPendingSignup(accountId, fields) : await this.contacts.create(accountId, fields);
      return { id: created.id, email: created.email, status: created.status };
    } catch (error) {
      if (!(error instanceof Problem) || error.code !== 'contact_exists') throw error;
      const existing = await this.contacts.get(accountId, error.extra.existing_id as string);
      return { id: existing.id, email: existing.email, status: existing.status };
    }
  }
}

/**
 * Whether a sign-up may have another confirmation mailed to a member: not within
 * `RESEND_AFTER_MS` of the last while unconfirmed, and not past `MAX_CONFIRMATIONS_PER_DAY`.
 */
function confirmationMayBeAsked(member: NonNullable<Awaited<ReturnType<typeof listStore.lockMember>>>): boolean {
  const countedToday = member.confirmations_requested_since !== null && Date.now() - member.confirmations_requested_since.getTime() < 86_400_000;
  if (countedToday && member.confirmations_requested >= MAX_CONFIRMATIONS_PER_DAY) return false;
  if (member.status !== 'unconfirmed') return true;
  return Date.now() - (member.confirmation_sent_at?.getTime() ?? 0) > RESEND_AFTER_MS;
}

/**
 * After a member confirms: a contact that a double opt-in form made, still waiting, becomes
 * subscribed through the contacts' own service (`contact.updated` and `contact.subscribed`).
 * Idempotent, so following the link again finishes what a failure left.
 */
export async function subscribePendingContact(contacts: ContactService, accountId: string, contactId: string): Promise<void> {
  const contact = await contacts.get(accountId, contactId);
  if (contact.status !== 'unsubscribed' || contact.status_reason !== PENDING_SIGNUP_REASON) return;
  await contacts.update(accountId, contactId, { status: 'subscribed', status_reason: 'double opt-in confirmed' });
}
