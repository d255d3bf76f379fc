import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';

/**
 * Announces credentials that ended or changed on `sendline_revocations`: at the commit of the
 * transaction `db` is in, or now outside one. A statement that reads no table, so that under
 * Citus it runs on the coordinator, where the processes listen.
 */
export async function announceRevoked(db: Db, credentials: readonly string[]): Promise<void> {
  if (!credentials.length) return;
  await sql`select pg_notify('sendline_revocations', c) from unnest(${credentials}::text[]) c`.execute(db);
}
