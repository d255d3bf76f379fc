import type { components } from '../../generated/openapi.d.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { appendDispatched, envelopesByIds, type EnvelopeRecord } from '../events/dispatch.ts';
import { isEventPattern } from '../events/patterns.ts';
import { decodeCursor, toPage } from '../contract/pagination.ts';
import { notFound, Problem, validationFailed } from '../contract/problem.ts';
import { urlProblem } from './address-guard.ts';
import { attemptDelivery } from './deliverer.ts';
import type { DeliveryStatus } from './entities.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { newWebhookSecret } from './signing.ts';
import { eventEnvelope } from '../events/envelope.ts';
import * as store from './store.ts';
import type { DeliveryRecord, WebhookRecord } from './store.ts';

type Schemas = components['schemas'];
export type WebhookInput = Schemas['WebhookCreate'] | Schemas['WebhookReplace'];

/** The old secret keeps signing beside the new one this long after a rotation. */
const ROTATION_OVERLAP_HOURS = 24;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const deliveryJson = (d: DeliveryRecord): Schemas['WebhookDelivery'] => ({
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
export function signingSecrets(box: SecretBox, w: Pick<WebhookRecord, 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at'>): string[] {
  const secrets = [box.open(w.secret_sealed)];
  if (w.previous_secret_sealed && w.previous_secret_expires_at && w.previous_secret_expires_at > new Date()) secrets.push(box.open(w.previous_secret_sealed));
  return secrets;
}

const endpointFields = (input: WebhookInput): store.EndpointFields => ({
  url: input.url,
  description: input.description ?? null,
  events: input.events,
  active: input.active ?? true,
});

export class WebhookService {
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly box: SecretBox;
  private readonly settings: Config['webhooks'];

  constructor(db: Db, transactions: Transactions, box: SecretBox, settings: Config['webhooks']) {
    this.db = db;
    this.transactions = transactions;
    this.box = box;
    this.settings = settings;
  }

  async create(accountId: string, input: WebhookInput): Promise<Schemas['WebhookWithSecret']> {
    this.check(input);
    const secret = newWebhookSecret();
    const row = await store.insertWebhook(this.db, accountId, endpointFields(input), this.box.seal(secret));
    return { ...(await this.json(row)), secret };
  }

  async list(accountId: string, limit: number, cursor?: string): Promise<Schemas['WebhookPage']> {
    const rows = await store.listWebhooks(this.db, accountId, decodeCursor(cursor), limit);
    const page = toPage(
      rows,
      limit,
      (w) => ({ at: w.created_at, id: w.id }),
      (w) => w,
    );
    return { ...page, data: await this.withStats(accountId, page.data) };
  }

  async get(accountId: string, id: string): Promise<Schemas['Webhook']> {
    return this.json(await this.row(accountId, id));
  }

  async update(accountId: string, id: string, input: WebhookInput): Promise<Schemas['Webhook']> {
    this.check(input);
    const row = await store.replaceWebhook(this.db, accountId, id, endpointFields(input));
    if (!row) throw notFound('webhook');
    return this.json(row);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await store.deleteWebhook(this.db, accountId, id))) throw notFound('webhook');
  }

  async rotateSecret(accountId: string, id: string): Promise<Schemas['WebhookWithSecret']> {
    const secret = newWebhookSecret();
    const row = await store.rotateSecret(this.db, accountId, id, this.box.seal(secret), ROTATION_OVERLAP_HOURS);
    if (!row) throw notFound('webhook');
    return { ...(await this.json(row)), secret };
  }

  /** Sends a signed `webhook.test` event to this endpoint only, now, and answers the outcome. */
  async test(accountId: string, id: string): Promise<Schemas['WebhookTestResult']> {
    const webhook = await this.row(accountId, id);
    const event = await appendDispatched(this.db, accountId, {
      type: 'webhook.test',
      data: { webhook_id: id, message: 'This is a test event from Sendline.' },
    });
    const { outcome } = await this.deliverTest(webhook, event, null);
    return { success: outcome.success, status_code: outcome.statusCode, latency_ms: outcome.latencyMs, error: outcome.error };
  }

  /**
   * One attempt of a test event, recorded as its delivery (a new one, or `deliveryId` again) and
   * in the endpoint's last success or failure. Never retried on the schedule, never disables it.
   */
  private async deliverTest(webhook: WebhookRecord, event: EnvelopeRecord, deliveryId: string | null) {
    const outcome = await attemptDelivery(webhook.url, eventEnvelope(event), signingSecrets(this.box, webhook), { ...this.settings });
    const delivery = await this.transactions.run((tx) => store.recordTestAttempt(tx, webhook, event.id, deliveryId, outcome.success, outcome));
    return { outcome, delivery };
  }

  async deliveries(accountId: string, id: string, status: DeliveryStatus | undefined, limit: number, cursor?: string): Promise<Schemas['WebhookDeliveryPage']> {
    const rows = await store.listDeliveries(this.db, accountId, id, status, decodeCursor(cursor), limit);
    // Only an empty page needs the endpoint looked up: the account's deliveries to it show it is the account's.
    if (!rows.length) await this.row(accountId, id);
    return toPage(rows, limit, (d) => ({ at: d.created_at, id: d.id }), deliveryJson);
  }

  async retryDelivery(accountId: string, id: string, deliveryId: string): Promise<Schemas['WebhookDelivery']> {
    const webhook = await this.row(accountId, id);
    const testEventId = await store.testDeliveryEvent(this.db, accountId, id, deliveryId);
    const [test] = testEventId ? await envelopesByIds(this.db, [testEventId]) : [];
    // A test event is not on the retry schedule: it goes out again now, as it did the first time.
    if (test) return deliveryJson((await this.deliverTest(webhook, test, deliveryId)).delivery);
    const row = await store.requeueDelivery(this.db, accountId, id, deliveryId);
    if (!row) throw notFound('delivery');
    return deliveryJson(row);
  }

  async recover(accountId: string, id: string, since: string): Promise<Schemas['WebhookRecoverResult']> {
    await this.row(accountId, id);
    return { requeued: await store.requeueFailedSince(this.db, accountId, id, since) };
  }

  private check(input: WebhookInput): void {
    const problem = urlProblem(input.url, this.settings);
    if (problem) throw new Problem(422, problem.code, `The URL ${problem.detail}.`, { errors: [{ pointer: '/url', detail: problem.detail }] });
    const bad = input.events.map((e, i) => ({ e, i })).filter(({ e }) => !isEventPattern(e));
    if (bad.length)
      throw validationFailed(bad.map(({ e, i }) => ({ pointer: `/events/${i}`, detail: `"${e}" is not an event type, a category such as "email.*", or "*"` })));
  }

  private async row(accountId: string, id: string): Promise<WebhookRecord> {
    const row = await store.findWebhook(this.db, accountId, id);
    if (!row) throw notFound('webhook');
    return row;
  }

  private async json(w: WebhookRecord): Promise<Schemas['Webhook']> {
    return (await this.withStats(w.account_id, [w]))[0];
  }

  /** Webhooks as the API shows them, with their last day's delivery counts: one query for all. */
  private async withStats(accountId: string, webhooks: WebhookRecord[]): Promise<Schemas['Webhook'][]> {
    const counts = await store.recentDeliveryCounts(
      this.db,
      accountId,
      webhooks.map((w) => w.id),
    );
    const stats = new Map(counts.map((r) => [r.webhook_id, r]));
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
