import type { Db } from '../db/kysely.ts';
import { schemaOf, type FieldDefinition, type FieldSchema } from './rules.ts';

/**
 * The custom fields' public reads: the account's definitions, which contacts, imports (in their
 * own thread) and segments check values against, in whatever transaction `db` is.
 */

export function fieldDefinitions(db: Db, accountId: string): Promise<FieldDefinition[]> {
  return db.selectFrom('contact_fields').select(['key', 'type', 'options']).where('account_id', '=', accountId).execute();
}

/** The account's definitions by key, for checking writes (one indexed read). */
export async function fieldSchema(db: Db, accountId: string): Promise<FieldSchema> {
  return schemaOf(await fieldDefinitions(db, accountId));
}
