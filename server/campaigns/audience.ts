import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { freezeSegments, frozenSegmentsCondition } from '../segments/service.ts';
import type { AudienceDefinition, CampaignRow } from './entities.ts';
import { LOCAL_TIME_PASSED, type CampaignSendTime } from './send-time.ts';

/**
 * A campaign's audience: the contacts created before it started that are subscribed, not on the
 * suppression list, still in the campaign's topic and matching its filter, lists and segments.
 * The `send` request counts them and keeps what chooses them (`campaign_audiences`); the send job
 * takes them a piece at a time (`campaign_audience_pieces`, until the piece's messages are
 * recorded), each contact checked when its turn comes. This module is the only code that writes
 * both tables.
 */

/** A contact's place in the audience's `(created_at, id)` order. */
export interface AudiencePosition {
  createdAt: Date;
  id: string;
}

interface Audience {
  campaignId: string;
  accountId: string;
  definition: AudienceDefinition;
  frozenAt: Date;
  /** The last contact taken into a piece; null before the first. */
  after: AudiencePosition | null;
}

/** A contact of a piece, with what rendering needs. */
export interface AudienceContact {
  id: string;
  email: string;
  created_at: Date;
  first_name: string | null;
  last_name: string | null;
  tags: string[];
  attributes: Record<string, unknown>;
}

/** A piece taken by a worker: the contacts to send to, until `finish` or `release`. */
export interface AudiencePiece {
  id: string;
  contacts: AudienceContact[];
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
          where m.contact_id = c.id and m.status = 'subscribed' and m.account_id = ${accountId}
            and m.list_id = any(${filter.list_ids}::text[]))`);
  if (segments) sources.push(frozenSegmentsCondition(segments, accountId, '/audience/segment_ids'));
  const inSources = sources.length ? sql<SqlBool>`(${sql.join(sources, sql` or `)})` : sql<SqlBool>`true`;
  return sql<SqlBool>`c.account_id = ${accountId} and c.status = 'subscribed'
    and not exists (select 1 from suppressions s where s.account_id = ${accountId} and s.email_hash = sendline_email_hash(c.email))
    and (${topicId}::text is null or not exists (select 1 from contact_topic_optouts o where o.account_id = ${accountId} and o.topic_id = ${topicId} and o.contact_id = c.id))
    and (${anyOf}::jsonb is null or c.tags && array(select jsonb_array_elements_text(${anyOf}::jsonb)))
    and (${allOf}::jsonb is null or c.tags @> array(select jsonb_array_elements_text(${allOf}::jsonb)))
    and (${noneOf}::jsonb is null or not c.tags && array(select jsonb_array_elements_text(${noneOf}::jsonb)))
    and ${inSources}`;
}

type AudienceRow = {
  campaign_id: string;
  account_id: string;
  definition: AudienceDefinition;
  frozen_at: Date;
  after_created_at: Date | null;
  after_id: string | null;
};

const audienceOf = (row: AudienceRow): Audience => ({
  campaignId: row.campaign_id,
  accountId: row.account_id,
  definition: row.definition,
  frozenAt: row.frozen_at,
  after: row.after_created_at && row.after_id ? { createdAt: row.after_created_at, id: row.after_id } : null,
});

const after = (position: AudiencePosition | null) =>
  position ? sql<SqlBool>`(c.created_at, c.id) > (${position.createdAt}, ${position.id})` : sql<SqlBool>`true`;

/**
 * The audience's contacts after `from` (up to `last`), at most `size` (null: all), in order; `unsent`: only
 * those that have no message of the campaign yet (a piece taken again).
 */
async function contactsOf(
  tx: Db,
  audience: Audience,
  range: { from: AudiencePosition | null; last?: AudiencePosition; unsent?: boolean },
  size: number | null,
): Promise<AudienceContact[]> {
  const { rows } = await sql<AudienceContact>`
    select c.id, c.email, c.created_at, c.first_name, c.last_name, c.tags, c.attributes
    from contacts c
    where c.created_at <= ${audience.frozenAt} and ${after(range.from)}
      and ${range.last ? sql<SqlBool>`(c.created_at, c.id) <= (${range.last.createdAt}, ${range.last.id})` : sql<SqlBool>`true`}
      and ${audienceCondition(audience.accountId, audience.definition)}
      and ${range.unsent || audience.definition.afterTest ? sql<SqlBool>`not exists (select 1 from messages m where m.account_id = c.account_id and m.contact_id = c.id and m.campaign_id = ${audience.campaignId})` : sql<SqlBool>`true`}
    order by c.created_at, c.id
    limit ${size ?? sql`all`}`.execute(tx);
  return rows;
}

/** What chooses the campaign's audience now, its segments' rules as they are. */
async function definitionOf(db: Db, campaign: CampaignRow): Promise<AudienceDefinition> {
  const filter = campaign.audience ?? {};
  return {
    filter,
    topicId: campaign.topicId ?? null,
    segments: filter.segment_ids?.length ? await freezeSegments(db, campaign.accountId, filter.segment_ids) : null,
  };
}

/** How many contacts the audience has, of those created until `until` (null: all). */
async function countOf(db: Db, accountId: string, definition: AudienceDefinition, until: Date | null): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from contacts c
    where ${until ? sql<SqlBool>`c.created_at <= ${until}` : sql<SqlBool>`true`} and ${audienceCondition(accountId, definition)}`.execute(db);
  return rows[0].n;
}

/**
 * A campaign sent in each contact's time zone writes all its messages at its start, each
 * `queued` until its contact's local time (`next_attempt_at`; the claim waits for it), or
 * `cancelled` when that time came before the campaign was scheduled and late contacts are
 * skipped. A zone PostgreSQL does not know falls back to the account's, then to UTC. Answers how
 * many messages it wrote.
 */
async function writeTimedMessages(
  tx: Db,
  campaign: CampaignRow,
  definition: AudienceDefinition,
  timing: { sendTime: CampaignSendTime; accountZone: string; setAt: Date },
): Promise<number> {
  const { sendTime, accountZone, setAt } = timing;
  const skipLate = sendTime.late_policy === 'skip';
  const { rows } = await sql<{ n: number }>`
    with zones as materialized (select distinct on (lower(name)) name, lower(name) as key from pg_timezone_names where name !~ '^(posix|right)/' order by lower(name), name),
    fallback as (select coalesce((select name from zones where key = lower(${accountZone})), 'UTC') as zone),
    timed as (
      select c.id, c.email, (${sendTime.local_time}::timestamp at time zone coalesce(z.name, f.zone)) as send_at
      from contacts c cross join fallback f left join zones z on z.key = lower(c.timezone)
      where c.created_at <= now() and ${audienceCondition(campaign.accountId, definition)}
    ),
    written as (
      insert into messages (id, account_id, campaign_id, contact_id, email, status, reason, next_attempt_at)
      select sendline_id('msg'), ${campaign.accountId}, ${campaign.id}, t.id, t.email,
        case when ${skipLate} and t.send_at < ${setAt} then 'cancelled' else 'queued' end,
        case when ${skipLate} and t.send_at < ${setAt} then ${LOCAL_TIME_PASSED} end,
        case when t.send_at > now() then t.send_at end
      from timed t
      returning 1
    )
    select count(*)::int as n from written`.execute(tx);
  return rows[0].n;
}

/**
 * An A/B test's test group: `test_percent` of the audience, drawn in an order random but fixed
 * for the campaign (the hash of its id and the contact's), written `queued` with the variants
 * in turn, so each gets an even share. Answers how many contacts the whole audience has.
 */
async function writeTestGroup(tx: Db, campaign: CampaignRow, definition: AudienceDefinition): Promise<number> {
  const names = campaign.variants!.map((v) => v.name);
  // A data-modifying CTE runs whether or not the statement reads it.
  const { rows } = await sql<{ total: number }>`
    with drawn as (
      select c.id, c.email, row_number() over (order by md5(${campaign.id} || c.id), c.id) as n, count(*) over () as total
      from contacts c
      where c.created_at <= now() and ${audienceCondition(campaign.accountId, definition)}
    ),
    written as (
      insert into messages (id, account_id, campaign_id, contact_id, email, status, variant)
      select sendline_id('msg'), ${campaign.accountId}, ${campaign.id}, d.id, d.email, 'queued', (${names}::text[])[((d.n - 1) % ${names.length}) + 1]
      from drawn d where d.n <= round(d.total * ${campaign.abTest!.test_percent} / 100.0)
    )
    select coalesce(max(total), 0)::int as total from drawn`.execute(tx);
  return rows[0].total;
}

export const audiences = {
  /**
   * Freezes the campaign's audience at its start, in the start's transaction: what chooses it,
   * and the time that bounds it. Answers how many contacts it has now (the campaign's
   * `recipients` until it completes).
   */
  async start(tx: Db, campaign: CampaignRow, accountZone: string): Promise<number> {
    const definition = await definitionOf(tx, campaign);
    const { sendTime } = campaign;
    const timed = sendTime?.by_contact_timezone === true;
    // Both write their messages now: every one of a timed campaign, an A/B test's test group (the rest waits for the winner).
    const writtenNow = timed || campaign.variants !== null;
    const { rows } = await sql<{ frozen_at: Date }>`
      insert into campaign_audiences (campaign_id, account_id, definition, frozen_at, done_at)
      values (${campaign.id}, ${campaign.accountId}, ${JSON.stringify(definition)}::jsonb, now(), ${writtenNow ? sql`now()` : null})
      returning frozen_at`.execute(tx);
    if (timed) return writeTimedMessages(tx, campaign, definition, { sendTime, accountZone, setAt: campaign.sendTimeSetAt ?? new Date() });
    if (campaign.variants) return writeTestGroup(tx, campaign, definition);
    return countOf(tx, campaign.accountId, definition, rows[0].frozen_at);
  },

  /** How many contacts the campaign's audience has now, as `start` would count them; nothing is kept. */
  async count(db: Db, campaign: CampaignRow): Promise<number> {
    return countOf(db, campaign.accountId, await definitionOf(db, campaign), null);
  },

  /**
   * Takes the audience's next `size` contacts as a piece, in a transaction that holds the
   * audience (other workers on the campaign wait for that moment, never for mail going out);
   * null once every contact was taken.
   */
  async takeNext(tx: Db, accountId: string, campaignId: string, size: number): Promise<AudiencePiece | null> {
    const row = await tx
      .selectFrom('campaign_audiences')
      .select(['campaign_id', 'account_id', 'definition', 'frozen_at', 'after_created_at', 'after_id'])
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId)
      .where('done_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return null;
    const audience = audienceOf(row);
    const contacts = await contactsOf(tx, audience, { from: audience.after }, size);
    const last = contacts.at(-1);
    if (!last) {
      await tx
        .updateTable('campaign_audiences')
        .set({ done_at: sql<Date>`now()` })
        .where('account_id', '=', accountId)
        .where('campaign_id', '=', campaignId)
        .execute();
      return null;
    }
    const piece = await tx
      .insertInto('campaign_audience_pieces')
      .values({
        account_id: row.account_id,
        campaign_id: campaignId,
        after_created_at: audience.after?.createdAt ?? null,
        after_id: audience.after?.id ?? null,
        last_created_at: last.created_at,
        last_id: last.id,
        taken_at: sql<Date>`now()`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .updateTable('campaign_audiences')
      .set({ after_created_at: last.created_at, after_id: last.id })
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId)
      .execute();
    return { id: String(piece.id), contacts };
  },

  /**
   * A piece whose worker stopped before recording it (given back, or held past `leaseSeconds`),
   * taken again for its contacts that still have no message; null when there is none.
   */
  async takeAbandoned(tx: Db, accountId: string, campaignId: string, leaseSeconds: number): Promise<AudiencePiece | null> {
    const { rows } = await sql<
      AudienceRow & { piece_id: string; from_created_at: Date | null; from_id: string | null; last_created_at: Date; last_id: string }
    >`
      with piece as (
        update campaign_audience_pieces p set taken_at = now()
        where p.account_id = ${accountId} and p.id = (
          select id from campaign_audience_pieces
          where account_id = ${accountId} and campaign_id = ${campaignId} and (taken_at is null or taken_at < now() - make_interval(secs => ${leaseSeconds}))
          order by id limit 1
          for update skip locked)
        returning p.id, p.campaign_id, p.after_created_at, p.after_id, p.last_created_at, p.last_id
      )
      select piece.id::text as piece_id, piece.after_created_at as from_created_at, piece.after_id as from_id, piece.last_created_at, piece.last_id,
        a.campaign_id, a.account_id, a.definition, a.frozen_at, a.after_created_at, a.after_id
      from piece join campaign_audiences a on a.account_id = ${accountId} and a.campaign_id = piece.campaign_id`.execute(tx);
    const row = rows[0];
    if (!row) return null;
    const from = row.from_created_at && row.from_id ? { createdAt: row.from_created_at, id: row.from_id } : null;
    const last = { createdAt: row.last_created_at, id: row.last_id };
    // All of its range: a piece was at most the batch size of the worker that took it.
    return { id: row.piece_id, contacts: await contactsOf(tx, audienceOf(row), { from, last, unsent: true }, null) };
  },

  /** Takes the audience up again from its start for the contacts without a message: the rest of an A/B test. */
  async reopen(tx: Db, accountId: string, campaignId: string): Promise<void> {
    await tx
      .updateTable('campaign_audiences')
      .set({ done_at: null, after_created_at: null, after_id: null, definition: sql`definition || '{"afterTest": true}'::jsonb` })
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId)
      .execute();
  },

  /** The piece's messages are recorded (in `tx`, with them). */
  async finish(tx: Db, accountId: string, pieceId: string): Promise<void> {
    await tx.deleteFrom('campaign_audience_pieces').where('account_id', '=', accountId).where('id', '=', pieceId).execute();
  },

  /** Gives a piece back untouched (the relay failed, not the recipients): the next worker takes it again at once. */
  async release(db: Db, accountId: string, pieceId: string): Promise<void> {
    await db.updateTable('campaign_audience_pieces').set({ taken_at: null }).where('account_id', '=', accountId).where('id', '=', pieceId).execute();
  },

  /** No more of the audience is sent (a cancelled campaign). */
  async close(tx: Db, accountId: string, campaignId: string): Promise<void> {
    await tx
      .updateTable('campaign_audiences')
      .set({ done_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId)
      .where('done_at', 'is', null)
      .execute();
    await tx.deleteFrom('campaign_audience_pieces').where('account_id', '=', accountId).where('campaign_id', '=', campaignId).execute();
  },

  /** Whether contacts remain to be taken, or pieces to be recorded. */
  async hasWork(db: Db, accountId: string, campaignId: string): Promise<boolean> {
    const { rows } = await sql<{ work: boolean }>`
      select exists (select 1 from campaign_audiences where account_id = ${accountId} and campaign_id = ${campaignId} and done_at is null)
        or exists (select 1 from campaign_audience_pieces where account_id = ${accountId} and campaign_id = ${campaignId}) as work`.execute(db);
    return rows[0].work;
  },

  /** Whether the campaign's messages were written as it sent (false: all at its start, by an earlier release). */
  async exists(db: Db, accountId: string, campaignId: string): Promise<boolean> {
    const row = await db
      .selectFrom('campaign_audiences')
      .select('campaign_id')
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return row !== undefined;
  },
};
