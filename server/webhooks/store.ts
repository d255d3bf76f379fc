import { sql, type Selectable, type SqlBool } from 'kysely';
import { newId } from '../db/ids.ts';
import type { Database, Db, Tx } from '../db/kysely.ts';
import { keysetPage, NEWEST_FIRST, OLDEST_FIRST } from '../db/keyset.ts';
import type { Cursor } from '../contract/pagination.ts';
import { MATCHES_SQL } from '../events/patterns.ts';
import type { DeliveryStatus } from './entities.ts';

/**
 * Every statement on `webhooks` and `webhook_deliveries`: the endpoints, and the deliveries of
 * events to them with the outcome of their last attempt.
 */

export type WebhookRecord = Selectable<Database['webhooks']>;
export type DeliveryRecord = Selectable<Database['webhook_deliveries']>;

/** What an endpoint is told to be, on creation and replacement. */
export interface EndpointFields {
  url: string;
  description: string | null;
  events: string[];
  active: boolean;
}

const anyOf = (values: readonly string[]) => sql<string>`any(${values})`;

// Endpoints

export function insertWebhook(db: Db, accountId: string, fields: EndpointFields, secretSealed: string): Promise<WebhookRecord> {
  return db
    .insertInto('webhooks')
    .values({ id: newId('wh'), account_id: accountId, ...fields, secret_sealed: secretSealed })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findWebhook(db: Db, accountId: string, id: string): Promise<WebhookRecord | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** A page of the account's endpoints in creation order after `after`, with one more than `limit` (`keysetPage`). */
export function listWebhooks(db: Db, accountId: string, after: Cursor | null, limit: number): Promise<WebhookRecord[]> {
  return keysetPage(db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId), OLDEST_FIRST, after, limit).execute();
}

/** Endpoints by id, whatever their account (the worker's view); ids not found are left out. */
export function webhooksByIds(db: Db, ids: readonly string[]): Promise<WebhookRecord[]> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', anyOf(ids)).execute();
}

/** Replaces what the endpoint is told to be; turning it on again clears why it was disabled. */
export function replaceWebhook(db: Db, accountId: string, id: string, fields: EndpointFields): Promise<WebhookRecord | undefined> {
  return db
    .updateTable('webhooks')
    .set({ ...fields, updated_at: sql`now()`, ...(fields.active ? { disabled_reason: null, failing_since: null } : {}) })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the endpoint and, by cascade, its deliveries; false when there was none. */
export async function deleteWebhook(db: Db, accountId: string, id: string): Promise<boolean> {
  const { numDeletedRows } = await db.deleteFrom('webhooks').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return numDeletedRows > 0n;
}

/** A new signing secret; the current one keeps signing beside it for `overlapHours`. */
export function rotateSecret(db: Db, accountId: string, id: string, secretSealed: string, overlapHours: number): Promise<WebhookRecord | undefined> {
  return db
    .updateTable('webhooks')
    .set((eb) => ({
      previous_secret_sealed: eb.ref('secret_sealed'),
      previous_secret_expires_at: sql<Date>`now() + make_interval(hours => ${overlapHours})`,
      secret_sealed: secretSealed,
      updated_at: sql`now()`,
    }))
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returningAll()
    .executeTakeFirst();
}

/** Deliveries of the last 24 hours per endpoint, succeeded and failed: one query for all. */
export function recentDeliveryCounts(db: Db, accountId: string, webhookIds: readonly string[]) {
  return db
    .selectFrom('webhook_deliveries')
    .select([
      'webhook_id',
      sql<number>`count(*) filter (where status = 'succeeded')::int`.as('delivered'),
      sql<number>`count(*) filter (where status = 'failed')::int`.as('failed'),
    ])
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', anyOf(webhookIds))
    .where('created_at', '>', sql<Date>`now() - interval '24 hours'`)
    .groupBy('webhook_id')
    .execute();
}

// Deliveries as the API shows and steers them

/** A page of the endpoint's deliveries, newest first, before `before`, with one more than `limit` (`keysetPage`). */
export function listDeliveries(
  db: Db,
  accountId: string,
  webhookId: string,
  status: DeliveryStatus | undefined,
  before: Cursor | null,
  limit: number,
): Promise<DeliveryRecord[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', accountId).where('webhook_id', '=', webhookId);
  if (status) query = query.where('status', '=', status);
  return keysetPage(query, NEWEST_FIRST, before, limit).execute();
}

/** The event of the endpoint's delivery when that delivery is of a `webhook.test`. */
export async function testDeliveryEvent(db: Db, accountId: string, webhookId: string, deliveryId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('event_id')
    .where('account_id', '=', accountId)
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .where('event_type', '=', 'webhook.test')
    .executeTakeFirst();
  return row?.event_id;
}

/** Puts a delivery back on the schedule, due now (test deliveries are never on it). */
export function requeueDelivery(db: Db, accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_retry_at: sql`now()`, locked_until: null, updated_at: sql`now()` })
    .where('account_id', '=', accountId)
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .where('event_type', '<>', 'webhook.test')
    .returningAll()
    .executeTakeFirst();
}

/** Every failed delivery of the endpoint created since `since` starts its schedule again now. */
export async function requeueFailedSince(db: Db, accountId: string, webhookId: string, since: string): Promise<number> {
  const { numUpdatedRows } = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_retry_at: sql`now()`, locked_until: null, updated_at: sql`now()` })
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'failed')
    .where('created_at', '>=', sql<Date>`${since}::timestamptz`)
    .where('event_type', '<>', 'webhook.test')
    .executeTakeFirst();
  return Number(numUpdatedRows);
}

/** What one attempt found. */
export interface AttemptRecord {
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
}

/**
 * A test event's single attempt, counted in the endpoint's last success or failure and kept as
 * its delivery: a new one, or `deliveryId` again. Never on the schedule; never disables it.
 */
export async function recordTestAttempt(
  tx: Tx,
  webhook: Pick<WebhookRecord, 'id' | 'account_id'>,
  eventId: string,
  deliveryId: string | null,
  success: boolean,
  attempt: AttemptRecord,
): Promise<DeliveryRecord> {
  await tx
    .updateTable('webhooks')
    .set(success ? { last_success_at: sql`now()`, updated_at: sql`now()` } : { last_failure_at: sql`now()`, updated_at: sql`now()` })
    .where('account_id', '=', webhook.account_id)
    .where('id', '=', webhook.id)
    .execute();
  const outcome = {
    status: success ? ('succeeded' as const) : ('failed' as const),
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    response_excerpt: attempt.excerpt,
    error: attempt.error,
  };
  if (deliveryId) {
    return tx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ ...outcome, attempts: eb('attempts', '+', 1), next_retry_at: null, locked_until: null, updated_at: sql`now()` }))
      .where('account_id', '=', webhook.account_id)
      .where('id', '=', deliveryId)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  return tx
    .insertInto('webhook_deliveries')
    .values({
      id: newId('whd'),
      webhook_id: webhook.id,
      account_id: webhook.account_id,
      event_id: eventId,
      event_type: 'webhook.test',
      attempts: 1,
      ...outcome,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

// Deliveries as the worker moves them

/**
 * One pending delivery, due now, per active endpoint of the event's account whose patterns match
 * its type; an event already fanned out to an endpoint is not again.
 */
export async function fanOut(tx: Tx, events: readonly { id: string; account_id: string; type: string }[]): Promise<void> {
  if (!events.length) return;
  await sql`
    insert into webhook_deliveries (id, webhook_id, account_id, event_id, event_type, status, next_retry_at)
    select sendline_id('whd'), w.id, e.account_id, e.id, e.type, 'pending', now()
    from unnest(${events.map((e) => e.id)}::text[], ${events.map((e) => e.account_id)}::text[], ${events.map((e) => e.type)}::text[]) as e(id, account_id, type)
    join webhooks w on w.account_id = e.account_id and w.active and e.type <> 'webhook.test' and ${sql.raw(MATCHES_SQL('w.events', 'e.type'))}
    on conflict (account_id, webhook_id, event_id) do nothing`.execute(tx);
}

export type ClaimedDelivery = Pick<DeliveryRecord, 'id' | 'account_id' | 'webhook_id' | 'event_id' | 'attempts'>;

export interface ClaimLimits {
  /** Deliveries one endpoint may hold in this process, those it holds already included. */
  perEndpoint: number;
  /** Deliveries this process holds per endpoint. */
  held: ReadonlyMap<string, number>;
  /** How long the claim lasts: a process that dies leaves its deliveries to others after it. */
  leaseSeconds: number;
  /** Deliveries to claim at most, over all endpoints. */
  total: number;
}

/**
 * Claims due deliveries of active endpoints, oldest first, at most `perEndpoint` per endpoint
 * counting those `held` already; deliveries another process holds (row lock or lease) are skipped.
 */
export async function claimDue(db: Db, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  // One account at a time (under Citus, one shard's), the accounts of the oldest due in turn.
  const due = (d: 'd' | 'x') => sql<SqlBool>`${sql.ref(`${d}.status`)} = 'pending' and ${sql.ref(`${d}.next_retry_at`)} <= now()
    and (${sql.ref(`${d}.locked_until`)} is null or ${sql.ref(`${d}.locked_until`)} < now())`;
  const { rows: oldest } = await sql<{ account_id: string }>`
    select d.account_id from webhook_deliveries d where ${due('d')} order by d.next_retry_at limit ${limits.total}`.execute(db);
  const claimed: ClaimedDelivery[] = [];
  for (const accountId of new Set(oldest.map((row) => row.account_id))) {
    if (claimed.length >= limits.total) break;
    const { rows } = await sql<ClaimedDelivery>`
      update webhook_deliveries d set locked_until = now() + make_interval(secs => ${limits.leaseSeconds})
      from (
        select id from (
          select c.id, row_number() over (partition by w.id order by c.next_retry_at) + coalesce((${JSON.stringify(Object.fromEntries(limits.held))}::jsonb ->> w.id)::int, 0) as slot
          from webhooks w cross join lateral (
            select x.id, x.next_retry_at from webhook_deliveries x
            where x.account_id = ${accountId} and x.webhook_id = w.id and ${due('x')}
            order by x.next_retry_at limit ${limits.perEndpoint}
            for update of x skip locked
          ) c
          where w.account_id = ${accountId} and w.active
        ) ranked
        where slot <= ${limits.perEndpoint}
        limit ${limits.total - claimed.length}
      ) picked
      where d.account_id = ${accountId} and d.id = picked.id
      returning d.id, d.account_id, d.webhook_id, d.event_id, d.attempts`.execute(db);
    claimed.push(...rows);
  }
  return claimed;
}

/** How an endpoint fared in a batch of attempts. */
export interface EndpointOutcome {
  accountId: string;
  webhookId: string;
  success: boolean;
  failure: boolean;
  /** It answered 410 Gone. */
  gone: boolean;
}

/** A delivery after its attempt: its status, and when it is tried again if it is. */
export interface DeliveryOutcome extends AttemptRecord {
  id: string;
  accountId: string;
  status: DeliveryStatus;
  attempts: number;
  retryInSeconds: number | null;
}

/**
 * Writes a batch of attempts: each endpoint's last success or failure, and its disabling (410
 * at once, `failing` after `disableAfterSeconds` without success); then each delivery's status
 * and next retry, releasing its claim.
 */
export async function recordAttempts(
  tx: Tx,
  endpoints: readonly EndpointOutcome[],
  deliveries: readonly DeliveryOutcome[],
  disableAfterSeconds: number,
): Promise<void> {
  // Endpoints first, in id order, as deleting an endpoint locks it and then its deliveries: the
  // same order on both sides, so the two never deadlock.
  const sorted = [...endpoints].sort((a, b) => (a.webhookId < b.webhookId ? -1 : a.webhookId > b.webhookId ? 1 : 0));
  // The clock as a row: Citus refuses now(), and time arithmetic, inside a CASE or COALESCE of a statement that changes rows.
  await sql`
    with clock as (select now() as now, now() - make_interval(secs => ${disableAfterSeconds}) as disable_before)
    update webhooks w set
      last_success_at = case when u.success then clock.now else w.last_success_at end,
      last_failure_at = case when u.failure then clock.now else w.last_failure_at end,
      failing_since = case when u.success then null when u.failure then coalesce(w.failing_since, clock.now) else w.failing_since end,
      active = case when u.gone or (not u.success and coalesce(w.failing_since, clock.now) <= clock.disable_before) then false else w.active end,
      disabled_reason = case when u.gone then 'gone' when not u.success and coalesce(w.failing_since, clock.now) <= clock.disable_before then 'failing' else w.disabled_reason end,
      updated_at = clock.now
    from clock, unnest(${sorted.map((e) => e.accountId)}::text[], ${sorted.map((e) => e.webhookId)}::text[], ${sorted.map((e) => e.success)}::boolean[],
      ${sorted.map((e) => e.failure)}::boolean[], ${sorted.map((e) => e.gone)}::boolean[]) as u(account_id, id, success, failure, gone)
    where w.account_id = u.account_id and w.id = u.id`.execute(tx);
  // The retry times are worked out in a CTE of their own, on the coordinator: Citus cannot send
  // time arithmetic on a column of the update to its workers.
  await sql`
    with u as materialized (
      select u.*, now() + make_interval(secs => u.retry_in) as next_retry_at, now() as now
      from unnest(${deliveries.map((d) => d.accountId)}::text[], ${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.status)}::text[], ${deliveries.map((d) => d.attempts)}::int[], ${deliveries.map((d) => d.statusCode)}::int[],
        ${deliveries.map((d) => d.latencyMs)}::int[], ${deliveries.map((d) => d.excerpt)}::text[], ${deliveries.map((d) => d.error)}::text[], ${deliveries.map((d) => d.retryInSeconds)}::float8[])
        as u(account_id, id, status, attempts, code, latency, excerpt, error, retry_in))
    update webhook_deliveries d set status = u.status, attempts = u.attempts, status_code = u.code, latency_ms = u.latency, response_excerpt = u.excerpt, error = u.error,
      next_retry_at = u.next_retry_at, locked_until = null, updated_at = u.now
    from u
    where d.account_id = u.account_id and d.id = u.id`.execute(tx);
}

// Sealed secrets, as a new key ring seals them again

/** Every endpoint's sealed secrets, for sealing again under the ring's current key. */
export function sealedSecrets(db: Db) {
  return db.selectFrom('webhooks').select(['id', 'secret_sealed', 'previous_secret_sealed']).execute();
}

/** Replaces an endpoint's sealed secrets while it still holds `read`: a rotation meanwhile wins. */
export async function resealSecrets(
  db: Db,
  id: string,
  read: { secret_sealed: string; previous_secret_sealed: string | null },
  sealed: { secret_sealed: string; previous_secret_sealed: string | null },
): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('webhooks')
    .set(sealed)
    .where('id', '=', id)
    .where('secret_sealed', '=', read.secret_sealed)
    .where(sql<boolean>`previous_secret_sealed is not distinct from ${read.previous_secret_sealed}`)
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

/** Erasure (GDPR): deliveries of deleted events go with them (a retry would have nothing to send). */
export async function deleteDeliveriesOf(db: Db, accountId: string, eventIds: readonly string[]): Promise<number> {
  if (!eventIds.length) return 0;
  const rows = await db.deleteFrom('webhook_deliveries').where('account_id', '=', accountId).where('event_id', 'in', eventIds).returning('id').execute();
  return rows.length;
}

/** Deliveries waiting to be sent (`pending`), and of them those that failed at least once (`failing`). */
export async function deliveryBacklog(db: Db): Promise<{ pending: number; failing: number }> {
  const { rows } = await sql<{ pending: number; failing: number }>`
    select count(*)::int as pending, (count(*) filter (where attempts > 0))::int as failing
    from webhook_deliveries where status = 'pending'`.execute(db);
  return rows[0];
}
