import { groupByAccount } from '../db/by-account.ts';
import { LockMode } from '@mikro-orm/core';
import { sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { EntityManager } from '../db/orm.ts';
import type { Transactions } from '../db/transactions.ts';
import { sqlOf, statement, type Database, type Db } from '../db/kysely.ts';
import { keysetPage, OLDEST_FIRST } from '../db/keyset.ts';
import { append } from '../events/outbox.ts';
import type { Cursor } from '../contract/pagination.ts';
import { Campaign, type CampaignRow, type CampaignWinner, type MessageStatus } from './entities.ts';
import { campaignEventData, campaignStats } from './json.ts';
import { transition as nextStatus, type CampaignAction, type CampaignStatus } from './state.ts';
import { audiences } from './audience.ts';
import type { CampaignSendTime } from './send-time.ts';
import { waitMs } from './ab-test.ts';
import type { CampaignCounts, EngagementFirsts } from '../tracking/campaign-records.ts';

/**
 * The campaigns aggregate's store: the only code that writes `campaigns` and `messages`.
 * Counters: `sent`, `delivered`, `deferred`, `failed` and `bounced` change here only
 * (`campaigns.addSendCounts`); `opened`, `clicked`, `unsubscribed` and `complained` only in
 * `addEngagementCounts`, which tracking calls as it records hits and feedback.
 */

type MessageColumns = Selectable<Database['messages']>;
type ContactColumns = Selectable<Database['contacts']>;

/**
 * Tells every process, as the pause or cancel commits, to stop handing the campaign's messages
 * to the relay (`sendline_campaign_halts`, heard by each process's EventListener).
 */
async function announceHalt(tx: EntityManager, campaignId: string): Promise<void> {
  await sql`select pg_notify('sendline_campaign_halts', ${campaignId})`.execute(sqlOf(tx));
}

/** A claimed message, with what rendering needs of its contact (null: the contact was deleted). */
export type ClaimedMessage = Pick<MessageColumns, 'id' | 'contact_id' | 'email' | 'attempts' | 'variant'> & {
  first_name: ContactColumns['first_name'];
  last_name: ContactColumns['last_name'];
  tags: ContactColumns['tags'] | null;
  attributes: ContactColumns['attributes'] | null;
  contact_status: ContactColumns['status'] | null;
};

/** Which end of `GET /campaigns` comes first, by `(created_at, id)`. */
export type CampaignOrder = 'oldest' | 'newest';

/** A message as `GET /campaigns/{id}/messages` lists it. */
export type ListedMessage = Pick<
  MessageColumns,
  'id' | 'campaign_id' | 'contact_id' | 'email' | 'status' | 'variant' | 'reason' | 'attempts' | 'sent_at' | 'opened_at' | 'clicked_at' | 'created_at'
>;

/** What became of one message of a batch. */
export interface MessageOutcome {
  id: string;
  status: Exclude<MessageStatus, 'sending' | 'sent'>;
  reason: string | null;
  nextAttemptAt: Date | null;
  /** The relay accepted it: `sent_at` is set. */
  sent: boolean;
}

/** The outcome of a message written with it: one of an audience's piece. */
export interface NewMessageOutcome extends MessageOutcome {
  contactId: string;
  email: string;
}

export interface SendCounts {
  sent: number;
  delivered: number;
  deferred: number;
  failed: number;
  bounced: number;
}

/** Per-action details a transition records. */
export interface TransitionDetails {
  scheduledAt?: Date;
  /** A schedule's wall-clock time, if it has one. */
  sendTime?: CampaignSendTime | null;
  /** On start: the zone of contacts without one, for a campaign sent in each contact's time zone. */
  accountTimeZone?: string;
  /** Why a campaign failed. */
  reason?: string;
}

export const campaigns = {
  byId(em: EntityManager, accountId: string, id: string): Promise<CampaignRow | null> {
    return em.findOne(Campaign, { id, accountId });
  },

  /** The account's campaign, locked for the rest of `tx`'s transaction. */
  lock(tx: EntityManager, id: string, accountId: string): Promise<CampaignRow | null> {
    return tx.findOne(Campaign, { id, accountId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  },

  /** One page in `(created_at, id)` order, or its reverse, read as plain rows: a list needs no identity map. */
  async page(
    transactions: Transactions,
    accountId: string,
    status: CampaignStatus | undefined,
    order: CampaignOrder,
    after: Cursor | null,
    limit: number,
  ): Promise<CampaignRow[]> {
    const direction = order === 'newest' ? 'desc' : 'asc';
    let query = statement
      .selectFrom('campaigns')
      .select([
        'id',
        'account_id as accountId',
        'name',
        'subject',
        'from_email as fromEmail',
        'from_name as fromName',
        'reply_to as replyTo',
        'content',
        'text_content as textContent',
        'content_source as contentSource',
        'preheader',
        'audience',
        'track_opens as trackOpens',
        'track_clicks as trackClicks',
        'web_version_link as webVersionLink',
        'archive',
        'archive_meta as archiveMeta',
        'variants',
        'ab_test as abTest',
        'test_phase as testPhase',
        'test_decides_at as testDecidesAt',
        'winner',
        'status',
        'failure_reason as failureReason',
        'scheduled_at as scheduledAt',
        'send_time as sendTime',
        'send_time_set_at as sendTimeSetAt',
        'started_at as startedAt',
        'completed_at as completedAt',
        'recipients',
        'sent',
        'delivered',
        'deferred',
        'failed',
        'bounced',
        'opened',
        'clicked',
        'unsubscribed',
        'complained',
        'topic_id as topicId',
        'created_at as createdAt',
        'updated_at as updatedAt',
        'template_id as templateId',
        'template_version as templateVersion',
        'template_data as templateData',
      ])
      .where('account_id', '=', accountId);
    if (status) query = query.where('status', '=', status);
    return transactions.prepared(keysetPage(query, { at: 'created_at', id: 'id', direction }, after, limit));
  },

  create(em: EntityManager, data: Partial<CampaignRow> & Pick<CampaignRow, 'id' | 'accountId' | 'name' | 'subject' | 'fromEmail' | 'content'>): CampaignRow {
    return em.create(Campaign, data as CampaignRow);
  },

  remove(em: EntityManager, campaign: CampaignRow): void {
    em.remove(campaign);
  },

  /**
   * Moves a campaign locked in `tx` (`campaigns.lock`) through the state machine (409 when the
   * move is not allowed), with what the move does besides: the audience snapshotted on start,
   * pending messages cancelled on cancel, and the move's event, all in the same transaction.
   */
  async transition(tx: EntityManager, campaign: CampaignRow, action: CampaignAction, details: TransitionDetails = {}): Promise<CampaignRow> {
    campaign.status = nextStatus(campaign.status, action);
    const data = () => campaignEventData(campaign);
    switch (action) {
      case 'schedule':
        if (!details.scheduledAt) throw new Error('scheduling needs a time');
        campaign.scheduledAt = details.scheduledAt;
        campaign.sendTime = details.sendTime ?? null;
        campaign.sendTimeSetAt = details.sendTime ? new Date() : null;
        await append(tx, campaign.accountId, [{ type: 'campaign.scheduled', data: { ...data(), scheduled_at: details.scheduledAt.toISOString() } }]);
        break;
      case 'unschedule':
        campaign.scheduledAt = null;
        campaign.sendTime = null;
        campaign.sendTimeSetAt = null;
        break;
      case 'start':
        campaign.startedAt = new Date();
        if (campaign.variants) campaign.testPhase = 'testing';
        await tx.flush();
        campaign.recipients = await audiences.start(sqlOf(tx), campaign, details.accountTimeZone ?? 'UTC');
        await append(tx, campaign.accountId, [{ type: 'campaign.started', data: data() }]);
        break;
      case 'pause':
        await append(tx, campaign.accountId, [{ type: 'campaign.paused', data: data() }]);
        await announceHalt(tx, campaign.id);
        break;
      case 'resume':
        campaign.failureReason = null;
        await append(tx, campaign.accountId, [{ type: 'campaign.resumed', data: data() }]);
        break;
      case 'cancel':
        campaign.scheduledAt = null;
        await messages.cancelPending(sqlOf(tx), campaign.accountId, campaign.id);
        await audiences.close(sqlOf(tx), campaign.accountId, campaign.id);
        await append(tx, campaign.accountId, [{ type: 'campaign.cancelled', data: data() }]);
        await announceHalt(tx, campaign.id);
        break;
      case 'complete':
        campaign.completedAt = new Date();
        await append(tx, campaign.accountId, [{ type: 'campaign.completed', data: { ...data(), stats: campaignStats(campaign) } }]);
        break;
      case 'fail':
        if (!details.reason) throw new Error('failing needs a reason');
        campaign.failureReason = details.reason;
        await append(tx, campaign.accountId, [{ type: 'campaign.failed', data: { ...data(), reason: details.reason } }]);
        break;
    }
    return campaign;
  },

  async status(db: Db, accountId: string, id: string): Promise<CampaignStatus | null> {
    const row = await db.selectFrom('campaigns').select('status').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return row?.status ?? null;
  },

  /** Adds a recorded batch's outcomes to the campaign's counters. */
  async addSendCounts(tx: Db, accountId: string, id: string, counts: SendCounts): Promise<void> {
    await tx
      .updateTable('campaigns')
      .set((eb) => ({
        sent: eb('sent', '+', counts.sent),
        delivered: eb('delivered', '+', counts.delivered),
        deferred: eb('deferred', '+', counts.deferred),
        failed: eb('failed', '+', counts.failed),
        bounced: eb('bounced', '+', counts.bounced),
        updated_at: sql<Date>`now()`,
      }))
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  },

  /**
   * Campaigns that need send jobs: every `sending` one, except those sent in each contact's time
   * zone while all their messages wait for a local time more than a minute away.
   */
  async sendingIds(db: Db): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      select c.id from campaigns c
      where c.status = 'sending' and c.test_phase is distinct from 'waiting' and (
        not coalesce((c.send_time->>'by_contact_timezone')::boolean, false)
        or ${pendingMessage(sql`c.account_id`, sql`c.id`, '1 minute')}
        or not ${pendingMessage(sql`c.account_id`, sql`c.id`, null)})`.execute(db);
    return rows.map((r) => r.id);
  },

  /** Where the campaign's A/B test is (null: none, or not started). */
  async testPhase(db: Db, accountId: string, id: string): Promise<CampaignRow['testPhase']> {
    const row = await db.selectFrom('campaigns').select('test_phase').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return row?.test_phase ?? null;
  },

  /** The test group is all sent: the test waits for its results until `ab_test.wait` from now. */
  startWaiting(campaign: CampaignRow): void {
    campaign.testPhase = 'waiting';
    campaign.testDecidesAt = new Date(Date.now() + waitMs(campaign.abTest!));
  },

  /**
   * The winner is chosen (in `tx`, the campaign locked): the rest of the audience, if any, is
   * sent that variant from now.
   */
  async decide(tx: EntityManager, campaign: CampaignRow, winner: CampaignWinner): Promise<void> {
    campaign.winner = winner;
    campaign.testPhase = 'decided';
    campaign.testDecidesAt = null;
    if (campaign.abTest!.test_percent < 100) await audiences.reopen(sqlOf(tx), campaign.accountId, campaign.id);
  },

  /** Sending campaigns whose test waited long enough to pick its winner by itself (a split of the whole audience always does). */
  testsDue(db: Db, limit: number): Promise<{ id: string; account_id: string }[]> {
    return db
      .selectFrom('campaigns')
      .select(['id', 'account_id'])
      .where('test_phase', '=', 'waiting')
      .where('status', '=', 'sending')
      .where('test_decides_at', '<=', sql<Date>`now()`)
      .where(sql<SqlBool>`((ab_test->>'auto_send_winner')::boolean or (ab_test->>'test_percent')::int = 100)`)
      .orderBy('test_decides_at')
      .limit(limit)
      .execute();
  },

  /** Scheduled campaigns whose time has come, earliest first. */
  dueScheduled(db: Db, limit: number): Promise<{ id: string; account_id: string }[]> {
    return db
      .selectFrom('campaigns')
      .select(['id', 'account_id'])
      .where('status', '=', 'scheduled')
      .where('scheduled_at', '<=', sql<Date>`now()`)
      .orderBy('scheduled_at')
      .limit(limit)
      .execute();
  },
};

/**
 * Whether the campaign has a message still to send, due within `within` (null: whenever); one
 * seek in `messages_due`. With its account (null: unknown), on one shard under Citus.
 */
const pendingMessage = (accountId: RawBuilder<unknown>, campaignId: RawBuilder<unknown>, within: string | null) => sql<SqlBool>`exists (
  select 1 from messages m where m.account_id = ${accountId} and m.campaign_id = ${campaignId} and m.status in ('queued', 'deferred', 'sending')
    ${within === null ? sql`` : sql`and coalesce(m.next_attempt_at, '-infinity') <= now() + ${within}::interval`})`;

export const messages = {
  /** Messages of every campaign due to be sent now: a walk of the `messages_due` index. */
  async dueCount(db: Db): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from messages where status in ('queued', 'deferred') and coalesce(next_attempt_at, '-infinity') <= now()`.execute(db);
    return rows[0].n;
  },

  /** Whether a message of the campaign is due now (one seek in `messages_due`): a claim otherwise walks every message waiting. */
  async dueNow(db: Db, accountId: string, campaignId: string): Promise<boolean> {
    const { rows } = await sql<{ due: boolean }>`select ${pendingMessage(sql`${accountId}`, sql`${campaignId}`, '0 seconds')} as due`.execute(db);
    return rows[0].due;
  },

  /** Whether every message still to send waits for a local time more than a minute away (and there is one). */
  async allWaiting(db: Db, accountId: string, campaignId: string): Promise<boolean> {
    const { rows } = await sql<{ waiting: boolean }>`
      select not ${pendingMessage(sql`${accountId}`, sql`${campaignId}`, '1 minute')} and ${pendingMessage(sql`${accountId}`, sql`${campaignId}`, null)} as waiting`.execute(
      db,
    );
    return rows[0].waiting;
  },

  async cancelPending(tx: Db, accountId: string, campaignId: string): Promise<void> {
    await tx
      .updateTable('messages')
      .set({ status: 'cancelled', next_attempt_at: null })
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId)
      .where('status', 'in', ['queued', 'deferred'])
      .execute();
  },

  page(db: Db, accountId: string, campaignId: string, status: MessageStatus | undefined, after: Cursor | null, limit: number): Promise<ListedMessage[]> {
    let query = db
      .selectFrom('messages')
      .select(['id', 'campaign_id', 'contact_id', 'email', 'status', 'variant', 'reason', 'attempts', 'sent_at', 'opened_at', 'clicked_at', 'created_at'])
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId);
    if (status) query = query.where('status', '=', status);
    return keysetPage(query, OLDEST_FIRST, after, limit).execute();
  },

  /**
   * Claims up to `size` messages after `cursor` (an id; '' for the start): queued ones, deferred
   * ones due again, and ones a dead worker held longer than `leaseSeconds`. SKIP LOCKED: no
   * message goes to two workers. The cursor matters: the claimable index keeps entries of sent
   * messages until vacuum, and a scan from the start would step over all of them each time.
   */
  async claim(db: Db, accountId: string, campaignId: string, cursor: string, size: number, leaseSeconds: number): Promise<ClaimedMessage[]> {
    const { rows } = await sql<ClaimedMessage>`
      with claimed as (
        update messages m set status = 'sending', claimed_at = now(), attempts = m.attempts + 1
        where m.account_id = ${accountId} and m.id = any(array(
          select id from messages
          where account_id = ${accountId} and campaign_id = ${campaignId} and id > ${cursor} and (
            (status = 'queued' and (next_attempt_at is null or next_attempt_at <= now()))
            or (status = 'deferred' and next_attempt_at <= now())
            or (status = 'sending' and claimed_at < now() - make_interval(secs => ${leaseSeconds}))
          )
          order by id limit ${size}
          for update skip locked
        ))
        returning m.id, m.contact_id, m.email, m.attempts, m.variant
      )
      select claimed.*, c.first_name, c.last_name, c.tags, c.attributes, c.status as contact_status
      from claimed left join lateral (
        select first_name, last_name, tags, attributes, status from contacts where account_id = ${accountId} and id = claimed.contact_id) c on true
      order by claimed.id`.execute(db);
    return rows;
  },

  /** Puts claimed messages back untouched (the relay failed, not the recipients). */
  async release(db: Db, accountId: string, ids: string[]): Promise<void> {
    await db
      .updateTable('messages')
      .set((eb) => ({ status: 'queued', claimed_at: null, attempts: eb('attempts', '-', 1) }))
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
  },

  /** Writes a batch's outcomes in one statement. A message put back (`queued`) gives back its attempt. */
  async recordOutcomes(tx: Db, accountId: string, batch: MessageOutcome[]): Promise<void> {
    if (!batch.length) return;
    // The clock as a row: Citus refuses now() inside a CASE of a statement that changes rows.
    await sql`
      with clock as (select now() as now)
      update messages m set status = u.status, reason = u.reason, next_attempt_at = u.next_at, claimed_at = null,
        sent_at = case when u.sent then clock.now else m.sent_at end,
        bounced_at = case when u.status = 'bounced' then clock.now else m.bounced_at end,
        attempts = case when u.status = 'queued' then m.attempts - 1 else m.attempts end
      from clock, unnest(${batch.map((o) => o.id)}::text[], ${batch.map((o) => o.status)}::text[], ${batch.map((o) => o.reason)}::text[],
                  ${batch.map((o) => o.nextAttemptAt)}::timestamptz[], ${batch.map((o) => o.sent)}::boolean[]) as u(id, status, reason, next_at, sent)
      where m.account_id = ${accountId} and m.id = u.id`.execute(tx);
  },

  /**
   * Writes a piece's messages once, with their outcomes, in one statement. A message put back
   * (`queued`: the relay failed it alone) has no attempt yet and waits for the claim. A contact
   * deleted while its message was out is no longer named (as deleting does to its other
   * messages), and one erased meanwhile leaves no address either (as erasing does).
   */
  async insertOutcomes(tx: Db, accountId: string, campaignId: string, batch: NewMessageOutcome[], variant: string | null): Promise<void> {
    if (!batch.length) return;
    await sql`
      with clock as (select now() as now)
      insert into messages (id, account_id, campaign_id, contact_id, email, status, reason, attempts, next_attempt_at, sent_at, bounced_at, variant)
      select u.id, ${accountId}, ${campaignId}, c.id,
        case when c.id is null and exists (
          -- An erased address is kept as its hash alone; an entry there before it keeps its own source.
          select 1 from suppressions s
          where s.account_id = ${accountId} and s.email_hash = sendline_email_hash(u.email) and s.email is null) then '' else u.email end,
        u.status, u.reason, case when u.status = 'queued' then 0 else 1 end, u.next_at,
        case when u.sent then clock.now end, case when u.status = 'bounced' then clock.now end, ${variant}::text
      from clock, unnest(${batch.map((o) => o.id)}::text[], ${batch.map((o) => o.contactId)}::text[], ${batch.map((o) => o.email)}::text[],
                  ${batch.map((o) => o.status)}::text[], ${batch.map((o) => o.reason)}::text[], ${batch.map((o) => o.nextAttemptAt)}::timestamptz[],
                  ${batch.map((o) => o.sent)}::boolean[]) as u(id, contact_id, email, status, reason, next_at, sent)
      left join contacts c on c.account_id = ${accountId} and c.id = u.contact_id`.execute(tx);
  },

  /** How many messages the campaign has. */
  async count(db: Db, accountId: string, campaignId: string): Promise<number> {
    const row = await db
      .selectFrom('messages')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId)
      .executeTakeFirstOrThrow();
    return row.n;
  },

  /** Whether any message of the campaign may still be sent. */
  async hasPending(db: Db, accountId: string, campaignId: string): Promise<boolean> {
    const row = await db
      .selectFrom('messages')
      .select('id')
      .where('account_id', '=', accountId)
      .where('campaign_id', '=', campaignId)
      .where('status', 'in', ['queued', 'deferred', 'sending'])
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },
};

// ---- What tracking reports: engagement on messages and the campaign's counters

export async function markEngaged(db: Db, list: EngagementFirsts[]): Promise<void> {
  for (const [accountId, ofAccount] of groupByAccount(list, (m) => m.accountId)) {
    await sql`update messages m set opened_at = coalesce(m.opened_at, u.opened_at), human_opened_at = coalesce(m.human_opened_at, u.human_opened_at),
        clicked_at = coalesce(m.clicked_at, u.clicked_at), clicked_links = array(select jsonb_array_elements_text(u.links)::int)
      from unnest(${ofAccount.map((m) => m.id)}::text[], ${ofAccount.map((m) => m.openedAt)}::timestamptz[], ${ofAccount.map((m) => m.humanOpenedAt)}::timestamptz[],
        ${ofAccount.map((m) => m.clickedAt)}::timestamptz[], ${ofAccount.map((m) => JSON.stringify(m.clickedLinks))}::jsonb[])
        as u(id, opened_at, human_opened_at, clicked_at, links)
      where m.account_id = ${accountId} and m.id = u.id`.execute(db);
  }
}

export async function markBounced(db: Db, accountId: string, messageId: string, reason: string | null, at: Date): Promise<void> {
  await sql`update messages set status = 'bounced', reason = ${reason}, bounced_at = ${at} where account_id = ${accountId} and id = ${messageId}`.execute(db);
}

/** True for the message's first complaint. */
export async function markComplained(db: Db, accountId: string, messageId: string, at: Date): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    update messages set complained_at = ${at} where account_id = ${accountId} and id = ${messageId} and complained_at is null returning id`.execute(db);
  return rows.length > 0;
}

export async function markUnsubscribed(db: Db, accountId: string, messageId: string): Promise<void> {
  await sql`update messages set unsubscribed_at = now() where account_id = ${accountId} and id = ${messageId}`.execute(db);
}

/** The campaign's own counters that tracking keeps (`stats` in the API). */
export async function addEngagementCounts(db: Db, accountId: string, campaignId: string, c: CampaignCounts): Promise<void> {
  await db
    .updateTable('campaigns')
    .set((eb) => ({
      opened: eb('opened', '+', c.opened ?? 0),
      clicked: eb('clicked', '+', c.clicked ?? 0),
      bounced: eb('bounced', '+', c.bounced ?? 0),
      complained: eb('complained', '+', c.complained ?? 0),
      unsubscribed: eb('unsubscribed', '+', c.unsubscribed ?? 0),
      updated_at: sql<Date>`now()`,
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', campaignId)
    .execute();
}

// ---- Erasure (GDPR): messages keep their status and counts, not the person's address.

/** Messages to the contact or its address lose both; answers how many. */
export async function eraseRecipient(db: Db, accountId: string, contactId: string, email: string): Promise<number> {
  const rows = await db
    .updateTable('messages')
    .set({ email: '', contact_id: null })
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('contact_id', '=', contactId), eb(sql<string>`lower(email)`, '=', email.toLowerCase())]))
    .returning('id')
    .execute();
  return rows.length;
}

/** Messages to contacts being deleted keep their address, no longer tied to the contact. */
export async function releaseMessagesOf(db: Db, accountId: string, contactIds: readonly string[]): Promise<void> {
  await db
    .updateTable('messages')
    .set({ contact_id: null })
    .where('account_id', '=', accountId)
    .where('contact_id', '=', sql<string>`any(${contactIds}::text[])`)
    .execute();
}

/** Campaigns of a topic being deleted keep no topic. */
export async function clearTopic(db: Db, accountId: string, topicId: string): Promise<void> {
  await db.updateTable('campaigns').set({ topic_id: null }).where('account_id', '=', accountId).where('topic_id', '=', topicId).execute();
}

/** The messages of a campaign being deleted (see `ForgetCampaign`). */
export async function deleteMessagesOf(db: Db, accountId: string, campaignId: string): Promise<void> {
  await db.deleteFrom('messages').where('account_id', '=', accountId).where('campaign_id', '=', campaignId).execute();
}

// ---- The public pages: a message's web version and the account's archive.

export const archive = {
  /** A campaign message, as its web version finds it. */
  async messageOf(
    db: Db,
    id: string,
  ): Promise<{ id: string; account_id: string; campaign_id: string; contact_id: string | null; variant: string | null } | null> {
    const row = await db.selectFrom('messages').select(['id', 'account_id', 'campaign_id', 'contact_id', 'variant']).where('id', '=', id).executeTakeFirst();
    return row ?? null;
  },

  /** The account's campaigns published to its archive and sent, newest first (`campaigns_archive`). */
  published(em: EntityManager, accountId: string, limit: number): Promise<CampaignRow[]> {
    return em.find(Campaign, { accountId, archive: true, startedAt: { $ne: null } }, { orderBy: { startedAt: 'desc', id: 'desc' }, limit });
  },
};
