import type { Db } from '../db/kysely.ts';

/** The account's time zone, the one of its contacts without their own; `UTC` for an account gone. */
export async function accountTimeZone(db: Db, accountId: string): Promise<string> {
  const row = await db.selectFrom('accounts').select('timezone').where('id', '=', accountId).executeTakeFirst();
  return row?.timezone ?? 'UTC';
}

/** The account whose public pages `publicId` names; null for none. */
export async function accountByPublicId(db: Db, publicId: string): Promise<{ id: string; name: string } | null> {
  const row = await db.selectFrom('accounts').select(['id', 'name']).where('public_id', '=', publicId).executeTakeFirst();
  return row ?? null;
}
