import { inTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import { decimalText } from '../db/decimal.ts';
import { newId } from '../db/ids.ts';
import type { PendingEvent } from '../events/outbox.ts';
import { append } from '../events/store.ts';
import { recentPage, type Conditions } from '../db/recent.ts';
import { Problem, validationFailed } from '../http/problem.ts';
import type { TokenSigner } from '../tracking/tokens.ts';

export interface ConversionInput {
  contact_id?: string;
  email?: string;
  campaign_id?: string;
  click_token?: string;
  type: string;
  value?: string;
  currency?: string;
  affiliate_id?: string;
  external_id?: string;
  occurred_at?: string;
}

export interface PaymentInput {
  contact_id?: string;
  email?: string;
  amount: string;
  currency: string;
  external_id: string;
  campaign_id?: string;
  occurred_at?: string;
}

export interface AttributionFilters {
  contact_id?: string;
  campaign_id?: string;
  since?: string;
  until?: string;
  type?: string;
}

type Attribution = { campaignId: string | null; how: 'click_token' | 'campaign_id' | 'last_click' | 'none' };

const conversionJson = (r: Record<string, any>) => ({
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

const paymentJson = (r: Record<string, any>) => ({
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
  private readonly pool: Pool;
  private readonly signer: TokenSigner;
  private readonly windowDays: number;

  constructor(pool: Pool, signer: TokenSigner, windowDays: number) {
    this.pool = pool;
    this.signer = signer;
    this.windowDays = windowDays;
  }

  /** `created` is false when `external_id` repeats an earlier conversion (which is answered). */
  async createConversion(accountId: string, input: ConversionInput) {
    if ((input.value === undefined) !== (input.currency === undefined)) {
      throw validationFailed([{ pointer: input.value === undefined ? '/value' : '/currency', detail: 'value and currency go together' }]);
    }
    return inTransaction(this.pool, async (client) => {
      if (input.external_id) {
        const existing = await this.existing(client, 'conversions', accountId, input.external_id);
        if (existing) return { created: false, conversion: conversionJson(existing) };
      }
      const contactId = await this.contact(client, accountId, input);
      const occurredAt = input.occurred_at ? new Date(input.occurred_at) : new Date();
      const attribution = await this.attribute(client, accountId, contactId, occurredAt, input.campaign_id, input.click_token);
      const { rows: [row] } = await client.query(
        `insert into conversions (id, account_id, contact_id, campaign_id, type, value, currency, affiliate_id, external_id, attribution, occurred_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         on conflict (account_id, external_id) where external_id is not null do nothing returning *`,
        [newId('cnv'), accountId, contactId, attribution.campaignId, input.type, input.value ?? null, input.currency ?? null, input.affiliate_id ?? null, input.external_id ?? null, attribution.how, occurredAt],
      );
      // A concurrent request with the same external_id won the insert: answer its conversion.
      if (!row) return { created: false, conversion: conversionJson((await this.existing(client, 'conversions', accountId, input.external_id!))!) };
      const conversion = conversionJson(row);
      const events: PendingEvent[] = [{ type: 'conversion.created', data: { conversion } }];
      if (conversion.affiliate_id) events.push({ type: 'affiliate.conversion', data: { affiliate_id: conversion.affiliate_id, conversion } });
      await append(client, accountId, events);
      return { created: true, conversion };
    });
  }

  async createPayment(accountId: string, input: PaymentInput) {
    return inTransaction(this.pool, async (client) => {
      const existing = await this.existing(client, 'payments', accountId, input.external_id);
      if (existing) return { created: false, payment: paymentJson(existing) };
      const contactId = await this.contact(client, accountId, input);
      const occurredAt = input.occurred_at ? new Date(input.occurred_at) : new Date();
      const attribution = await this.attribute(client, accountId, contactId, occurredAt, input.campaign_id, undefined);
      const { rows: [row] } = await client.query(
        `insert into payments (id, account_id, contact_id, campaign_id, amount, currency, external_id, attribution, occurred_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict (account_id, external_id) do nothing returning *`,
        [newId('pay'), accountId, contactId, attribution.campaignId, input.amount, input.currency, input.external_id, attribution.how, occurredAt],
      );
      if (!row) return { created: false, payment: paymentJson((await this.existing(client, 'payments', accountId, input.external_id))!) };
      const payment = paymentJson(row);
      await append(client, accountId, [{ type: 'payment.received', data: { payment } }]);
      return { created: true, payment };
    });
  }

  listConversions(accountId: string, filters: AttributionFilters, limit: number, cursor?: string) {
    return this.list('conversions', conversionJson, accountId, filters, limit, cursor);
  }

  listPayments(accountId: string, filters: AttributionFilters, limit: number, cursor?: string) {
    return this.list('payments', paymentJson, accountId, filters, limit, cursor);
  }

  private list<T>(table: 'conversions' | 'payments', shape: (r: Record<string, any>) => T, accountId: string, f: AttributionFilters, limit: number, cursor?: string) {
    const conditions: Conditions = [
      ['contact_id = ?', f.contact_id],
      ['campaign_id = ?', f.campaign_id],
      ['occurred_at >= ?', f.since],
      ['occurred_at < ?', f.until],
      ['type = ?', table === 'conversions' ? f.type : undefined],
    ];
    return recentPage(this.pool, { table, columns: '*', accountId, conditions, limit, cursor }, shape);
  }

  private async existing(client: PoolClient, table: 'conversions' | 'payments', accountId: string, externalId: string) {
    const { rows } = await client.query(`select * from ${table} where account_id = $1 and external_id = $2`, [accountId, externalId]);
    return rows[0] ?? null;
  }

  private async contact(client: PoolClient, accountId: string, input: { contact_id?: string; email?: string }): Promise<string> {
    if (!input.contact_id && !input.email) throw validationFailed([{ pointer: '/contact_id', detail: 'give contact_id or email' }]);
    const { rows } = input.contact_id
      ? await client.query('select id from contacts where id = $1 and account_id = $2', [input.contact_id, accountId])
      : await client.query('select id from contacts where account_id = $1 and lower(email) = lower($2)', [accountId, input.email!.trim()]);
    if (!rows.length) {
      throw new Problem(422, 'contact_not_found', 'No contact of this account has that id or email.', { errors: [{ pointer: input.contact_id ? '/contact_id' : '/email', detail: 'no such contact' }] });
    }
    return rows[0].id;
  }

  private async attribute(client: PoolClient, accountId: string, contactId: string, at: Date, campaignId?: string, clickToken?: string): Promise<Attribution> {
    if (clickToken) {
      const token = this.signer.verify(clickToken.replace(/^.*\/t\/c\//, ''));
      if (token?.kind !== 'click') throw new Problem(422, 'invalid_click_token', 'The click token is not one this server signed.', { errors: [{ pointer: '/click_token', detail: 'not a valid click token' }] });
      const { rows } = await client.query('select campaign_id from messages where id = $1 and account_id = $2', [token.messageId, accountId]);
      if (!rows.length) throw new Problem(422, 'invalid_click_token', 'The click token names no message of this account.', { errors: [{ pointer: '/click_token', detail: 'unknown message' }] });
      return { campaignId: rows[0].campaign_id, how: 'click_token' };
    }
    if (campaignId) {
      const { rows } = await client.query('select id from campaigns where id = $1 and account_id = $2', [campaignId, accountId]);
      if (!rows.length) throw new Problem(422, 'campaign_not_found', 'No campaign of this account has that id.', { errors: [{ pointer: '/campaign_id', detail: 'no such campaign' }] });
      return { campaignId, how: 'campaign_id' };
    }
    const { rows } = await client.query(
      `select campaign_id from clicks where contact_id = $1 and account_id = $2 and occurred_at <= $3 and occurred_at > $3::timestamptz - make_interval(days => $4)
       order by occurred_at desc, id desc limit 1`,
      [contactId, accountId, at, this.windowDays],
    );
    return rows.length ? { campaignId: rows[0].campaign_id, how: 'last_click' } : { campaignId: null, how: 'none' };
  }
}
