import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';

/** What an import's batch writes of the suppression list: the suppressions' public write for imports. */

/**
 * An import batch's staged addresses (the session's `import_staging`, written by
 * `writeImportedContacts`) given as unsubscribed, bounced or complained whose contact is now
 * suppressed: on the list as a status change through the API puts them (source
 * `contact_status`), in the batch's transaction.
 */
export async function addImportedSuppressions(db: Db, accountId: string): Promise<void> {
  await sql`
    insert into suppressions (id, account_id, email, email_hash, reason, source, detail)
    select sendline_id('sup'), ${accountId}, c.email, sendline_email_hash(c.email), c.status, 'contact_status', c.status_reason
    from (select distinct lower(email) as email from import_staging where status in ('unsubscribed', 'bounced', 'complained')) s
    join contacts c on c.account_id = ${accountId} and lower(c.email) = s.email and c.status <> 'subscribed'
    order by sendline_email_hash(c.email)
    on conflict (account_id, email_hash) do nothing`.execute(db);
}
