import { groupByAccount, idsByAccount } from '../db/by-account.ts';
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Database, Db } from '../db/kysely.ts';
import { keysetPage } from '../db/keyset.ts';
import type { Transactions } from '../db/transactions.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { EmailStatus, RecipientKind } from './entities.ts';
import type { TransactionalContent } from '../rendering/transactional-message.ts';

/**
 * The transactional emails' store: the only code that writes `email_contents` and `emails`.
 * Campaign messages live in `messages`; the two never share a statement, so neither path's
 * claims or records slow the other's.
 */

type EmailColumns = Selectable<Database['emails']>;
export type ContentColumns = Selectable<Database['email_contents']>;

/** A claimed message: what rendering and recording need of it. */
export type ClaimedEmail = Pick<
  EmailColumns,
  | 'id'
  | 'account_id'
  | 'content_id'
  | 'contact_id'
  | 'email'
  | 'attempts'
  | 'tags'
  | 'metadata'
  | 'track_opens'
  | 'track_clicks'
  | 'automation_id'
  | 'automation_step_id'
  | 'enrollment_id'
>;

/** A message as the API shows it: its row with its content's sender and subject. */
export type ListedEmail = EmailColumns & Pick<ContentColumns, 'from_email' | 'from_name' | 'subject'>;

/** What a message's engagement and feedback need of it. */
export type EmailRef = Pick<
  EmailColumns,
  | 'id'
  | 'account_id'
  | 'contact_id'
  | 'email'
  | 'tags'
  | 'metadata'
  | 'sent_at'
  | 'opened_at'
  | 'human_opened_at'
  | 'clicked_at'
  | 'clicked_links'
  | 'bounced_at'
  | 'complained_at'
  | 'unsubscribed_at'
  | 'automation_id'
  | 'automation_step_id'
  | 'enrollment_id'
>;

export interface NewEmail {
  id: string;
  email: string;
  kind: RecipientKind;
}

/** A request's content as it is stored: what a sending thread is handed, and whose it is. */
export interface NewContent extends TransactionalContent {
  accountId: string;
}

/** One request as it is written: its content, its recipients, what they share. */
export interface NewRequest {
  content: NewContent;
  recipients: NewEmail[];
  shared: SharedFields;
}

/** What every recipient of a request shares. */
export interface SharedFields {
  tags: string[];
  metadata: Record<string, string>;
  trackOpens: boolean;
  trackClicks: boolean;
  scheduledAt: Date | null;
  /** On an automation's copy: where in which journey it was sent from. */
  journey?: { automationId: string; stepId: string; enrollmentId: string };
}

export interface EmailOutcome {
  id: string;
  accountId: string;
  status: Exclude<EmailStatus, 'scheduled' | 'sending'>;
  reason: string | null;
  /** For a deferred message, its retry; for one put back, when it may be claimed again. */
  nextAttemptAt: Date | null;
  sent: boolean;
}

export interface EmailFilters {
  status?: EmailStatus;
  to?: string;
  tag?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

const REF_COLUMNS = [
  'id',
  'account_id',
  'contact_id',
  'email',
  'tags',
  'metadata',
  'sent_at',
  'opened_at',
  'human_opened_at',
  'clicked_at',
  'clicked_links',
  'bounced_at',
  'complained_at',
  'unsubscribed_at',
  'automation_id',
  'automation_step_id',
  'enrollment_id',
] as const;

/** `emails.insertMany` for one account's requests, in one statement. */
async function insertAccountRequests(on: { transactions: Transactions } | { db: Db }, accountId: string, items: NewRequest[]): Promise<Map<string, Refusal>> {
  const contents = items.map((i) => i.content);
  const rows = items.flatMap(({ content, recipients, shared }) => recipients.map((r) => ({ r, content, shared })));
  const ofContents = <T>(of: (c: NewContent) => T) => contents.map(of);
  const ofRows = <T>(of: (row: (typeof rows)[number]) => T) => rows.map(of);
  const query = sql<{ id: string; refused: Refusal | null }>`
      with x as (
        select * from unnest(${ofRows((x) => x.r.id)}::text[], ${ofRows((x) => x.content.accountId)}::text[], ${ofRows((x) => x.content.id)}::text[],
          ${ofRows((x) => x.r.email)}::text[], ${ofRows((x) => x.r.kind)}::text[], ${ofRows((x) => JSON.stringify(x.shared.tags))}::jsonb[],
          ${ofRows((x) => JSON.stringify(x.shared.metadata))}::jsonb[], ${ofRows((x) => x.shared.trackOpens)}::boolean[],
          ${ofRows((x) => x.shared.trackClicks)}::boolean[], ${ofRows((x) => x.shared.scheduledAt)}::timestamptz[],
          ${ofRows((x) => x.shared.journey?.automationId ?? null)}::text[], ${ofRows((x) => x.shared.journey?.stepId ?? null)}::text[],
          ${ofRows((x) => x.shared.journey?.enrollmentId ?? null)}::text[])
          as x(id, account_id, content_id, email, kind, tags, metadata, track_opens, track_clicks, scheduled_at, automation_id, automation_step_id, enrollment_id)
      ),
      standing as (${standingOf(sql`x`, sql`${accountId}::text`)}),
      contents as (
        insert into email_contents (id, account_id, from_email, from_name, reply_to, to_header, cc_header, subject, html, text, headers, attachments, created_at)
        select *, now() from unnest(${ofContents((c) => c.id)}::text[], ${ofContents((c) => c.accountId)}::text[], ${ofContents((c) => c.fromEmail)}::text[],
          ${ofContents((c) => c.fromName)}::text[], ${ofContents((c) => c.replyTo)}::text[], ${ofContents((c) => c.toHeader)}::text[],
          ${ofContents((c) => c.ccHeader)}::text[], ${ofContents((c) => c.subject)}::text[], ${ofContents((c) => c.html)}::text[],
          ${ofContents((c) => c.text)}::text[], ${ofContents((c) => JSON.stringify(c.headers))}::jsonb[], ${ofContents((c) => JSON.stringify(c.attachments))}::jsonb[])
        returning id
      ),
      inserted as (
        insert into emails (id, account_id, content_id, contact_id, email, kind, status, tags, metadata, track_opens, track_clicks, scheduled_at, next_attempt_at, created_at,
          automation_id, automation_step_id, enrollment_id)
        select s.id, s.account_id, s.content_id, s.contact_id, s.email, s.kind, case when s.scheduled_at is null then 'queued' else 'scheduled' end,
          array(select jsonb_array_elements_text(s.tags)), s.metadata, s.track_opens, s.track_clicks, s.scheduled_at, coalesce(s.scheduled_at, now()), now(),
          s.automation_id, s.automation_step_id, s.enrollment_id
        from standing s where s.refused is null
        returning id
      )
      select s.id, s.refused from standing s where s.refused is not null`;
  const refused = 'transactions' in on ? await on.transactions.prepared(query) : (await query.execute(on.db)).rows;
  return new Map(refused.map((r) => [r.id, r.refused!]));
}

export const emails = {
  /**
   * Requests' contents, and one row per recipient the stream lets through, queued (or scheduled)
   * at once; answers the refused recipients' reasons by id (see `standingOf`). One statement per
   * account: the standing read and both inserts are CTEs, so any number of requests of an
   * account cost one round trip and no explicit transaction (several accounts' share one). Every content is stored, even one whose
   * recipients were all refused. Rows go as columns (unnest): the statement's text is the same
   * whatever their number, and through `Transactions` it runs prepared, planned once per connection (in a
   * transaction, `db`, it is not).
   */
  async insertMany(on: { transactions: Transactions } | { db: Db }, items: NewRequest[]): Promise<Map<string, Refusal>> {
    if (!items.length) return new Map();
    // One statement per account: under Citus each then runs against its account's shard alone.
    const byAccount = groupByAccount(items, (item) => item.content.accountId);
    if (byAccount.length === 1) return insertAccountRequests(on, ...byAccount[0]);
    // Several accounts' statements in one transaction: a batch is written whole or not at all.
    const insertAll = async (db: Db) => {
      const refused = new Map<string, Refusal>();
      for (const [accountId, ofAccount] of byAccount) for (const [id, why] of await insertAccountRequests({ db }, accountId, ofAccount)) refused.set(id, why);
      return refused;
    };
    return 'transactions' in on ? on.transactions.run(insertAll) : insertAll(on.db);
  },

  /**
   * Claims up to `size` messages that are due (queued, scheduled for now, deferred to now, or
   * held past their lease by a process that died), oldest due first. SKIP LOCKED: no message
   * goes to two senders. The claim moves `next_attempt_at` to the lease's end. It locks one
   * account's messages at a time (under Citus, one shard's): the accounts of the oldest due
   * messages, in turn.
   */
  async claim(transactions: Transactions, size: number, leaseSeconds: number): Promise<ClaimedEmail[]> {
    const due = sql<boolean>`status in ('scheduled', 'queued', 'deferred', 'sending') and next_attempt_at <= now()`;
    const oldest = await transactions.prepared(sql<{ account_id: string }>`select account_id from emails where ${due} order by next_attempt_at limit ${size}`);
    const claimed: ClaimedEmail[] = [];
    for (const accountId of new Set(oldest.map((row) => row.account_id))) {
      if (claimed.length >= size) break;
      claimed.push(
        ...(await transactions.prepared(
          sql<ClaimedEmail>`
          update emails e set status = 'sending', attempts = e.attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
          where e.account_id = ${accountId} and e.id = any(array(
            select id from emails where account_id = ${accountId} and ${due}
            order by next_attempt_at limit ${size - claimed.length}
            for update skip locked
          ))
          returning e.id, e.account_id, e.content_id, e.contact_id, e.email, e.attempts, e.tags, e.metadata, e.track_opens, e.track_clicks,
            e.automation_id, e.automation_step_id, e.enrollment_id`,
        )),
      );
    }
    return claimed;
  },

  /** The contents of a batch's copies, which may be of several accounts: one read per account, on its shard under Citus. */
  async contents(db: Db, copies: readonly { account_id: string; content_id: string }[]): Promise<ContentColumns[]> {
    const rows: ContentColumns[] = [];
    for (const [accountId, ofAccount] of groupByAccount(copies, (c) => c.account_id)) {
      const ids = [...new Set(ofAccount.map((c) => c.content_id))];
      rows.push(...(await db.selectFrom('email_contents').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute()));
    }
    return rows;
  },

  /**
   * Writes a batch's outcomes in one statement. A message put back (`queued`) gives back its
   * attempt. Only copies still `sending` with an address are written: one erased while it was
   * out (see `eraseEmailsOfPerson`) stays cancelled and anonymous. Answers the ids written, the
   * only copies whose events, bounces and suppressions may be recorded.
   */
  async recordOutcomes(tx: Db, batch: EmailOutcome[]): Promise<Set<string>> {
    if (!batch.length) return new Set();
    // The clock as a row: Citus refuses now() inside a CASE of a statement that changes rows of several shards.
    const { rows } = await sql<{ id: string }>`
      with clock as (select now() as now)
      update emails e set status = u.status, reason = u.reason, next_attempt_at = u.next_at,
        sent_at = case when u.sent then clock.now else e.sent_at end,
        bounced_at = case when u.status = 'bounced' then clock.now else e.bounced_at end,
        finished_at = case when u.status in ('delivered', 'bounced', 'failed') then clock.now else e.finished_at end,
        attempts = case when u.status = 'queued' then e.attempts - 1 else e.attempts end
      from clock, unnest(${batch.map((o) => o.accountId)}::text[], ${batch.map((o) => o.id)}::text[], ${batch.map((o) => o.status)}::text[],
                  ${batch.map((o) => o.reason)}::text[], ${batch.map((o) => o.nextAttemptAt)}::timestamptz[], ${batch.map((o) => o.sent)}::boolean[])
        as u(account_id, id, status, reason, next_at, sent)
      where e.account_id = u.account_id and e.id = u.id and e.status = 'sending' and e.email <> ''
      returning e.id`.execute(tx);
    return new Set(rows.map((r) => r.id));
  },

  /** Cancels a scheduled message; null when it is not scheduled (any more) or not the account's. */
  async cancelScheduled(db: Db, accountId: string, id: string): Promise<{ id: string } | null> {
    const row = await db
      .updateTable('emails')
      .set({ status: 'cancelled', reason: 'cancelled', next_attempt_at: null, finished_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', '=', 'scheduled')
      .returning('id')
      .executeTakeFirst();
    return row ?? null;
  },

  async byId(db: Db, accountId: string, id: string): Promise<ListedEmail | null> {
    const row = await db
      .selectFrom('emails as e')
      .innerJoin('email_contents as c', (join) => join.onRef('c.account_id', '=', 'e.account_id').onRef('c.id', '=', 'e.content_id'))
      .selectAll('e')
      .select(['c.from_email', 'c.from_name', 'c.subject'])
      .where('e.id', '=', id)
      .where('e.account_id', '=', accountId)
      .executeTakeFirst();
    return row ?? null;
  },

  /** One page, newest first, in `(created_at, id)` order. */
  page(db: Db, accountId: string, filters: EmailFilters, after: Cursor | null, limit: number): Promise<ListedEmail[]> {
    let query = db
      .selectFrom('emails as e')
      .innerJoin('email_contents as c', (join) => join.onRef('c.account_id', '=', 'e.account_id').onRef('c.id', '=', 'e.content_id'))
      .selectAll('e')
      .select(['c.from_email', 'c.from_name', 'c.subject'])
      .where('e.account_id', '=', accountId);
    if (filters.status) query = query.where('e.status', '=', filters.status);
    if (filters.to) query = query.where(sql<boolean>`lower(e.email) = lower(${filters.to})`);
    if (filters.tag) query = query.where(sql<boolean>`e.tags @> array[${filters.tag}]::text[]`);
    if (filters.createdAfter) query = query.where('e.created_at', '>=', filters.createdAfter);
    if (filters.createdBefore) query = query.where('e.created_at', '<', filters.createdBefore);
    return keysetPage(query, { at: 'e.created_at', id: 'e.id', direction: 'desc' }, after, limit).execute();
  },

  /** Copies due to be sent now, by stream (an automation's step's or a transactional request's). */
  async dueByStream(db: Db): Promise<{ transactional: number; automation: number }> {
    const { rows } = await sql<{ transactional: number; automation: number }>`
      select (count(*) filter (where automation_id is null))::int as transactional, (count(*) filter (where automation_id is not null))::int as automation
      from emails where status in ('scheduled', 'queued', 'deferred') and next_attempt_at <= now()`.execute(db);
    return rows[0];
  },

  /** The messages' state for a batch of opens and clicks or a report, locked in id order. */
  async refs(db: Db, ids: string[]): Promise<EmailRef[]> {
    if (!ids.length) return [];
    return db
      .selectFrom('emails')
      .select([...REF_COLUMNS])
      .where('id', 'in', ids)
      .execute();
  },

  /** The messages' state, locked in (account, id) order, one account at a time (see `idsByAccount`). */
  async lockRefs(db: Db, ids: string[]): Promise<EmailRef[]> {
    const refs: EmailRef[] = [];
    for (const [accountId, ofAccount] of await idsByAccount(db, 'emails', ids)) {
      refs.push(
        ...(await db
          .selectFrom('emails')
          .select([...REF_COLUMNS])
          .where('account_id', '=', accountId)
          .where('id', 'in', ofAccount)
          .orderBy('id')
          .forUpdate()
          .execute()),
      );
    }
    return refs;
  },

  /** Sets the firsts a batch of opens and clicks found. */
  async markEngaged(
    db: Db,
    list: { id: string; accountId: string; openedAt: Date | null; humanOpenedAt: Date | null; clickedAt: Date | null; clickedLinks: number[] }[],
  ): Promise<void> {
    for (const [accountId, ofAccount] of groupByAccount(list, (m) => m.accountId)) {
      await sql`update emails e set opened_at = coalesce(e.opened_at, u.opened_at), human_opened_at = coalesce(e.human_opened_at, u.human_opened_at),
          clicked_at = coalesce(e.clicked_at, u.clicked_at), clicked_links = array(select jsonb_array_elements_text(u.links)::int)
        from unnest(${ofAccount.map((m) => m.id)}::text[], ${ofAccount.map((m) => m.openedAt)}::timestamptz[], ${ofAccount.map((m) => m.humanOpenedAt)}::timestamptz[],
          ${ofAccount.map((m) => m.clickedAt)}::timestamptz[], ${ofAccount.map((m) => JSON.stringify(m.clickedLinks))}::jsonb[])
          as u(id, opened_at, human_opened_at, clicked_at, links)
        where e.account_id = ${accountId} and e.id = u.id`.execute(db);
    }
  },

  async markBounced(db: Db, accountId: string, id: string, reason: string | null, at: Date): Promise<void> {
    await db
      .updateTable('emails')
      .set({ status: 'bounced', reason, bounced_at: at, finished_at: sql<Date>`coalesce(finished_at, ${at})` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  },

  /** True for the copy's first unsubscribe. */
  async markUnsubscribed(db: Db, accountId: string, id: string, at: Date): Promise<boolean> {
    const row = await db
      .updateTable('emails')
      .set({ unsubscribed_at: at })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('unsubscribed_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  },

  /** True for the copy's first complaint. */
  async markComplained(db: Db, accountId: string, id: string, at: Date): Promise<boolean> {
    const row = await db
      .updateTable('emails')
      .set({ complained_at: at })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('complained_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  },

  /**
   * Drops the body, custom headers and attachments of up to `limit` requests whose every copy
   * reached its final state more than `retentionDays` ago (a copy still scheduled, queued,
   * sending or deferred keeps its request's content whatever its age), oldest first. The
   * request's sender, subject and recipients stay, as do its copies and their events. A final
   * copy without `finished_at` finished before the column existed. Answers how many it pruned.
   */
  async pruneContents(db: Db, retentionDays: number, limit: number): Promise<number> {
    const result = await sql`
      update email_contents c set html = null, text = null, headers = '{}', attachments = '[]', pruned_at = now()
      where c.pruned_at is null and c.id = any(array(
        select x.id from email_contents x
        where x.pruned_at is null and x.created_at < now() - make_interval(days => ${retentionDays})
          and not exists (
            select 1 from emails e where e.account_id = x.account_id and e.content_id = x.id
              and (e.status in ('scheduled', 'queued', 'sending', 'deferred') or e.finished_at >= now() - make_interval(days => ${retentionDays}))
          )
        order by x.created_at limit ${limit}
      ))`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  },

  /** The message's events, oldest first (the partial index on transactional events serves it). */
  timeline(db: Db, accountId: string, id: string) {
    return db
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'data'])
      .where(sql<boolean>`data->>'stream' = 'transactional'`)
      .where(sql<boolean>`data->>'message_id' = ${id}`)
      .where('account_id', '=', accountId)
      .orderBy('seq')
      .limit(200)
      .execute();
  },
};

/**
 * Copies a statement of an erasure anonymises: a person's mail can run to many copies, and each
 * statement's locks and returned rows stay bounded while the erasure stays one transaction.
 */
const ERASE_BATCH = 1_000;

/** Separates the addresses of a stored `To` or `Cc` header (`rules.ts` joins them so); no address holds it. */
const HEADER_SEPARATOR = ',\r\n ';

/** `header` (a stored `To` or `Cc`) without `address` (lower-cased), plain or named, in its order. */
const withoutAddress = (header: RawBuilder<string | null>, address: string) => sql<string>`array_to_string(array(
    select a from unnest(string_to_array(${header}, ${HEADER_SEPARATOR})) with ordinality u(a, i)
    where lower(a) <> ${address} and right(lower(a), ${address.length + 2}) <> ${`<${address}>`} order by i), ${HEADER_SEPARATOR})`;

// ---- Personal data (GDPR): the person's copies, shown to them, and erased.

/** A copy as the right of access shows it: with what it said, and its attachments' names only. */
export type PersonEmail = ListedEmail & Pick<ContentColumns, 'to_header' | 'cc_header' | 'reply_to' | 'text' | 'html'> & { attachment_names: string[] };

/** The copies to the contact or its address, oldest first: what the right of access shows. */
export function emailsOfPerson(db: Db, accountId: string, contactId: string, email: string): Promise<PersonEmail[]> {
  return (
    db
      .selectFrom('emails as e')
      .innerJoin('email_contents as c', (join) => join.onRef('c.account_id', '=', 'e.account_id').onRef('c.id', '=', 'e.content_id'))
      .selectAll('e')
      .select(['c.from_email', 'c.from_name', 'c.subject', 'c.to_header', 'c.cc_header', 'c.reply_to', 'c.text', 'c.html'])
      // The names only: the contents (up to 10 MB a request) are not read.
      .select(sql<string[]>`array(select jsonb_array_elements(c.attachments)->>'filename')`.as('attachment_names'))
      .where('e.account_id', '=', accountId)
      .where((eb) => eb.or([eb('e.contact_id', '=', contactId), eb(sql<string>`lower(e.email)`, '=', email.toLowerCase())]))
      .orderBy('e.created_at')
      .orderBy('e.id')
      .execute()
  );
}

/** Emails to contacts being deleted keep their address, no longer tied to the contact. */
export async function releaseEmailsOf(db: Db, accountId: string, contactIds: readonly string[]): Promise<void> {
  await db
    .updateTable('emails')
    .set({ contact_id: null })
    .where('account_id', '=', accountId)
    .where('contact_id', '=', sql<string>`any(${contactIds}::text[])`)
    .execute();
}

/**
 * Erases the person from transactional email, in the caller's transaction, ERASE_BATCH copies a
 * statement. Their copies stay for the counts (status, tags, times) without address, contact,
 * metadata or reason; one not sent yet is cancelled. A request sent to them alone loses its
 * subject, body, headers, attachments and recipients; one with other recipients keeps what those
 * were sent, without the person in its `To` and `Cc`. Answers how many copies were anonymised.
 */
export async function eraseEmailsOfPerson(db: Db, accountId: string, contactId: string, email: string): Promise<number> {
  const address = email.toLowerCase();
  const unsent = sql<boolean>`e.status in ('scheduled', 'queued', 'sending', 'deferred')`;
  let erased = 0;
  for (;;) {
    // The clock as a row: Citus refuses now() inside a CASE or COALESCE of a statement that changes rows.
    const { rows } = await sql<{ n: number }>`
      with clock as (select now() as now), picked as (
        select id from emails
        where account_id = ${accountId} and (contact_id = ${contactId} or lower(email) = ${address})
        order by id limit ${ERASE_BATCH}
        for update
      ), erased as (
        update emails e set email = '', contact_id = null, metadata = '{}', reason = null,
          status = case when ${unsent} then 'cancelled' else e.status end,
          next_attempt_at = case when ${unsent} then null else e.next_attempt_at end,
          finished_at = case when ${unsent} then clock.now else e.finished_at end
        from picked p, clock where e.account_id = ${accountId} and e.id = p.id
        returning e.content_id
      ), requests as (
        select distinct r.content_id as id, not exists (
          select 1 from emails o where o.account_id = ${accountId} and o.content_id = r.content_id and o.email <> '' and lower(o.email) <> ${address}
            and o.contact_id is distinct from ${contactId}
        ) as alone
        from erased r
      ), kept as (
        -- The headers without the person, worked out apart: Citus refuses a STABLE function
        -- (array_to_string) inside a CASE of a statement that changes rows. Locked, so that an
        -- erasure of another recipient of the same request that committed meanwhile is read, and
        -- kept.
        select q.id, q.alone, ${withoutAddress(sql`k.to_header`, address)} as to_header, nullif(${withoutAddress(sql`k.cc_header`, address)}, '') as cc_header
        from requests q join email_contents k on k.account_id = ${accountId} and k.id = q.id
        order by k.id
        for update of k
      ), contents as (
        update email_contents c set
          to_header = case when q.alone then '' else q.to_header end,
          cc_header = case when q.alone then null else q.cc_header end,
          subject = case when q.alone then '' else c.subject end,
          html = case when q.alone then null else c.html end,
          text = case when q.alone then null else c.text end,
          headers = case when q.alone then '{}' else c.headers end,
          attachments = case when q.alone then '[]' else c.attachments end,
          pruned_at = case when q.alone then coalesce(c.pruned_at, clock.now) else c.pruned_at end
        from kept q, clock where c.account_id = ${accountId} and c.id = q.id
      )
      select count(*)::int as n from erased`.execute(db);
    erased += rows[0].n;
    if (rows[0].n < ERASE_BATCH) return erased;
  }
}

export type Refusal = 'bounced' | 'complained';

/**
 * Why an address may not receive transactional mail: its contact's status (bounced or
 * complained; an unsubscribe is marketing's), or, for an address no contact holds, a hard bounce
 * or complaint recorded for it. A query over `source` (a relation with an `email` column) adding
 * `contact_id` and `refused` (null: may receive) to its columns.
 */
function standingOf(source: RawBuilder<unknown>, accountId: RawBuilder<unknown>) {
  return sql`
    select x.*, c.id as contact_id,
      case when c.status in ('bounced', 'complained') then c.status when b.type = 'complaint' then 'complained' when b.type = 'hard' then 'bounced' end as refused
    from ${source} x
    left join contacts c on c.account_id = ${accountId} and lower(c.email) = lower(x.email)
    left join lateral (
      select type from bounces
      where c.id is null and bounces.account_id = ${accountId} and lower(bounces.email) = lower(x.email) and type in ('hard', 'complaint')
      order by (type = 'complaint') desc limit 1
    ) b on true`;
}

/** Why each address (lower-cased) may not receive transactional mail; one statement (see `standingOf`). */
export async function recipientStanding(transactions: Transactions, accountId: string, addresses: string[]): Promise<{ refused: Map<string, Refusal> }> {
  const refused = new Map<string, Refusal>();
  if (!addresses.length) return { refused };
  const lower = [...new Set(addresses.map((a) => a.toLowerCase()))];
  const rows = await transactions.prepared(
    sql<{
      email: string;
      refused: Refusal | null;
    }>`select s.email, s.refused from (${standingOf(sql`(select unnest(${lower}::text[]) as email)`, sql`${accountId}`)}) s`,
  );
  for (const r of rows) if (r.refused) refused.set(r.email, r.refused);
  return { refused };
}
