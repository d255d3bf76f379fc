import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';

/**
 * Erasure (GDPR): deletes the account's events whose payload names the contact (its id) or its
 * address anywhere; answers their ids. Their counts live in rollups and counters, not here.
 */
export async function deleteNaming(db: Db, accountId: string, contactId: string, email: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    delete from events where account_id = ${accountId}
      and (data->>'contact_id' = ${contactId} or data->'contact'->>'id' = ${contactId} or position(${email.toLowerCase()} in lower(data::text)) > 0)
    returning id`.execute(db);
  return rows.map((r) => r.id);
}
