import { sql, type Insertable, type Selectable } from 'kysely';
import type { Database, Db } from '../db/kysely.ts';

/**
 * Every statement that writes conversions, payments and their rollup (revenue_hourly), which is
 * kept here in the transaction of each insert (no triggers).
 */

export type ConversionRecord = Selectable<Database['conversions']>;
export type PaymentRecord = Selectable<Database['payments']>;

const HOUR_MS = 3600_000;
const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);

/** Null when a conversion with the same `external_id` exists (a concurrent request won). */
export async function insertConversion(db: Db, row: Insertable<Database['conversions']>): Promise<ConversionRecord | null> {
  const inserted = await db
    .insertInto('conversions')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'external_id']).where('external_id', 'is not', null).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) await addRevenue(db, inserted.account_id, inserted.occurred_at, inserted.campaign_id, inserted.currency, 1, inserted.value ?? '0');
  return inserted ?? null;
}

/** Null when a payment with the same `external_id` exists (a concurrent request won). */
export async function insertPayment(db: Db, row: Insertable<Database['payments']>): Promise<PaymentRecord | null> {
  const inserted = await db
    .insertInto('payments')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'external_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) await addRevenue(db, inserted.account_id, inserted.occurred_at, inserted.campaign_id, inserted.currency, 0, inserted.amount);
  return inserted ?? null;
}

/** Per UTC hour, campaign ('' for none) and currency ('' for none). */
async function addRevenue(
  db: Db,
  accountId: string,
  at: Date,
  campaignId: string | null,
  currency: string | null,
  conversions: number,
  amount: string,
): Promise<void> {
  await db
    .insertInto('revenue_hourly')
    .values({ account_id: accountId, bucket: hourOf(at), campaign_id: campaignId ?? '', currency: currency ?? '', conversions, amount })
    .onConflict((oc) =>
      oc.columns(['account_id', 'bucket', 'campaign_id', 'currency']).doUpdateSet((eb) => ({
        conversions: eb('revenue_hourly.conversions', '+', eb.ref('excluded.conversions')),
        amount: sql<string>`revenue_hourly.amount + excluded.amount`,
      })),
    )
    .execute();
}

/** Conversions and payments of a campaign being deleted stay counted for the account, no longer tied to it. */
export async function detachCampaign(db: Db, accountId: string, campaignId: string): Promise<void> {
  for (const table of ['conversions', 'payments'] as const) {
    await db.updateTable(table).set({ campaign_id: null }).where('account_id', '=', accountId).where('campaign_id', '=', campaignId).execute();
  }
}

/** Erasure (GDPR): conversions and payments stay counted, no longer tied to the contact. */
export async function detachContact(db: Db, accountId: string, contactId: string): Promise<number> {
  const conversions = await db
    .updateTable('conversions')
    .set({ contact_id: null })
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .returning('id')
    .execute();
  const payments = await db
    .updateTable('payments')
    .set({ contact_id: null })
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .returning('id')
    .execute();
  return conversions.length + payments.length;
}
