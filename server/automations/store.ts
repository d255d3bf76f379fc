import { sql, type Selectable } from 'kysely';
import type { Database, Db } from '../db/kysely.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { AutomationStatus, EnrollmentStatus } from './entities.ts';

/**
 * The automations' own tables: automations and their versions, enrolments, their paths and the
 * per-contact entries that hold re-entry. Written here only.
 */

export type AutomationRecord = Selectable<Database['automations']>;
export type VersionRecord = Selectable<Database['automation_versions']>;
export type EnrollmentRecord = Selectable<Database['automation_enrollments']>;
export type PathRecord = Selectable<Database['automation_path']>;
export type Reentry = 'never' | 'always' | 'after_exit';

/** What a processed enrolment becomes: written back in one statement for a batch. */
export interface EnrollmentChange {
  accountId: string;
  id: string;
  status: EnrollmentStatus;
  stepId: string | null;
  dueAt: Date | null;
  waitingFor: string | null;
  context: Record<string, unknown>;
  visits: number;
  exitReason: string | null;
  finished: boolean;
}

export interface NewPathEntry {
  accountId: string;
  enrollmentId: string;
  automationId: string;
  stepId: string;
  stepType: string;
  outcome: { branch?: string | null; detail?: string | null };
  messageId: string | null;
}

const FINISHED: readonly EnrollmentStatus[] = ['completed', 'exited', 'converted', 'failed'];

type JourneyColumns = Pick<AutomationRecord, 'trigger' | 'steps' | 'settings'>;

/** The journey's columns as JSON text: the driver would write an array (`steps`) as a PostgreSQL array. */
function asJson(row: Partial<JourneyColumns>): Partial<JourneyColumns> {
  const out: Record<string, unknown> = {};
  for (const key of ['trigger', 'steps', 'settings'] as const) if (row[key] !== undefined) out[key] = JSON.stringify(row[key]);
  return out;
}

export const automations = {
  async insert(db: Db, row: Omit<AutomationRecord, 'created_at' | 'updated_at' | 'activated_at' | 'version'>): Promise<AutomationRecord> {
    return db
      .insertInto('automations')
      .values({ ...row, ...asJson(row), version: 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async get(db: Db, accountId: string, id: string, lock = false): Promise<AutomationRecord | null> {
    let q = db.selectFrom('automations').selectAll().where('account_id', '=', accountId).where('id', '=', id);
    if (lock) q = q.forUpdate();
    return (await q.executeTakeFirst()) ?? null;
  },

  page(db: Db, accountId: string, status: AutomationStatus | undefined, after: Cursor | null, limit: number): Promise<AutomationRecord[]> {
    let q = db.selectFrom('automations').selectAll().where('account_id', '=', accountId);
    if (status) q = q.where('status', '=', status);
    if (after) q = q.where((eb) => eb.or([eb('created_at', '>', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '>', after.id)])]));
    return q
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit + 1)
      .execute();
  },

  async update(
    db: Db,
    accountId: string,
    id: string,
    set: Partial<Pick<AutomationRecord, 'name' | 'trigger' | 'steps' | 'settings' | 'status' | 'version' | 'activated_at'>>,
  ) {
    return db
      .updateTable('automations')
      .set({ ...set, ...asJson(set), updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async delete(db: Db, accountId: string, id: string): Promise<boolean> {
    const deleted = await db.deleteFrom('automations').where('account_id', '=', accountId).where('id', '=', id).returning('id').executeTakeFirst();
    return deleted !== undefined;
  },

  /** Freezes the automation's steps as its version `version`. */
  async addVersion(db: Db, a: Pick<AutomationRecord, 'account_id' | 'id' | 'trigger' | 'steps' | 'settings'>, version: number): Promise<void> {
    await db
      .insertInto('automation_versions')
      .values({ account_id: a.account_id, automation_id: a.id, version, ...(asJson(a) as JourneyColumns) })
      .execute();
  },

  async version(db: Db, accountId: string, automationId: string, version: number): Promise<VersionRecord | null> {
    return (
      (await db
        .selectFrom('automation_versions')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('automation_id', '=', automationId)
        .where('version', '=', version)
        .executeTakeFirst()) ?? null
    );
  },

  /** The account's active automations whose trigger is of `type` (and `key`, when given). */
  async activeByTrigger(db: Db, accountId: string, type: string, key?: string): Promise<AutomationRecord[]> {
    let q = db
      .selectFrom('automations')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'active')
      .where(sql<boolean>`trigger->>'type' = ${type}`);
    if (key !== undefined) q = q.where(sql<boolean>`coalesce(trigger->>'list_id', trigger->>'tag', trigger->>'name', '') = ${key}`);
    return q.execute();
  },

  /** Every account's active automations. */
  allActive(db: Db): Promise<AutomationRecord[]> {
    return db.selectFrom('automations').selectAll().where('status', '=', 'active').execute();
  },

  /** Every account's active automations whose trigger is of `type`: the periodic triggers' work. */
  allActiveByTrigger(db: Db, type: string): Promise<AutomationRecord[]> {
    return db
      .selectFrom('automations')
      .selectAll()
      .where('status', '=', 'active')
      .where(sql<boolean>`trigger->>'type' = ${type}`)
      .execute();
  },
};

export const enrollments = {
  /**
   * Enrols contacts on a version, at its first step, due now. Re-entry is decided per contact by
   * its entry row, in the same statement, so that two processes enrolling one contact at once
   * enrol it at most as the setting allows. Answers the enrolments made.
   */
  async enrol(
    tx: Db,
    target: { accountId: string; automationId: string; version: number; firstStep: string; reentry: Reentry },
    contacts: readonly { contactId: string; context: Record<string, unknown> }[],
  ): Promise<{ id: string; contact_id: string }[]> {
    if (!contacts.length) return [];
    const again =
      target.reentry === 'always'
        ? sql`true`
        : target.reentry === 'after_exit'
          ? sql`automation_contacts.live_enrollment_id is null`
          : // A row a segment or date sweep made before the contact ever entered.
            sql`automation_contacts.entries = 0`;
    const { rows } = await sql<{ id: string; contact_id: string }>`
      with given as (
        select distinct on (x.contact_id) x.contact_id, x.context from unnest(${contacts.map((c) => c.contactId)}::text[], ${contacts.map((c) =>
          JSON.stringify(c.context),
        )}::jsonb[]) as x(contact_id, context) order by x.contact_id
      ), entered as (
        insert into automation_contacts as automation_contacts (account_id, automation_id, contact_id, live_enrollment_id, entries)
        select ${target.accountId}, ${target.automationId}, g.contact_id, sendline_id('enr'), 1 from given g order by g.contact_id
        on conflict (account_id, automation_id, contact_id) do update
          set live_enrollment_id = excluded.live_enrollment_id, entries = automation_contacts.entries + 1
          where ${again}
        returning contact_id, live_enrollment_id
      )
      insert into automation_enrollments (account_id, id, automation_id, version, contact_id, status, step_id, due_at, context)
      select ${target.accountId}, e.live_enrollment_id, ${target.automationId}, ${target.version}, e.contact_id, 'active', ${target.firstStep}, now(), g.context
      from entered e join given g using (contact_id)
      returning id, contact_id`.execute(tx);
    return rows;
  },

  /**
   * Claims due enrolments of active automations, at most `perAutomation` of each and the
   * automations taken in a random order, so that a journey with a large backlog (a manual
   * enrolment of thousands) delays no other journey, of this account or another, by more than a
   * batch. The rows stay locked until the claiming transaction ends.
   */
  async claimDue(tx: Db, perAutomation: number, limit: number): Promise<EnrollmentRecord[]> {
    // One account at a time (under Citus, one shard's), the accounts with due steps in a random order.
    const { rows: due } = await sql<{ account_id: string }>`
      select a.account_id from automations a
      where a.status = 'active' and exists (
        select 1 from automation_enrollments e where e.account_id = a.account_id and e.automation_id = a.id and e.due_at <= now())
      group by a.account_id order by random()`.execute(tx);
    const claimed: EnrollmentRecord[] = [];
    for (const { account_id: accountId } of due) {
      if (claimed.length >= limit) break;
      const { rows } = await sql<EnrollmentRecord>`
        select e.* from (select account_id, id from automations where account_id = ${accountId} and status = 'active' order by random()) a cross join lateral (
          select * from automation_enrollments e
          where e.account_id = ${accountId} and e.automation_id = a.id and e.due_at <= now()
          order by e.due_at limit ${perAutomation}
          for update skip locked
        ) e
        limit ${limit - claimed.length}`.execute(tx);
      claimed.push(...rows);
    }
    return claimed;
  },

  /** Writes a batch of processed enrolments; the finished ones free their contact's entry. */
  async apply(tx: Db, changes: readonly EnrollmentChange[]): Promise<void> {
    if (!changes.length) return;
    const of = <T>(f: (c: EnrollmentChange) => T) => changes.map(f);
    // The clock as a row: Citus refuses now() inside a CASE of a statement that changes rows.
    await sql`
      with clock as (select now() as now), u as (
        select * from unnest(${of((c) => c.accountId)}::text[], ${of((c) => c.id)}::text[], ${of((c) => c.status)}::text[], ${of((c) => c.stepId)}::text[],
          ${of((c) => c.dueAt)}::timestamptz[], ${of((c) => c.waitingFor)}::text[], ${of((c) => JSON.stringify(c.context))}::jsonb[], ${of((c) => c.visits)}::int[],
          ${of((c) => c.exitReason)}::text[], ${of((c) => c.finished)}::boolean[])
          as u(account_id, id, status, step_id, due_at, waiting_for, context, visits, exit_reason, finished)
      ), updated as (
        update automation_enrollments e set status = u.status, step_id = u.step_id, due_at = u.due_at, waiting_for = u.waiting_for,
          context = u.context, visits = u.visits, exit_reason = u.exit_reason, updated_at = clock.now,
          finished_at = case when u.finished then clock.now else e.finished_at end
        from u, clock where e.account_id = u.account_id and e.id = u.id
        returning e.account_id, e.automation_id, e.contact_id, e.id, u.finished
      )
      update automation_contacts c set live_enrollment_id = null
      from updated d where d.finished and c.account_id = d.account_id and c.automation_id = d.automation_id
        and c.contact_id = d.contact_id and c.live_enrollment_id = d.id`.execute(tx);
  },

  /** Appends path entries, each after its enrolment's last. */
  async addPath(tx: Db, entries: readonly NewPathEntry[]): Promise<void> {
    if (!entries.length) return;
    const of = <T>(f: (e: NewPathEntry) => T) => entries.map(f);
    // Each enrolment's last seq by a join, not a subquery per row: Citus refuses a correlated
    // subquery beside a set-returning function.
    await sql`
      with x as (
        select * from unnest(${of((e) => e.accountId)}::text[], ${of((e) => e.enrollmentId)}::text[], ${of((e) => e.automationId)}::text[], ${of((e) => e.stepId)}::text[],
          ${of((e) => e.stepType)}::text[], ${of((e) => JSON.stringify(e.outcome))}::jsonb[], ${of((e) => e.messageId)}::text[])
          with ordinality as x(account_id, enrollment_id, automation_id, step_id, step_type, outcome, message_id, n)
      ), last as (
        select p.account_id, p.enrollment_id, max(p.seq) as seq
        from automation_path p join x on p.account_id = x.account_id and p.enrollment_id = x.enrollment_id
        group by p.account_id, p.enrollment_id
      )
      insert into automation_path (account_id, enrollment_id, seq, automation_id, step_id, step_type, outcome, message_id, entered_at)
      select x.account_id, x.enrollment_id, coalesce(l.seq, 0) + row_number() over (partition by x.account_id, x.enrollment_id order by x.n),
        x.automation_id, x.step_id, x.step_type, x.outcome, x.message_id, clock_timestamp()
      from x left join last l on l.account_id = x.account_id and l.enrollment_id = x.enrollment_id`.execute(tx);
  },

  /** Merges into the outcome of each enrolment's last path entry (a `wait_for_event` that ended, a webhook that failed). */
  async setLastOutcome(tx: Db, accountId: string, enrollmentIds: readonly string[], outcome: { branch?: string; detail?: string }): Promise<void> {
    if (!enrollmentIds.length) return;
    await sql`
      update automation_path p set outcome = p.outcome || ${JSON.stringify(outcome)}::jsonb
      from (
        select enrollment_id, max(seq) as seq from automation_path
        where account_id = ${accountId} and enrollment_id = any(${enrollmentIds}::text[]) group by enrollment_id
      ) last
      where p.account_id = ${accountId} and p.enrollment_id = last.enrollment_id and p.seq = last.seq`.execute(tx);
  },

  /** The contact's enrolments waiting for the event `name`, locked. */
  waitingFor(tx: Db, accountId: string, contactId: string, name: string): Promise<EnrollmentRecord[]> {
    return tx
      .selectFrom('automation_enrollments')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where('status', '=', 'waiting')
      .where('waiting_for', '=', name)
      .forUpdate()
      .skipLocked()
      .execute();
  },

  async get(db: Db, accountId: string, id: string, lock = false): Promise<EnrollmentRecord | null> {
    let q = db.selectFrom('automation_enrollments').selectAll().where('account_id', '=', accountId).where('id', '=', id);
    if (lock) q = q.forUpdate();
    return (await q.executeTakeFirst()) ?? null;
  },

  /** Newest first, by automation or by contact. */
  page(
    db: Db,
    accountId: string,
    by: { automationId?: string; contactId?: string; status?: EnrollmentStatus },
    after: Cursor | null,
    limit: number,
  ): Promise<EnrollmentRecord[]> {
    let q = db.selectFrom('automation_enrollments').selectAll().where('account_id', '=', accountId);
    if (by.automationId) q = q.where('automation_id', '=', by.automationId);
    if (by.contactId) q = q.where('contact_id', '=', by.contactId);
    if (by.status) q = q.where('status', '=', by.status);
    if (after) q = q.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
    return q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
  },

  async paths(db: Db, accountId: string, enrollmentIds: readonly string[]): Promise<PathRecord[]> {
    if (!enrollmentIds.length) return [];
    return db
      .selectFrom('automation_path')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('enrollment_id', '=', sql<string>`any(${enrollmentIds}::text[])`)
      .orderBy('enrollment_id')
      .orderBy('seq')
      .execute();
  },

  /** Ends every enrolment in flight of an automation (archived) or of a contact (erased); answers how many. */
  async exitAll(tx: Db, accountId: string, by: { automationId?: string; contactId?: string }, reason: string): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      with ended as (
        update automation_enrollments e set status = 'exited', exit_reason = ${reason}, step_id = null, due_at = null, waiting_for = null,
          context = case when ${by.contactId !== undefined} then '{}'::jsonb else e.context end, finished_at = now(), updated_at = now()
        where e.account_id = ${accountId} and e.status in ('active', 'waiting')
          ${by.automationId ? sql`and e.automation_id = ${by.automationId}` : sql``}
          ${by.contactId ? sql`and e.contact_id = ${by.contactId}` : sql``}
        returning e.account_id, e.automation_id, e.contact_id, e.id
      ), freed as (
        update automation_contacts c set live_enrollment_id = null from ended d
        where c.account_id = d.account_id and c.automation_id = d.automation_id and c.contact_id = d.contact_id and c.live_enrollment_id = d.id
      )
      select count(*)::int as n from ended`.execute(tx);
    return rows[0].n;
  },

  /** Drops what the contact's finished enrolments kept of its events; answers how many. */
  async forgetContexts(db: Db, accountId: string, contactId: string): Promise<number> {
    const result = await db
      .updateTable('automation_enrollments')
      .set({ context: sql<Record<string, unknown>>`'{}'::jsonb` })
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where(sql<boolean>`context <> '{}'::jsonb`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  },

  /** Steps due now, of every journey whatever its status (a paused one's wait for its resume). */
  async dueCount(db: Db): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from automation_enrollments where due_at <= now()`.execute(db);
    return rows[0].n;
  },

  async counts(db: Db, accountId: string, automationId: string): Promise<Record<EnrollmentStatus, number>> {
    const rows = await db
      .selectFrom('automation_enrollments')
      .select(['status', sql<number>`count(*)::int`.as('n')])
      .where('account_id', '=', accountId)
      .where('automation_id', '=', automationId)
      .groupBy('status')
      .execute();
    const counts = { active: 0, waiting: 0, completed: 0, exited: 0, converted: 0, failed: 0 };
    for (const r of rows) counts[r.status] = r.n;
    return counts;
  },

  /** Per step id: visits, enrolments there now, and for emails what became of their messages. */
  async stepFigures(db: Db, accountId: string, automationId: string) {
    const { rows } = await sql<{
      step_id: string;
      entered: number;
      here: number;
      failed_here: number;
      sent: number;
      delivered: number;
      opened: number;
      clicked: number;
      bounced: number;
      unsubscribed: number;
      complained: number;
    }>`
      with visits as (
        select p.step_id, count(*)::int as entered,
          count(m.sent_at)::int as sent, count(*) filter (where m.status = 'delivered' or m.opened_at is not null or m.clicked_at is not null)::int as delivered,
          count(m.opened_at)::int as opened, count(m.clicked_at)::int as clicked, count(m.bounced_at)::int as bounced,
          count(m.unsubscribed_at)::int as unsubscribed, count(m.complained_at)::int as complained
        from automation_path p left join emails m on m.account_id = p.account_id and m.id = p.message_id
        where p.account_id = ${accountId} and p.automation_id = ${automationId}
        group by p.step_id
      ), here as (
        select step_id, count(*) filter (where status in ('active', 'waiting'))::int as here, count(*) filter (where status = 'failed')::int as failed_here
        from automation_enrollments where account_id = ${accountId} and automation_id = ${automationId} and step_id is not null
        group by step_id
      )
      select coalesce(v.step_id, h.step_id) as step_id, coalesce(v.entered, 0) as entered, coalesce(h.here, 0) as here, coalesce(h.failed_here, 0) as failed_here,
        coalesce(v.sent, 0) as sent, coalesce(v.delivered, 0) as delivered, coalesce(v.opened, 0) as opened, coalesce(v.clicked, 0) as clicked,
        coalesce(v.bounced, 0) as bounced, coalesce(v.unsubscribed, 0) as unsubscribed, coalesce(v.complained, 0) as complained
      from visits v full join here h on h.step_id = v.step_id`.execute(db);
    return rows;
  },
};

export const isFinished = (status: EnrollmentStatus) => FINISHED.includes(status);
