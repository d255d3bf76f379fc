import { sql } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { Transactions } from '../db/transactions.ts';
import { decimalText } from '../db/decimal.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/kysely.ts';
import type { PendingEvent } from '../events/types.ts';
import { append } from '../events/outbox.ts';
import { recentRecords } from '../db/recent.ts';
import { toPage, type Page } from '../contract/pagination.ts';
import { Problem, validationFailed } from '../contract/problem.ts';
import type { TokenSigner } from '../tracked-links/tokens.ts';
import { insertConversion, insertPayment, type ConversionRecord, type PaymentRecord } from './store.ts';

type Schemas = components['schemas'];
export type ConversionInput = Schemas['ConversionCreate'];
export type PaymentInput = Schemas['PaymentCreate'];
export type ConversionJson = Schemas['Conversion'];
export type PaymentJson = Schemas['Payment'];

export interface AttributionFilters {
  contact_id?: string;
  campaign_id?: string;
  since?: string;
  until?: string;
  type?: string;
}

type Attribution = { campaignId: string | null; how: 'click_token' | 'campaign_id' | 'last_click' | 'none' };

const conversionJson = (r: ConversionRecord): ConversionJson => ({
  id: r.id,
  contact_id: r.contact_id,
  campaign_id: r.campaign_id,
  type: r.type,
  value: r.value === null ? null : decimalText(r.value),
  currency: r.currency,
  affiliate_id: r.affiliate_id,
  external_id: r.external_id,
  attribution: r.attribution,
  occurred_at: r.occurred_at.toISOString(),
  created_at: r.created_at.toISOString(),
});

const paymentJson = (r: PaymentRecord): PaymentJson => ({
  id: r.id,
  contact_id: r.contact_id,
  campaign_id: r.campaign_id,
  amount: decimalText(r.amount),
  currency: r.currency,
  external_id: r.external_id,
  attribution: r.attribution,
  occurred_at: r.occurred_at.toISOString(),
  created_at: r.created_at.toISOString(),
});

/**
 * Conversions and payments, attributed to a campaign: by the click token the visitor carried,
 * else by the campaign named, else by the contact's last click within the window.
 */
export class AttributionService {
  private readonly transactions: Transactions;
  private readonly db: Db;
  private readonly signer: TokenSigner;
  private readonly windowDays: number;

  /**
   * `db` reads on the ORM's connection; `transactions` gives a write a connection of its own,
   * since its events are COPYed in its transaction.
   */
  constructor(transactions: Transactions, db: Db, signer: TokenSigner, windowDays: number) {
    this.transactions = transactions;
    this.db = db;
    this.signer = signer;
    this.windowDays = windowDays;
  }

  /** `created` is false when `external_id` repeats an earlier conversion (which is answered). */
  async createConversion(accountId: string, input: ConversionInput): Promise<{ created: boolean; conversion: ConversionJson }> {
    if ((input.value === undefined) !== (input.currency === undefined)) {
      throw validationFailed([{ pointer: input.value === undefined ? '/value' : '/currency', detail: 'value and currency go together' }]);
    }
    return this.transactions.run(async (db) => {
      const externalId = input.external_id;
      if (externalId) {
        const existing = await this.existingConversion(db, accountId, externalId);
        if (existing) return { created: false, conversion: conversionJson(existing) };
      }
      const contactId = await this.contact(db, accountId, input);
      const occurredAt = input.occurred_at ? new Date(input.occurred_at) : new Date();
      const attribution = await this.attribute(db, accountId, contactId, occurredAt, input.campaign_id, input.click_token);
      const row = await insertConversion(db, {
        id: newId('cnv'),
        account_id: accountId,
        contact_id: contactId,
        campaign_id: attribution.campaignId,
        type: input.type,
        value: input.value ?? null,
        currency: input.currency ?? null,
        affiliate_id: input.affiliate_id ?? null,
        external_id: externalId ?? null,
        attribution: attribution.how,
        occurred_at: occurredAt,
      });
      // A concurrent request with the same external_id won the insert: answer its conversion.
      if (!row) return { created: false, conversion: conversionJson(await this.existingConversionOrThrow(db, accountId, externalId)) };
      const conversion = conversionJson(row);
      const events: PendingEvent[] = [{ type: 'conversion.created', data: { conversion } }];
      if (conversion.affiliate_id) events.push({ type: 'affiliate.conversion', data: { affiliate_id: conversion.affiliate_id, conversion } });
      await append(db, accountId, events);
      return { created: true, conversion };
    });
  }

  async createPayment(accountId: string, input: PaymentInput): Promise<{ created: boolean; payment: PaymentJson }> {
    return this.transactions.run(async (db) => {
      const existing = await this.existingPayment(db, accountId, input.external_id);
      if (existing) return { created: false, payment: paymentJson(existing) };
      const contactId = await this.contact(db, accountId, input);
      const occurredAt = input.occurred_at ? new Date(input.occurred_at) : new Date();
      const attribution = await this.attribute(db, accountId, contactId, occurredAt, input.campaign_id, undefined);
      const row = await insertPayment(db, {
        id: newId('pay'),
        account_id: accountId,
        contact_id: contactId,
        campaign_id: attribution.campaignId,
        amount: input.amount,
        currency: input.currency,
        external_id: input.external_id,
        // Without a click token, attribution is never by one.
        attribution: attribution.how === 'click_token' ? 'campaign_id' : attribution.how,
        occurred_at: occurredAt,
      });
      if (!row) {
        const winner = await this.existingPayment(db, accountId, input.external_id);
        if (!winner) throw new Error('a payment conflicted with one that is not there');
        return { created: false, payment: paymentJson(winner) };
      }
      const payment = paymentJson(row);
      await append(db, accountId, [{ type: 'payment.received', data: { payment } }]);
      return { created: true, payment };
    });
  }

  async listConversions(accountId: string, filters: AttributionFilters, limit: number, cursor?: string): Promise<Page<ConversionJson>> {
    let query = this.db.selectFrom('conversions').selectAll();
    if (filters.type) query = query.where('type', '=', filters.type);
    const rows = await recentRecords(query, accountId, filters, limit, cursor).execute();
    return toPage(rows, limit, (r) => ({ at: r.occurred_at, id: r.id }), conversionJson);
  }

  async listPayments(accountId: string, filters: AttributionFilters, limit: number, cursor?: string): Promise<Page<PaymentJson>> {
    const rows = await recentRecords(this.db.selectFrom('payments').selectAll(), accountId, filters, limit, cursor).execute();
    return toPage(rows, limit, (r) => ({ at: r.occurred_at, id: r.id }), paymentJson);
  }

  private existingConversion(db: Db, accountId: string, externalId: string): Promise<ConversionRecord | undefined> {
    return db.selectFrom('conversions').selectAll().where('account_id', '=', accountId).where('external_id', '=', externalId).executeTakeFirst();
  }

  private async existingConversionOrThrow(db: Db, accountId: string, externalId: string | undefined): Promise<ConversionRecord> {
    const row = externalId === undefined ? undefined : await this.existingConversion(db, accountId, externalId);
    if (!row) throw new Error('a conversion conflicted with one that is not there');
    return row;
  }

  private existingPayment(db: Db, accountId: string, externalId: string): Promise<PaymentRecord | undefined> {
    return db.selectFrom('payments').selectAll().where('account_id', '=', accountId).where('external_id', '=', externalId).executeTakeFirst();
  }

  private async contact(db: Db, accountId: string, input: { contact_id?: string; email?: string }): Promise<string> {
    if (!input.contact_id && !input.email) throw validationFailed([{ pointer: '/contact_id', detail: 'give contact_id or email' }]);
    const query = db.selectFrom('contacts').select('id').where('account_id', '=', accountId);
    const row = input.contact_id
      ? await query.where('id', '=', input.contact_id).executeTakeFirst()
      : await query.where(sql<boolean>`lower(email) = lower(${(input.email ?? '').trim()})`).executeTakeFirst();
    if (!row) {
      throw new Problem(422, 'contact_not_found', 'No contact of this account has that id or email.', {
        errors: [{ pointer: input.contact_id ? '/contact_id' : '/email', detail: 'no such contact' }],
      });
    }
    return row.id;
  }

  private async attribute(db: Db, accountId: string, contactId: string, at: Date, campaignId?: string, clickToken?: string): Promise<Attribution> {
    if (clickToken) {
      const token = this.signer.verify(clickToken.replace(/^.*\/t\/c\//, ''));
      if (token?.kind !== 'click')
        throw new Problem(422, 'invalid_click_token', 'The click token is not one this server signed.', {
          errors: [{ pointer: '/click_token', detail: 'not a valid click token' }],
        });
      const { rows } = await sql<{ campaign_id: string }>`select campaign_id from messages where id = ${token.messageId} and account_id = ${accountId}`.execute(
        db,
      );
      if (!rows.length)
        throw new Problem(422, 'invalid_click_token', 'The click token names no message of this account.', {
          errors: [{ pointer: '/click_token', detail: 'unknown message' }],
        });
      return { campaignId: rows[0].campaign_id, how: 'click_token' };
    }
    if (campaignId) {
      const campaign = await db.selectFrom('campaigns').select('id').where('id', '=', campaignId).where('account_id', '=', accountId).executeTakeFirst();
      if (!campaign)
        throw new Problem(422, 'campaign_not_found', 'No campaign of this account has that id.', {
          errors: [{ pointer: '/campaign_id', detail: 'no such campaign' }],
        });
      return { campaignId, how: 'campaign_id' };
    }
    const click = await db
      .selectFrom('clicks')
      .select('campaign_id')
      .where('contact_id', '=', contactId)
      .where('account_id', '=', accountId)
      .where('occurred_at', '<=', at)
      .where('occurred_at', '>', new Date(at.getTime() - this.windowDays * 86_400_000))
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return click ? { campaignId: click.campaign_id, how: 'last_click' } : { campaignId: null, how: 'none' };
  }
}
