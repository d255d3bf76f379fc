import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';

/** What an import's batch writes of the lists: the lists' public write for imports. */

/**
 * An import batch's contacts join `listIds` as subscribed members, in the batch's transaction:
 * one statement over the addresses the contacts staged for the batch (`import_staging`,
 * see `writeImportedContacts`). Existing members keep their status; a list deleted meanwhile
 * is left out (its row is held, as the lists' `lockKey` holds it).
 */
export async function addImportedMembers(db: Db, accountId: string, listIds: readonly string[]): Promise<void> {
  if (!listIds.length) return;
  await sql`
    insert into list_members (list_id, contact_id, account_id, status)
    select l.id, c.id, ${accountId}, 'subscribed'
    from (select distinct lower(email) as email from import_staging) s
    join contacts c on c.account_id = ${accountId} and lower(c.email) = s.email
    join lists l on l.account_id = ${accountId} and l.id = any(${listIds}::text[])
    order by l.id, c.id
    for key share of l
    on conflict (account_id, list_id, contact_id) do nothing`.execute(db);
}
