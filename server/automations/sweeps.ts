import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/kysely.ts';
import type { Logger } from '../logger.ts';
import type { Transactions } from '../db/transactions.ts';
import { compileRules } from '../segments/compiler.ts';
import { fieldSchema } from '../fields/definitions.ts';
import { segmentsCondition } from '../segments/service.ts';
import type { SegmentRule } from '../segments/rules.ts';
import type { JourneyRunner } from './runner.ts';
import { automations, type AutomationRecord } from './store.ts';

/**
 * What journeys watch over time rather than on a signal, swept together every
 * `AUTOMATION_SWEEP_SECONDS` by one process at a time: contacts who newly match a
 * `segment_entered` trigger's segment, a `date` trigger's occurrences, and contacts in flight who
 * reached their automation's goal.
 */
export class JourneySweeps {
  private readonly transactions: Transactions;
  private readonly db: Db;
  private readonly runner: Pick<JourneyRunner, 'enrol' | 'poke'>;
  private readonly log: Logger;
  /** The zone of an account's contacts without their own. */
  private readonly accountTimeZone: (db: Db, accountId: string) => Promise<string>;

  constructor(
    transactions: Transactions,
    db: Db,
    runner: Pick<JourneyRunner, 'enrol' | 'poke'>,
    log: Logger,
    accountTimeZone: (db: Db, accountId: string) => Promise<string>,
  ) {
    this.transactions = transactions;
    this.db = db;
    this.runner = runner;
    this.log = log;
    this.accountTimeZone = accountTimeZone;
  }

  async run(): Promise<void> {
    let enrolled = 0;
    for (const automation of await automations.allActiveByTrigger(this.db, 'segment_entered'))
      enrolled += await this.guarded(automation, () => this.segment(automation));
    for (const automation of await automations.allActiveByTrigger(this.db, 'date')) enrolled += await this.guarded(automation, () => this.date(automation));
    for (const automation of await automations.allActive(this.db)) await this.guarded(automation, () => this.goals(automation));
    if (enrolled) this.runner.poke();
  }

  /** One automation's sweep; a fault (a segment whose rules no longer fit its fields) is logged and skips it only. */
  private async guarded(automation: AutomationRecord, sweep: () => Promise<number>): Promise<number> {
    try {
      return await sweep();
    } catch (err) {
      this.log.warn({ err, automation: automation.id }, 'an automation could not be swept');
      return 0;
    }
  }

  /** Contacts in the segment now and not at the last sweep (or at activation) enrol; those who left are noted. */
  private async segment(automation: AutomationRecord): Promise<number> {
    return this.transactions.run(async (tx) => {
      const entered = await markSegmentMembers(
        tx,
        automation,
        await segmentsCondition(tx, automation.account_id, [automation.trigger.segment_id!], '/trigger/segment_id'),
      );
      const made = await this.runner.enrol(
        tx,
        automation.account_id,
        automation.id,
        automation.version,
        entered.map((contactId) => ({ contactId, context: {} })),
      );
      return made.length;
    });
  }

  /** Contacts whose date (plus the offset) falls today where they are, once its local time has come, enrol once a year. */
  private async date(automation: AutomationRecord): Promise<number> {
    const { field = 'created_at', offset_days: offset = 0, at = '09:00' } = automation.trigger;
    const base = field === 'created_at' ? sql`(c.created_at at time zone z.zone)::date` : sql`(c.attributes->>${field})::date`;
    const present = field === 'created_at' ? sql<SqlBool>`true` : sql<SqlBool>`pg_input_is_valid(c.attributes->>${field}, 'date')`;
    const accountZone = await this.accountTimeZone(this.db, automation.account_id);
    return this.transactions.run(async (tx) => {
      const { rows } = await sql<{ id: string }>`
        with zones as materialized (select distinct on (lower(name)) name, lower(name) as key from pg_timezone_names where name !~ '^(posix|right)/' order by lower(name), name),
        local as (
          select c.id, (now() at time zone z.zone) as local_now, ${base} + ${offset}::int as day
          from contacts c
          cross join lateral (select coalesce((select name from zones where key = lower(coalesce(c.timezone, ${accountZone}))), 'UTC') as zone) z
          where c.account_id = ${automation.account_id} and ${present}
        ), due as (
          select id, local_now::date as today from local
          where (day + make_interval(years => (extract(year from local_now) - extract(year from day))::int))::date = local_now::date
            and local_now::time >= ${at}::time
            and (extract(year from local_now) > extract(year from day) or ${offset} <> 0)
        ), marked as (
          insert into automation_contacts as ac (account_id, automation_id, contact_id, last_occurrence)
          select ${automation.account_id}, ${automation.id}, d.id, d.today from due d
          on conflict (account_id, automation_id, contact_id) do update set last_occurrence = excluded.last_occurrence
            where ac.last_occurrence is null or ac.last_occurrence < excluded.last_occurrence
          returning contact_id
        )
        select contact_id as id from marked`.execute(tx);
      const made = await this.runner.enrol(
        tx,
        automation.account_id,
        automation.id,
        automation.version,
        rows.map((r) => ({ contactId: r.id, context: {} })),
      );
      return made.length;
    });
  }

  /** Contacts in flight who match their version's goal leave, converted. */
  private async goals(automation: AutomationRecord): Promise<number> {
    const { rows: versions } = await sql<{ version: number; goal: SegmentRule }>`
      select v.version, v.settings->'goal' as goal from automation_versions v
      where v.account_id = ${automation.account_id} and v.automation_id = ${automation.id} and jsonb_typeof(v.settings->'goal') = 'object'
        and exists (select 1 from automation_enrollments e where e.account_id = v.account_id and e.automation_id = v.automation_id
          and e.version = v.version and e.status in ('active', 'waiting'))`.execute(this.db);
    let converted = 0;
    for (const { version, goal } of versions) {
      const condition = compileRules(goal, {
        accountId: automation.account_id,
        fields: await fieldSchema(this.db, automation.account_id),
        now: new Date(),
      }).condition;
      converted += await convertMatching(this.db, automation, version, condition);
    }
    return converted;
  }
}

/** Records who is in the segment now; answers those who were not at the last sweep. */
export async function markSegmentMembers(tx: Db, automation: Pick<AutomationRecord, 'account_id' | 'id'>, condition: RawBuilder<SqlBool>): Promise<string[]> {
  const { rows } = await sql<{ contact_id: string }>`
    with members as (select c.id from contacts c where c.account_id = ${automation.account_id} and ${condition}),
    gone as (
      update automation_contacts ac set in_segment = false
      where ac.account_id = ${automation.account_id} and ac.automation_id = ${automation.id} and ac.in_segment
        and not exists (select 1 from members m where m.id = ac.contact_id)
    )
    insert into automation_contacts as ac (account_id, automation_id, contact_id, in_segment)
    select ${automation.account_id}, ${automation.id}, m.id, true from members m
    on conflict (account_id, automation_id, contact_id) do update set in_segment = true where not ac.in_segment
    returning ac.contact_id`.execute(tx);
  return rows.map((r) => r.contact_id);
}

async function convertMatching(db: Db, automation: AutomationRecord, version: number, condition: RawBuilder<SqlBool>): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with converted as (
      update automation_enrollments e set status = 'converted', exit_reason = 'goal', step_id = null, due_at = null, waiting_for = null,
        finished_at = now(), updated_at = now()
      from contacts c
      where e.account_id = ${automation.account_id} and e.automation_id = ${automation.id} and e.version = ${version}
        and e.status in ('active', 'waiting') and c.account_id = e.account_id and c.id = e.contact_id and ${condition}
      returning e.account_id, e.automation_id, e.contact_id, e.id
    ), freed as (
      update automation_contacts ac set live_enrollment_id = null from converted d
      where ac.account_id = d.account_id and ac.automation_id = d.automation_id and ac.contact_id = d.contact_id and ac.live_enrollment_id = d.id
    )
    select count(*)::int as n from converted`.execute(db);
  return rows[0].n;
}
