import { sql, type SqlBool } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { PENDING_SIGNUP_REASON } from './rules.ts';
import { countingChanges, type StatusChange } from './status-counts.ts';

/**
 * Contacts that only an unconfirmed double opt-in sign-up made: how the contacts' writes tell
 * them, and the lists' way to remove those whose sign-up expired.
 */

/**
 * SQL: the contact row `alias` is one an unconfirmed double opt-in sign-up made
 * (`PENDING_SIGNUP_REASON`, a literal: Citus loses the type of a parameter in ON CONFLICT's WHERE).
 */
export const pendingSignup = (alias: 'c' | 'old') =>
  sql<SqlBool>`(${sql.raw(alias)}.status = 'unsubscribed' and ${sql.raw(alias)}.status_reason = ${sql.lit(PENDING_SIGNUP_REASON)})`;

/**
 * Deletes those of `contactIds` that an unconfirmed sign-up made and that have nothing else: no
 * list membership, campaign message, email, topic opt-out, tag or attribute. Answers those deleted.
 */
export async function deletePendingSignups(db: Db, contactIds: readonly string[]): Promise<{ id: string; account_id: string }[]> {
  if (!contactIds.length) return [];
  const { rows } = await sql<{ id: string; account_id: string }>`
    with deleted as (
    delete from contacts c
    where c.id = any(${contactIds}::text[]) and ${pendingSignup('c')} and c.tags = '{}' and c.attributes = '{}'::jsonb
      and not exists (select 1 from list_members m where m.account_id = c.account_id and m.contact_id = c.id)
      and not exists (select 1 from messages cm where cm.account_id = c.account_id and cm.contact_id = c.id)
      and not exists (select 1 from emails e where e.account_id = c.account_id and e.contact_id = c.id)
      and not exists (select 1 from contact_topic_optouts o where o.account_id = c.account_id and o.contact_id = c.id)
    returning c.id, c.account_id, c.status
    ), counted as (${countingChanges(sql<StatusChange>`select account_id, status as before, null as after from deleted`)})
    select id, account_id from deleted`.execute(db);
  return rows;
}
