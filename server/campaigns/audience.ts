import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { freezeSegments, frozenSegmentsCondition, type FrozenSegments } from '../segments/service.ts';
import type { AudienceFilter, CampaignRow } from './entities.ts';

/**
 * A campaign's audience: the contacts created before it started that are subscribed, not on the
 * suppression list, still in the campaign's topic and matching its filter, lists and segments.
 * The `send` request counts them and keeps what chooses them (`campaign_audiences`); the send job
 * writes their messages a batch at a time (`messages.writeNext`), each contact checked when its
 * turn comes. This module is the only code that writes `campaign_audiences`.
 */

/** What chooses the audience, kept as it was at the start for the whole send. */
export interface AudienceDefinition {
  filter: AudienceFilter;
  topicId: string | null;
  segments: FrozenSegments | null;
}

/** An audience whose messages are still being written, locked by the transaction that writes the next ones. */
export interface OpenAudience {
  campaignId: string;
  accountId: string;
  definition: AudienceDefinition;
  frozenAt: Date;
  /** The last contact written, in `(created_at, id)` order; null before the first. */
  after: { createdAt: Date; id: string } | null;
}

const jsonArray = (items: string[] | undefined) => (items?.length ? JSON.stringify(items) : null);

/** Whether the contact aliased `c` (of the audience's account) belongs to the audience. */
export function audienceCondition(accountId: string, definition: AudienceDefinition): RawBuilder<SqlBool> {
  const { filter, topicId, segments } = definition;
  const [anyOf, allOf, noneOf] = [filter.tags_any, filter.tags_all, filter.exclude_tags].map(jsonArray);
  // Lists and segments together make one audience: a contact in any of them.
  const sources = [];
  if (filter.list_ids?.length)
    sources.push(sql<SqlBool>`exists (
          select 1 from list_members m
          where m.contact_id = c.id and m.status = 'subscribed' and m.account_id = c.account_id
            and m.list_id = any(${filter.list_ids}::text[]))`);
  if (segments) sources.push(frozenSegmentsCondition(segments, accountId, '/audience/segment_ids'));
  const inSources = sources.length ? sql<SqlBool>`(${sql.join(sources, sql` or `)})` : sql<SqlBool>`true`;
  return sql<SqlBool>`c.account_id = ${accountId} and c.status = 'subscribed'
    and not exists (select 1 from suppressions s where s.account_id = c.account_id and s.email_hash = sendline_email_hash(c.email))
    and (${topicId}::text is null or not exists (select 1 from contact_topic_optouts o where o.topic_id = ${topicId} and o.contact_id = c.id))
    and (${anyOf}::jsonb is null or c.tags && array(select jsonb_array_elements_text(${anyOf}::jsonb)))
    and (${allOf}::jsonb is null or c.tags @> array(select jsonb_array_elements_text(${allOf}::jsonb)))
    and (${noneOf}::jsonb is null or not c.tags && array(select jsonb_array_elements_text(${noneOf}::jsonb)))
    and ${inSources}`;
}

export const audiences = {
  /**
   * Freezes the campaign's audience at its start, in the start's transaction: what chooses it,
   * and the time that bounds it. Answers how many contacts it has now (the campaign's
   * `recipients` until its messages are all written).
   */
  async start(tx: Db, campaign: CampaignRow): Promise<number> {
    const filter = campaign.audience ?? {};
    const definition: AudienceDefinition = {
      filter,
      topicId: campaign.topicId ?? null,
      segments: filter.segment_ids?.length ? await freezeSegments(tx, campaign.accountId, filter.segment_ids) : null,
    };
    const { rows } = await sql<{ frozen_at: Date }>`
      insert into campaign_audiences (campaign_id, account_id, definition, frozen_at)
      values (${campaign.id}, ${campaign.accountId}, ${JSON.stringify(definition)}::jsonb, now())
      returning frozen_at`.execute(tx);
    const count = await sql<{ n: number }>`
      select count(*)::int as n from contacts c
      where c.created_at <= ${rows[0].frozen_at} and ${audienceCondition(campaign.accountId, definition)}`.execute(tx);
    return count.rows[0].n;
  },

  /** The audience while messages remain to be written, locked until `tx` ends; null once they are all written. */
  async lockOpen(tx: Db, campaignId: string): Promise<OpenAudience | null> {
    const row = await tx
      .selectFrom('campaign_audiences')
      .select(['campaign_id', 'account_id', 'definition', 'frozen_at', 'after_created_at', 'after_id'])
      .where('campaign_id', '=', campaignId)
      .where('done_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return null;
    return {
      campaignId: row.campaign_id,
      accountId: row.account_id,
      definition: row.definition,
      frozenAt: row.frozen_at,
      after: row.after_created_at && row.after_id ? { createdAt: row.after_created_at, id: row.after_id } : null,
    };
  },

  /** Moves the cursor past the contacts just written; `done` when none are left. */
  async advance(tx: Db, campaignId: string, last: { createdAt: Date; id: string } | null, written: number, done: boolean): Promise<void> {
    await tx
      .updateTable('campaign_audiences')
      .set((eb) => ({
        ...(last ? { after_created_at: last.createdAt, after_id: last.id } : {}),
        written: eb('written', '+', written),
        done_at: done ? sql<Date>`now()` : null,
      }))
      .where('campaign_id', '=', campaignId)
      .execute();
  },

  /** No more messages are written (a cancelled campaign). */
  async close(tx: Db, campaignId: string): Promise<void> {
    await tx
      .updateTable('campaign_audiences')
      .set({ done_at: sql<Date>`now()` })
      .where('campaign_id', '=', campaignId)
      .where('done_at', 'is', null)
      .execute();
  },

  /** Whether messages remain to be written. */
  async isOpen(db: Db, campaignId: string): Promise<boolean> {
    const row = await db
      .selectFrom('campaign_audiences')
      .select('campaign_id')
      .where('campaign_id', '=', campaignId)
      .where('done_at', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** How many messages the audience wrote; null for a campaign started before audiences were written in pieces. */
  async written(db: Db, campaignId: string): Promise<number | null> {
    const row = await db.selectFrom('campaign_audiences').select('written').where('campaign_id', '=', campaignId).executeTakeFirst();
    return row?.written ?? null;
  },
};
