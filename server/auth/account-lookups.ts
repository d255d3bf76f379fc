import type { Db } from '../db/kysely.ts';

/** The account's time zone, the one of its contacts without their own; `UTC` for an account gone. */
export async function accountTimeZone(db: Db, accountId: string): Promise<string> {
  const row = await db.selectFrom('accounts').select('timezone').where('id', '=', accountId).executeTakeFirst();
  return row?.timezone ?? 'UTC';
}
