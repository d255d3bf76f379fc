import type { Config } from '../config.ts';
import { newId } from '../db/ids.ts';
import { inTransaction, type Pool } from '../db/pool.ts';
import { isEventPattern } from '../events/patterns.ts';
import { decodeCursor, toPage } from '../http/pagination.ts';
import { notFound, Problem, validationFailed } from '../http/problem.ts';
import { urlProblem } from './address-guard.ts';
import { attemptDelivery } from './deliverer.ts';
import { newWebhookSecret, type SecretBox } from './signing.ts';
import { ENVELOPE_COLUMNS, eventEnvelope } from '../events/envelope.ts';

export interface WebhookInput {
  url: string;
  description?: string | null;
  events: string[];
  active?: boolean;
}

type Row = Record<string, any>;

/** The old secret keeps signing beside the new one this long after a rotation. */
const ROTATION_OVERLAP_HOURS = 24;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const deliveryJson = (d: Row) => ({
  id: d.id,
  webhook_id: d.webhook_id,
  event_id: d.event_id,
  event_type: d.event_type,
  status: d.status,
  attempts: d.attempts,
  status_code: d.status_code,
  latency_ms: d.latency_ms,
  response_excerpt: d.response_excerpt,
  error: d.error,
  next_retry_at: d.status === 'pending' ? iso(d.next_retry_at) : null,
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
});

/** Secrets a delivery is signed with: the current one, and the previous one during a rotation. */
export function signingSecrets(box: SecretBox, w: Row): string[] {
  const secrets = [box.open(w.secret_sealed)];
  if (w.previous_secret_sealed && w.previous_secret_expires_at > new Date()) secrets.push(box.open(w.previous_secret_sealed));
  return secrets;
}

export class WebhookService {
  private readonly pool: Pool;
  private readonly box: SecretBox;
  private readonly settings: Config['webhooks'];

  constructor(pool: Pool, box: SecretBox, settings: Config['webhooks']) {
    this.pool = pool;
    this.box = box;
    this.settings = settings;
  }

  async create(accountId: string, input: WebhookInput) {
    this.check(input);
    const secret = newWebhookSecret();
    const { rows: [row] } = await this.pool.query(
      `insert into webhooks (id, account_id, url, description, events, active, secret_sealed) values ($1, $2, $3, $4, $5, $6, $7) returning *`,
      [newId('wh'), accountId, input.url, input.description ?? null, input.events, input.active ?? true, this.box.seal(secret)],
    );
    return { ...(await this.json(row)), secret };
  }

  async list(accountId: string, limit: number, cursor?: string) {
    const after = decodeCursor(cursor);
    const { rows } = await this.pool.query(
      `select * from webhooks where account_id = $1 and ($2::timestamptz is null or (created_at, id) > ($2, $3)) order by created_at, id limit $4`,
      [accountId, after?.at ?? null, after?.id ?? null, limit + 1],
    );
    const page = toPage(rows, limit, (w) => ({ at: w.created_at, id: w.id }), (w) => w);
    return { ...page, data: await this.withStats(page.data) };
  }

  async get(accountId: string, id: string) {
    return this.json(await this.row(accountId, id));
  }

  async update(accountId: string, id: string, input: WebhookInput) {
    this.check(input);
    await this.row(accountId, id);
    const active = input.active ?? true;
    const { rows: [row] } = await this.pool.query(
      `update webhooks set url = $3, description = $4, events = $5, active = $6, updated_at = now(),
         disabled_reason = case when $6 then null else disabled_reason end, failing_since = case when $6 then null else failing_since end
       where id = $1 and account_id = $2 returning *`,
      [id, accountId, input.url, input.description ?? null, input.events, active],
    );
    return this.json(row);
  }

  async delete(accountId: string, id: string): Promise<void> {
    const { rowCount } = await this.pool.query('delete from webhooks where id = $1 and account_id = $2', [id, accountId]);
    if (!rowCount) throw notFound('webhook');
  }

  async rotateSecret(accountId: string, id: string) {
    await this.row(accountId, id);
    const secret = newWebhookSecret();
    const { rows: [row] } = await this.pool.query(
      `update webhooks set previous_secret_sealed = secret_sealed, previous_secret_expires_at = now() + make_interval(hours => $3),
         secret_sealed = $2, updated_at = now() where id = $1 returning *`,
      [id, this.box.seal(secret), ROTATION_OVERLAP_HOURS],
    );
    return { ...(await this.json(row)), secret };
  }

  /** Sends a signed `webhook.test` event to this endpoint only, now, and answers the outcome. */
  async test(accountId: string, id: string) {
    const webhook = await this.row(accountId, id);
    const { rows: [event] } = await this.pool.query(
      `insert into events (id, account_id, type, data, dispatched) values ($1, $2, 'webhook.test', $3, true) returning ${ENVELOPE_COLUMNS}`,
      [newId('evt'), accountId, { webhook_id: id, message: 'This is a test event from Sendline.' }],
    );
    const { outcome } = await this.deliverTest(webhook, event, null);
    return { success: outcome.success, status_code: outcome.statusCode, latency_ms: outcome.latencyMs, error: outcome.error };
  }

  /**
   * One attempt of a test event, recorded as its delivery (a new one, or `deliveryId` again) and
   * in the endpoint's last success or failure. Never retried on the schedule, never disables it.
   */
  private async deliverTest(webhook: Row, event: Row, deliveryId: string | null) {
    const outcome = await attemptDelivery(webhook.url, eventEnvelope(event), signingSecrets(this.box, webhook), { ...this.settings });
    const status = outcome.success ? 'succeeded' : 'failed';
    const delivery = await inTransaction(this.pool, async (client) => {
      await client.query(
        `update webhooks set last_success_at = case when $2 then now() else last_success_at end,
           last_failure_at = case when $2 then last_failure_at else now() end, updated_at = now() where id = $1`,
        [webhook.id, outcome.success],
      );
      const values = [status, outcome.statusCode, outcome.latencyMs, outcome.excerpt, outcome.error];
      const { rows: [row] } = deliveryId
        ? await client.query(
            `update webhook_deliveries set status = $2, attempts = attempts + 1, status_code = $3, latency_ms = $4, response_excerpt = $5, error = $6,
               next_retry_at = null, locked_until = null, updated_at = now() where id = $1 returning *`,
            [deliveryId, ...values],
          )
        : await client.query(
            `insert into webhook_deliveries (id, webhook_id, account_id, event_id, event_type, status, attempts, status_code, latency_ms, response_excerpt, error)
             values ($1, $2, $3, $4, 'webhook.test', $5, 1, $6, $7, $8, $9) returning *`,
            [newId('whd'), webhook.id, webhook.account_id, event.id, ...values],
          );
      return row;
    });
    return { outcome, delivery };
  }

  async deliveries(accountId: string, id: string, status: string | undefined, limit: number, cursor?: string) {
    await this.row(accountId, id);
    const after = decodeCursor(cursor);
    const { rows } = await this.pool.query(
      `select * from webhook_deliveries where webhook_id = $1 and ($2::text is null or status = $2)
         and ($3::timestamptz is null or (created_at, id) < ($3, $4)) order by created_at desc, id desc limit $5`,
      [id, status ?? null, after?.at ?? null, after?.id ?? null, limit + 1],
    );
    return toPage(rows, limit, (d) => ({ at: d.created_at, id: d.id }), deliveryJson);
  }

  async retryDelivery(accountId: string, id: string, deliveryId: string) {
    const webhook = await this.row(accountId, id);
    const { rows: [test] } = await this.pool.query(
      `select ${ENVELOPE_COLUMNS} from events
       where id = (select event_id from webhook_deliveries where id = $1 and webhook_id = $2 and event_type = 'webhook.test')`,
      [deliveryId, id],
    );
    // A test event is not on the retry schedule: it goes out again now, as it did the first time.
    if (test) return deliveryJson((await this.deliverTest(webhook, test, deliveryId)).delivery);
    const { rows: [row] } = await this.pool.query(
      `update webhook_deliveries set status = 'pending', next_retry_at = now(), locked_until = null, updated_at = now()
       where id = $1 and webhook_id = $2 and event_type <> 'webhook.test' returning *`,
      [deliveryId, id],
    );
    if (!row) throw notFound('delivery');
    return deliveryJson(row);
  }

  async recover(accountId: string, id: string, since: string) {
    await this.row(accountId, id);
    const { rowCount } = await this.pool.query(
      `update webhook_deliveries set status = 'pending', attempts = 0, next_retry_at = now(), locked_until = null, updated_at = now()
       where webhook_id = $1 and status = 'failed' and created_at >= $2 and event_type <> 'webhook.test'`,
      [id, since],
    );
    return { requeued: rowCount ?? 0 };
  }

  private check(input: WebhookInput): void {
    const problem = urlProblem(input.url, this.settings);
    if (problem) throw new Problem(422, problem.code, `The URL ${problem.detail}.`, { errors: [{ pointer: '/url', detail: problem.detail }] });
    const bad = input.events.map((e, i) => ({ e, i })).filter(({ e }) => !isEventPattern(e));
    if (bad.length) throw validationFailed(bad.map(({ e, i }) => ({ pointer: `/events/${i}`, detail: `"${e}" is not an event type, a category such as "email.*", or "*"` })));
  }

  private async row(accountId: string, id: string): Promise<Row> {
    const { rows: [row] } = await this.pool.query('select * from webhooks where id = $1 and account_id = $2', [id, accountId]);
    if (!row) throw notFound('webhook');
    return row;
  }

  private async json(w: Row) {
    return (await this.withStats([w]))[0];
  }

  /** Webhooks as the API shows them, with their last day's delivery counts: one query for all. */
  private async withStats(webhooks: Row[]) {
    const { rows } = await this.pool.query(
      `select webhook_id, count(*) filter (where status = 'succeeded')::int as delivered, count(*) filter (where status = 'failed')::int as failed
       from webhook_deliveries where webhook_id = any($1) and created_at > now() - interval '24 hours' group by webhook_id`,
      [webhooks.map((w) => w.id)],
    );
    const stats = new Map(rows.map((r) => [r.webhook_id, r]));
    return webhooks.map((w) => ({
      id: w.id,
      url: w.url,
      description: w.description,
      events: w.events,
      active: w.active,
      disabled_reason: w.disabled_reason,
      created_at: w.created_at.toISOString(),
      updated_at: w.updated_at.toISOString(),
      stats: {
        delivered_24h: stats.get(w.id)?.delivered ?? 0,
        failed_24h: stats.get(w.id)?.failed ?? 0,
        last_success_at: iso(w.last_success_at),
        last_failure_at: iso(w.last_failure_at),
      },
    }));
  }
}
