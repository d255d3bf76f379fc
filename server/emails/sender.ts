import { traced } from '../tracing/spans.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import type { PendingEvent } from '../events/types.ts';
import { append } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { SendThreads, ThreadOutcome } from '../sending/send-threads.ts';
import type { SendingIdentities, SendingIdentity } from '../sending/identity.ts';
import { recordTransactionalBounce, type OutcomeRecords } from '../sending/records.ts';
import { meaningOf } from '../sending/outcome.ts';
import { transactionalEventData } from './events.ts';
import type { TransactionalContent, TransactionalMail } from '../rendering/transactional-message.ts';
import { emails, type ClaimedEmail, type EmailOutcome } from './store.ts';
import { onQueued } from './wake.ts';

/** How often an idle sender looks for due messages another process queued (its own wake it at once). */
const POLL_MS = 200;
/** Batches claimed and sent at once per process: one is recorded while the next is sent. */
const LOOPS = 2;
const RELAY_DOWN_PAUSE_MS = 1000;
/**
 * Woken by a request, or back from a batch that emptied the queue, a sender waits this long
 * before claiming, so that requests arriving meanwhile go out as one batch: a batch's claim,
 * contents, record and events cost about the same for one message as for a hundred (at 1,000
 * requests a second, batches of about 50 rather than a few).
 */
const GATHER_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends transactional messages from every worker process: claims due batches with SKIP LOCKED
 * (no message goes to two processes; one claimed by a process that died is claimed again after
 * the lease), renders and sends them in the campaigns' sending threads (their SMTP pool, DKIM,
 * pacing) and records outcomes, bounces and events a batch per transaction.
 */
export class TransactionalSender {
  private readonly transactions: Transactions;
  private readonly db: Db;
  private readonly threads: SendThreads;
  private readonly settings: Config['sending'];
  private readonly log: Logger;
  private readonly records: OutcomeRecords;
  private readonly identities: SendingIdentities;
  private readonly metrics: Metrics;
  private running: Promise<void>[] = [];

  constructor(
    transactions: Transactions,
    db: Db,
    threads: SendThreads,
    settings: Config['sending'],
    log: Logger,
    records: OutcomeRecords,
    identities: SendingIdentities,
    metrics: Metrics,
  ) {
    this.transactions = transactions;
    this.db = db;
    this.threads = threads;
    this.settings = settings;
    this.log = log;
    this.records = records;
    this.identities = identities;
    this.metrics = metrics;
  }

  start(signal: AbortSignal): void {
    this.running = Array.from({ length: LOOPS }, () => this.loop(signal));
  }

  /** Resolves once every loop has finished its batch after `signal`. */
  async stopped(): Promise<void> {
    await Promise.all(this.running);
  }

  private async loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const batch = await emails.claim(this.transactions, this.settings.batchSize, this.settings.leaseSeconds);
        if (!batch.length) {
          if (await onQueued(POLL_MS, signal)) await sleep(GATHER_MS);
          continue;
        }
        await traced('email batch send', { 'sendline.messages': batch.length }, () => this.send(batch));
        // The queue is drained: let the next batch gather rather than claim what trickles in one by one.
        if (batch.length < this.settings.batchSize) await sleep(GATHER_MS);
      } catch (err) {
        this.log.error({ err }, 'sending transactional email failed; retrying');
        await sleep(RELAY_DOWN_PAUSE_MS);
      }
    }
  }

  private async send(batch: ClaimedEmail[]): Promise<void> {
    const rows = await emails.contents(this.db, batch);
    const contents = new Map<string, TransactionalContent>(
      rows.map((c) => [
        c.id,
        {
          id: c.id,
          fromEmail: c.from_email,
          fromName: c.from_name,
          replyTo: c.reply_to,
          toHeader: c.to_header,
          ccHeader: c.cc_header,
          subject: c.subject,
          html: c.html,
          text: c.text,
          headers: c.headers,
          attachments: c.attachments,
        },
      ]),
    );
    const mails: TransactionalMail[] = batch.map((m) => ({
      messageId: m.id,
      stream: m.automation_id ? 'automation' : 'transactional',
      contentId: m.content_id,
      to: m.email,
      trackOpens: m.track_opens,
      trackClicks: m.track_clicks,
    }));
    const outcomes = await this.threads.sendTransactional(contents, mails, await this.identitiesOf(batch, contents));
    if (outcomes.every((o) => o.kind === 'transport_error')) {
      this.log.warn({ error: outcomes[0]?.kind === 'transport_error' ? outcomes[0].error : null }, 'the relay is failing');
      const later = new Date(Date.now() + RELAY_DOWN_PAUSE_MS);
      await emails.recordOutcomes(
        this.db,
        batch.map((m) => ({ id: m.id, accountId: m.account_id, status: 'queued', reason: null, nextAttemptAt: later, sent: false })),
      );
      await sleep(RELAY_DOWN_PAUSE_MS);
      return;
    }
    await this.record(batch, outcomes);
  }

  /** Each content's sending identity, looked up once per account and From address in the batch. */
  private async identitiesOf(batch: ClaimedEmail[], contents: Map<string, TransactionalContent>): Promise<Map<string, SendingIdentity>> {
    const byAddress = new Map<string, Promise<SendingIdentity | null>>();
    const identities = new Map<string, SendingIdentity>();
    for (const { account_id: accountId, content_id: contentId } of batch) {
      const from = contents.get(contentId)?.fromEmail;
      if (!from || identities.has(contentId)) continue;
      const key = `${accountId} ${from.toLowerCase()}`;
      if (!byAddress.has(key)) byAddress.set(key, this.identities.forAddress(accountId, from));
      const identity = await byAddress.get(key)!;
      if (identity) identities.set(contentId, identity);
    }
    return identities;
  }

  /** A batch's outcomes, bounces, suppressions and events in one transaction. */
  private async record(batch: ClaimedEmail[], outcomes: ThreadOutcome[]): Promise<void> {
    const results: EmailOutcome[] = [];
    /** Per copy, its events: recorded only if its outcome is (see `recordOutcomes`). */
    const events = new Map<string, PendingEvent[]>();
    const bounced: { message: ClaimedEmail; reason: string; code: number }[] = [];
    const now = new Date();
    for (const [i, message] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome.kind === 'halted') throw new Error('transactional sends are never halted');
      // A relay failure mixed with successes: back to the queue, due again at once.
      const meaning = meaningOf(outcome, { attempts: message.attempts, base: transactionalEventData(message), now, requeueAt: now }, this.settings);
      results.push({
        id: message.id,
        accountId: message.account_id,
        status: meaning.status,
        reason: meaning.reason,
        nextAttemptAt: meaning.nextAttemptAt,
        sent: meaning.sent,
      });
      if (meaning.events.length) events.set(message.id, meaning.events);
      if (meaning.bounce) bounced.push({ message, ...meaning.bounce });
    }
    const written = await this.transactions.run(async (tx) => {
      // A copy erased while it was out is not written: nothing of it may name the person again.
      const written = await emails.recordOutcomes(tx, results);
      for (const { message, reason, code } of bounced) {
        if (!written.has(message.id)) continue;
        const bounce = { accountId: message.account_id, messageId: message.id, contactId: message.contact_id, email: message.email, reason, code, at: now };
        events.get(message.id)!.push(...(await recordTransactionalBounce(tx, this.records, bounce)));
      }
      const byAccount = new Map<string, PendingEvent[]>();
      for (const message of batch) {
        const list = events.get(message.id);
        if (!list || !written.has(message.id)) continue;
        byAccount.set(message.account_id, [...(byAccount.get(message.account_id) ?? []), ...list]);
      }
      for (const [accountId, list] of byAccount) await append(tx, accountId, list);
      return written;
    });
    const attempts = { transactional: [] as { relay?: string; status: string }[], automation: [] as { relay?: string; status: string }[] };
    for (const [i, message] of batch.entries()) {
      const outcome = outcomes[i];
      if (written.has(message.id))
        attempts[message.automation_id ? 'automation' : 'transactional'].push({
          relay: 'relay' in outcome ? outcome.relay : undefined,
          status: results[i].status,
        });
    }
    this.metrics.countMessages('transactional', attempts.transactional);
    this.metrics.countMessages('automation', attempts.automation);
  }
}
