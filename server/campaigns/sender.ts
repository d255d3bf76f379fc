import { traced } from '../tracing/spans.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import { PER_ROW_LOOKUPS } from '../db/pool.ts';
import { sqlOf } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { sql } from 'kysely';
import type { PendingEvent } from '../events/types.ts';
import { append } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import { Campaign } from './entities.ts';
import { audiences } from './audience.ts';
import { campaigns, messages, type ClaimedMessage, type MessageOutcome, type SendCounts } from './store.ts';
import { TemplateThreadStopped, type TemplateThread } from '../rendering/template-thread.ts';
import { recordCampaignBounces, type OutcomeRecords, type SmtpBounce } from '../sending/records.ts';
import type { CampaignContent } from '../rendering/campaign-message.ts';
import { resolvedContent } from './service.ts';
import { variantContent } from './ab-test.ts';
import { Problem } from '../contract/problem.ts';
import { newId } from '../db/ids.ts';
import type { SendThreads, ThreadOutcome } from '../sending/send-threads.ts';
import type { SendingIdentities, SendingIdentity } from '../sending/identity.ts';
import { meaningOf } from '../sending/outcome.ts';
import { emailEventData } from '../events/envelope.ts';

type Result = { message: ClaimedMessage; outcome: ThreadOutcome | { kind: 'skipped'; reason: 'contact_deleted' | 'suppressed' } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends one campaign's queued messages, batch by batch, together with any other worker on the
 * same campaign: batches are claimed with SKIP LOCKED, so no message goes to two workers. A
 * message claimed by a worker that died is claimed again after the lease; at most the batches
 * in flight at the crash can be sent twice.
 */
export class CampaignSender {
  private readonly orm: Orm;
  private readonly transactions: Transactions;
  private readonly threads: SendThreads;
  private readonly templates: TemplateThread;
  private readonly settings: Config['sending'];
  private readonly log: Logger;
  private readonly records: OutcomeRecords;
  private readonly identities: SendingIdentities;
  private readonly metrics: Metrics;
  /** Each run's halt, by campaign: a pause or cancel stops the run's batch in flight. */
  private readonly halts = new Map<string, Set<AbortController>>();

  constructor(
    orm: Orm,
    transactions: Transactions,
    threads: SendThreads,
    templates: TemplateThread,
    settings: Config['sending'],
    log: Logger,
    records: OutcomeRecords,
    identities: SendingIdentities,
    metrics: Metrics,
  ) {
    this.orm = orm;
    this.transactions = transactions;
    this.threads = threads;
    this.templates = templates;
    this.settings = settings;
    this.log = log;
    this.records = records;
    this.identities = identities;
    this.metrics = metrics;
  }

  /**
   * The campaign was paused or cancelled: its runs in this process hand no more of their batches
   * to the relay (what is already on an SMTP connection finishes), record what they sent, and end.
   */
  halt(campaignId: string): void {
    for (const controller of this.halts.get(campaignId) ?? []) controller.abort();
  }

  /** Sends until the campaign is no longer `sending`, or `signal` stops the process: then answers `'interrupted'`. */
  async run(campaignId: string, signal: AbortSignal): Promise<'done' | 'interrupted'> {
    const halt = new AbortController();
    const runs = this.halts.get(campaignId) ?? new Set();
    this.halts.set(campaignId, runs.add(halt));
    try {
      return await this.send(campaignId, signal, halt.signal);
    } finally {
      runs.delete(halt);
      if (!runs.size) this.halts.delete(campaignId);
    }
  }

  private async send(campaignId: string, signal: AbortSignal, halt: AbortSignal): Promise<'done' | 'interrupted'> {
    const db = sqlOf(this.orm.em.fork());
    const campaign = await this.orm.em.fork().findOne(Campaign, { id: campaignId });
    if (campaign?.status !== 'sending') return 'done';
    this.log.info({ campaignId }, 'sending campaign');
    this.threads.warm();
    // A template campaign's version, resolved once for all its messages (it was frozen at start).
    const content = await resolvedContent(db, campaign).catch((e: unknown) => {
      if (e instanceof Problem) return `The campaign's template cannot be sent: ${e.errors?.map((f) => f.detail).join('; ') ?? e.message}`;
      throw e;
    });
    if (typeof content === 'string') {
      await this.fail(campaign.accountId, campaignId, content);
      return 'done';
    }
    // An A/B test's messages carry their variant's content; the others, the campaign's.
    const contents = new Map<string | null, CampaignContent>([[null, content]]);
    for (const variant of campaign.variants ?? []) contents.set(variant.name, variantContent(content, variant));
    // Templates are checked when saved; should one still not compile, stop rather than loop.
    // Compiled in the template thread: this thread also answers requests.
    for (const each of contents.values()) {
      const error = await this.templates.compileError(each).catch((e: Error) => (e instanceof TemplateThreadStopped ? e : e.message));
      // Stopping with the process: the campaign goes on after the restart.
      if (error instanceof TemplateThreadStopped) return 'interrupted';
      if (error !== null) {
        await this.fail(campaign.accountId, campaignId, `The campaign's templates do not compile: ${error}`);
        return 'done';
      }
    }
    // A run that started before its test's winner was chosen sends the test group only: the rest is the next run's.
    const beforeWinner = campaign.variants !== null && campaign.winner === null;
    const timed = campaign.sendTime?.by_contact_timezone === true;
    let cursor = '';
    let failingSince: number | null = null;
    while (!signal.aborted) {
      if (halt.aborted || (await campaigns.status(db, campaign.accountId, campaignId)) !== 'sending') return 'done';
      const piece = beforeWinner ? null : await this.takePiece(campaign.accountId, campaignId, campaign.winner?.variant ?? null);
      if (typeof piece === 'string') {
        await this.fail(campaign.accountId, campaignId, piece);
        return 'done';
      }
      let batch: ClaimedMessage[];
      if (piece) batch = piece.batch;
      else {
        // The audience is all sent: retries due, and messages given back by the relay. A campaign
        // sent in each contact's time zone claims only when a message is due.
        const claimable = !timed || (await messages.dueNow(db, campaign.accountId, campaignId));
        batch = claimable ? await messages.claim(db, campaign.accountId, campaignId, cursor, this.settings.batchSize, this.settings.leaseSeconds) : [];
        if (claimable && !batch.length && cursor)
          batch = await messages.claim(db, campaign.accountId, campaignId, '', this.settings.batchSize, this.settings.leaseSeconds);
        cursor = batch.at(-1)?.id ?? '';
      }
      if (!batch.length) {
        if (piece) await this.transactions.run((tx) => audiences.finish(tx, campaign.accountId, piece.id));
        else {
          const state = await this.tryComplete(campaign.accountId, campaignId);
          // Waiting for a test's results holds no job: the tick picks the winner and staffs the rest.
          if (state !== 'busy') return 'done';
          // Hours may pass before the next zone's local time: the tick staffs the campaign again a minute before.
          if (timed && (await messages.allWaiting(db, campaign.accountId, campaignId))) return 'done';
          // The winner came meanwhile: a run again takes the rest with it.
          if (beforeWinner && (await campaigns.testPhase(db, campaign.accountId, campaignId)) === 'decided') return 'interrupted';
          await sleep(250);
        }
        continue;
      }
      // Per batch, not per message: a key rotated or a domain lost meanwhile applies from the next batch.
      const identity = await this.identities.forAddress(campaign.accountId, content.fromEmail);
      const results = await traced('campaign batch send', { 'sendline.campaign_id': campaignId, 'sendline.messages': batch.length }, () =>
        this.deliverVariants(contents, batch, identity, halt),
      );
      const transportErrors = results.flatMap((r) => (r.outcome.kind === 'transport_error' ? [r.outcome.error] : []));
      if (transportErrors.length === results.length) {
        if (piece) await audiences.release(db, campaign.accountId, piece.id);
        else
          await messages.release(
            db,
            campaign.accountId,
            batch.map((m) => m.id),
          );
        cursor = '';
        failingSince ??= Date.now();
        const error = transportErrors[0];
        this.log.warn({ campaignId, error }, 'the relay is failing');
        if (Date.now() - failingSince > this.settings.failureSeconds * 1000) {
          await this.fail(campaign.accountId, campaignId, `The relay kept failing for ${this.settings.failureSeconds} s: ${error}`);
          return 'done';
        }
        await sleep(1000);
        continue;
      }
      failingSince = null;
      // A halt follows the pause's or cancel's commit: what it kept from the relay waits for a resume, or is cancelled.
      const haltedAs = halt.aborted && (await campaigns.status(db, campaign.accountId, campaignId)) === 'cancelled' ? 'cancelled' : 'queued';
      await traced('campaign batch record', { 'sendline.campaign_id': campaignId, 'sendline.messages': batch.length }, () =>
        this.record(campaign.accountId, campaignId, results, piece ? { id: piece.id, variant: campaign.winner?.variant ?? null } : null, haltedAs),
      );
    }
    return 'interrupted';
  }

  /**
   * The audience's next piece: one a stopped worker left, else the next contacts. Its messages
   * get their ids now and are written once, with their outcomes (`record`). Null once the
   * audience is all taken and recorded; a string says why the campaign cannot go on.
   */
  private takePiece(accountId: string, campaignId: string, variant: string | null): Promise<{ id: string; batch: ClaimedMessage[] } | null | string> {
    const size = this.settings.batchSize;
    return this.transactions
      .run(async (tx) => {
        const piece =
          (await audiences.takeAbandoned(tx, accountId, campaignId, this.settings.leaseSeconds)) ?? (await audiences.takeNext(tx, accountId, campaignId, size));
        if (!piece) return null;
        const batch = piece.contacts.map((c): ClaimedMessage => ({
          id: newId('msg'),
          contact_id: c.id,
          email: c.email,
          variant,
          attempts: 1,
          first_name: c.first_name,
          last_name: c.last_name,
          tags: c.tags,
          attributes: c.attributes,
          contact_status: 'subscribed',
        }));
        return { id: piece.id, batch };
      })
      .catch((e: unknown) => {
        if (e instanceof Problem) return `The campaign's audience cannot be read: ${e.errors?.map((f) => f.detail).join('; ') ?? e.message}`;
        throw e;
      });
  }

  /** A batch whose messages carry variants, each group with its variant's content; the results in the batch's order. */
  private async deliverVariants(
    contents: Map<string | null, CampaignContent>,
    batch: ClaimedMessage[],
    identity: SendingIdentity | null,
    halt: AbortSignal,
  ): Promise<Result[]> {
    const groups = Map.groupBy(batch.keys(), (i) => batch[i].variant ?? null);
    if (groups.size === 1) return this.deliver(contents.get(batch[0].variant ?? null) ?? contents.get(null)!, batch, identity, halt);
    const results = new Array<Result>(batch.length);
    await Promise.all(
      [...groups].map(async ([variant, indexes]) => {
        const sent = await this.deliver(
          contents.get(variant) ?? contents.get(null)!,
          indexes.map((i) => batch[i]),
          identity,
          halt,
        );
        indexes.forEach((i, n) => (results[i] = sent[n]));
      }),
    );
    return results;
  }

  /** Renders and sends a batch in the sending threads; contacts deleted or suppressed since the snapshot are skipped. */
  private async deliver(campaign: CampaignContent, batch: ClaimedMessage[], identity: SendingIdentity | null, halt: AbortSignal): Promise<Result[]> {
    const results = new Array<Result>(batch.length);
    const sendable: number[] = [];
    for (const [i, message] of batch.entries()) {
      if (!message.contact_id || message.contact_status === null) results[i] = { message, outcome: { kind: 'skipped', reason: 'contact_deleted' } };
      else if (message.contact_status !== 'subscribed') results[i] = { message, outcome: { kind: 'skipped', reason: 'suppressed' } };
      else sendable.push(i);
    }
    const outcomes = await this.threads.sendAll(
      campaign,
      sendable.map((i) => {
        const message = batch[i];
        return {
          messageId: message.id,
          email: message.email,
          firstName: message.first_name,
          lastName: message.last_name,
          tags: message.tags ?? [],
          attributes: message.attributes ?? {},
        };
      }),
      identity,
      halt,
    );
    for (const [n, i] of sendable.entries()) results[i] = { message: batch[i], outcome: outcomes[n] };
    return results;
  }

  /**
   * Writes a batch's outcomes, counters, rollups, events and suppressions in one transaction: a
   * piece's messages are written there (and the piece let go), claimed ones updated.
   */
  private async record(
    accountId: string,
    campaignId: string,
    results: Result[],
    piece: { id: string; variant: string | null } | null,
    haltedAs: 'queued' | 'cancelled',
  ): Promise<void> {
    const pieceId = piece?.id ?? null;
    const outcomes: MessageOutcome[] = [];
    const events: PendingEvent[] = [];
    const bounced: SmtpBounce[] = [];
    const sentTo: string[] = [];
    const counts: SendCounts = { sent: 0, delivered: 0, deferred: 0, failed: 0, bounced: 0 };
    const attempts: { relay?: string; status: string }[] = [];
    const now = new Date();
    for (const { message, outcome } of results) {
      if (outcome.kind === 'skipped') {
        // Suppressed or deleted since the audience was snapshotted: never sent, not counted.
        outcomes.push({ id: message.id, status: 'cancelled', reason: outcome.reason, nextAttemptAt: null, sent: false });
        continue;
      }
      if (outcome.kind === 'halted') {
        // Kept from the relay by a pause (a resume sends it) or a cancel.
        outcomes.push({ id: message.id, status: haltedAs, reason: null, nextAttemptAt: null, sent: false });
        continue;
      }
      const base = emailEventData({ ...message, campaign_id: campaignId });
      const meaning = meaningOf(outcome, { attempts: message.attempts, base, now, requeueAt: null }, this.settings);
      outcomes.push({ id: message.id, status: meaning.status, reason: meaning.reason, nextAttemptAt: meaning.nextAttemptAt, sent: meaning.sent });
      attempts.push({ relay: 'relay' in outcome ? outcome.relay : undefined, status: meaning.status });
      events.push(...meaning.events);
      if (meaning.status !== 'queued') counts[meaning.status]++;
      if (meaning.sent) {
        counts.sent++;
        sentTo.push(message.email);
      }
      if (meaning.bounce) bounced.push({ messageId: message.id, contactId: message.contact_id, email: message.email, ...meaning.bounce });
    }
    const hourCounts = { sent: counts.sent, delivered: counts.delivered, deferred: counts.deferred, failed: counts.failed };
    // One connection: the statements below and the events' COPY share its transaction.
    await this.transactions.run(async (tx) => {
      await sql.raw(PER_ROW_LOOKUPS).execute(tx);
      if (pieceId === null) await messages.recordOutcomes(tx, accountId, outcomes);
      else {
        const written = new Map(results.map(({ message }) => [message.id, message]));
        await messages.insertOutcomes(
          tx,
          accountId,
          campaignId,
          outcomes.map((o) => ({ ...o, contactId: written.get(o.id)!.contact_id!, email: written.get(o.id)!.email })),
          piece!.variant,
        );
      }
      // The campaign's row before the piece's, the order a cancel takes them in: the other is a deadlock.
      await campaigns.addSendCounts(tx, accountId, campaignId, counts);
      if (pieceId !== null) await audiences.finish(tx, accountId, pieceId);
      await this.records.addSendRollups(tx, accountId, campaignId, now, hourCounts, sentTo);
      // The campaign's `bounced` counter is in the counts above; the bounces' records and rollups here.
      await recordCampaignBounces(tx, this.records, accountId, campaignId, bounced, events);
      await append(tx, accountId, events);
    });
    this.metrics.countMessages('campaign', attempts);
  }

  /**
   * Completes the campaign when nothing is left to send, through the state machine: the ORM's
   * unit of work, since the transition changes the campaign's entity. An A/B test whose test
   * group is all sent waits for its results instead (`waiting`).
   */
  private tryComplete(accountId: string, campaignId: string): Promise<'completed' | 'waiting' | 'busy'> {
    return this.orm.em.fork().transactional(async (tx) => {
      const campaign = await campaigns.lock(tx, campaignId, accountId);
      const db = sqlOf(tx);
      if (campaign?.status !== 'sending') return 'busy';
      if (campaign.testPhase === 'waiting') return 'waiting';
      if ((await audiences.hasWork(db, campaign.accountId, campaignId)) || (await messages.hasPending(db, campaign.accountId, campaignId))) return 'busy';
      if (campaign.testPhase === 'testing') {
        campaigns.startWaiting(campaign);
        return 'waiting';
      }
      // Counted at the start; contacts who left the audience while it was sent got no message.
      if (await audiences.exists(db, campaign.accountId, campaignId)) campaign.recipients = await messages.count(db, campaign.accountId, campaignId);
      await campaigns.transition(tx, campaign, 'complete');
      return 'completed';
    });
  }

  /** Fails the campaign through the state machine, on the ORM's unit of work as `tryComplete`. */
  private async fail(accountId: string, campaignId: string, reason: string): Promise<void> {
    await this.orm.em.fork().transactional(async (tx) => {
      const campaign = await campaigns.lock(tx, campaignId, accountId);
      if (campaign?.status === 'sending') await campaigns.transition(tx, campaign, 'fail', { reason });
    });
  }
}
