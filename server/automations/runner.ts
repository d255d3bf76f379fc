import type { Db } from '../db/kysely.ts';
import { takeSignals, type TakenSignal } from '../signals/outbox.ts';
import type { JourneyContact, JourneyDeps } from './journey-deps.ts';
import { automations, enrollments, type AutomationRecord, type EnrollmentChange, type Reentry, type VersionRecord } from './store.ts';
import { BatchWalk, changeOf, type PendingWebhook, type Walked, type WebhookPost } from './walk.ts';

/** Enrolments claimed per transaction, and of one automation among them. */
const BATCH = 1000;
const PER_AUTOMATION = 200;
const SIGNALS_PER_BATCH = 500;
const IDLE_POLL_MS = 250;
/** Versions kept in memory: they never change once written. */
const VERSIONS_KEPT = 500;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * Runs journeys in every worker process: takes signals and enrols contacts, and runs due steps.
 * Each batch is one transaction holding its enrolments (SKIP LOCKED): a step's effects, its
 * path entry and the enrolment's move are written together, so a step runs at most once, and an
 * email is queued at most once, whatever process dies when.
 */
export class JourneyRunner {
  private readonly deps: JourneyDeps;
  private readonly versions = new Map<string, VersionRecord>();
  private running: Promise<void>[] = [];
  /** The loops waiting for work, each woken by a poke or its poll. */
  private readonly idle = new Set<() => void>();

  constructor(deps: JourneyDeps) {
    this.deps = deps;
  }

  start(signal: AbortSignal): void {
    this.running = [this.loop(signal, () => this.enrolFromSignals()), this.loop(signal, () => this.runDueSteps())];
  }

  /** Something was signalled or enrolled in this process: look at once. */
  poke(): void {
    for (const wake of this.idle) wake();
  }

  async stopped(): Promise<void> {
    await Promise.all(this.running);
  }

  private async loop(signal: AbortSignal, work: () => Promise<number>): Promise<void> {
    while (!signal.aborted) {
      try {
        if ((await work()) > 0) continue;
      } catch (err) {
        this.deps.log.error({ err }, 'running journeys failed; retrying');
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.idle.delete(wake);
          resolve();
        };
        this.idle.add(wake);
        void sleep(IDLE_POLL_MS, signal).then(wake);
      });
    }
  }

  private async version(db: Db, accountId: string, automationId: string, version: number): Promise<VersionRecord | null> {
    const key = `${accountId} ${automationId} ${version}`;
    const kept = this.versions.get(key);
    if (kept) return kept;
    const found = await automations.version(db, accountId, automationId, version);
    if (found) {
      if (this.versions.size >= VERSIONS_KEPT) this.versions.delete(this.versions.keys().next().value!);
      this.versions.set(key, found);
    }
    return found;
  }

  // ---- Signals: enrolments, and the events waits are waiting for

  /**
   * Takes a batch of signals and acts on them in one transaction: waits for an event go on, and
   * the contacts each automation's trigger names enrol in one statement per automation (a contact
   * signalled twice enrols in a second one, as `always` re-entry wants). Answers how many.
   */
  async enrolFromSignals(): Promise<number> {
    let moved = 0;
    const taken = await this.deps.transactions.run(async (tx) => {
      const signals = await takeSignals(tx, SIGNALS_PER_BATCH);
      const triggered = new Map<string, Promise<AutomationRecord[]>>();
      const joining = new Map<string, { automation: AutomationRecord; rounds: Map<string, Record<string, unknown>>[] }>();
      for (const s of signals) {
        if (s.kind === 'event') moved += await this.resumeWaiting(tx, s);
        const key = s.kind === 'contact_created' ? undefined : s.key;
        const lookup = `${s.account_id} ${s.kind} ${key ?? ''}`;
        if (!triggered.has(lookup)) triggered.set(lookup, automations.activeByTrigger(tx, s.account_id, s.kind, key));
        const context = s.kind === 'event' ? { event: { name: s.key, properties: s.data ?? {} } } : {};
        for (const automation of await triggered.get(lookup)!) {
          const entry = joining.get(automation.id) ?? { automation, rounds: [] };
          joining.set(automation.id, entry);
          let round = entry.rounds.find((r) => !r.has(s.contact_id));
          if (!round) entry.rounds.push((round = new Map<string, Record<string, unknown>>()));
          round.set(s.contact_id, context);
        }
      }
      for (const { automation, rounds } of joining.values()) {
        for (const round of rounds) {
          const contacts = [...round].map(([contactId, context]) => ({ contactId, context }));
          moved += (await this.enrol(tx, automation.account_id, automation.id, automation.version, contacts)).length;
        }
      }
      return signals.length;
    });
    if (moved) this.poke();
    return taken;
  }

  /** Enrols contacts on a version of an automation; answers the enrolments made. */
  async enrol(tx: Db, accountId: string, automationId: string, versionNumber: number, contacts: { contactId: string; context: Record<string, unknown> }[]) {
    const version = await this.version(tx, accountId, automationId, versionNumber);
    if (!version || !version.steps.length) return [];
    const settings = version.settings;
    const templates: Record<string, number> = {};
    for (const step of version.steps) {
      if (step.type !== 'send_email' || !step.template_id) continue;
      const published = await this.deps.publishedVersion(tx, accountId, step.template_id);
      if (published !== null) templates[step.id] = published;
    }
    // A date trigger fires once per occurrence: `never` would hold a birthday to one year.
    const reentry: Reentry = version.trigger.type === 'date' && settings.reentry !== 'always' ? 'after_exit' : (settings.reentry ?? 'never');
    return enrollments.enrol(
      tx,
      { accountId, automationId, version: versionNumber, firstStep: version.steps[0].id, reentry },
      contacts.map((c) => ({ contactId: c.contactId, context: { ...c.context, templates } })),
    );
  }

  /** The contact's enrolments waiting for this event go on down their `next`, with the event as theirs. */
  private async resumeWaiting(tx: Db, s: TakenSignal): Promise<number> {
    const waiting = await enrollments.waitingFor(tx, s.account_id, s.contact_id, s.key);
    const changes: EnrollmentChange[] = [];
    for (const e of waiting) {
      const version = await this.version(tx, e.account_id, e.automation_id, e.version);
      const step = version?.steps.find((x) => x.id === e.step_id);
      if (!step) continue;
      changes.push({
        ...changeOf(e),
        status: 'active',
        stepId: step.next ?? null,
        dueAt: new Date(),
        waitingFor: null,
        context: { ...e.context, event: { name: s.key, properties: s.data ?? {} } },
      });
    }
    await enrollments.setLastOutcome(
      tx,
      s.account_id,
      changes.map((c) => c.id),
      { branch: 'event' },
    );
    // A `next` of null ends the journey: it is processed as due now, and completes there.
    await enrollments.apply(tx, changes);
    return changes.length;
  }

  // ---- Due steps

  /** Claims due enrolments and walks each as far as it goes now, in one transaction; answers how many. */
  async runDueSteps(): Promise<number> {
    let walked: Walked | null = null;
    const count = await this.deps.transactions.run(async (tx) => {
      const batch = await enrollments.claimDue(tx, PER_AUTOMATION, BATCH);
      if (!batch.length) return 0;
      const contacts = new Map<string, JourneyContact>();
      const byAccount = new Map<string, string[]>();
      for (const e of batch) byAccount.set(e.account_id, [...(byAccount.get(e.account_id) ?? []), e.contact_id]);
      for (const [accountId, ids] of byAccount)
        for (const [id, contact] of await this.deps.contacts.read(tx, accountId, [...new Set(ids)])) contacts.set(`${accountId} ${id}`, contact);
      const inputs = [];
      for (const e of batch)
        inputs.push({
          e,
          version: await this.version(tx, e.account_id, e.automation_id, e.version),
          contact: contacts.get(`${e.account_id} ${e.contact_id}`) ?? null,
        });
      walked = await new BatchWalk(this.deps, tx).walk(inputs);
      await this.record(tx, walked);
      return batch.length;
    });
    const done = walked as Walked | null;
    if (done?.emails.length) this.deps.emailsQueued();
    if (done?.webhooks.length) await this.postWebhooks(done.webhooks);
    return count;
  }

  /** A walk's emails, path, timeouts and moves, in the batch's transaction. */
  private async record(tx: Db, walked: Walked): Promise<void> {
    const queued = await this.deps.queueEmails(tx, walked.emails);
    // An address the stream refuses (bounced, complained) got nothing: its path says why.
    const refused = new Map<string, string>();
    for (const [i, outcome] of queued.entries()) if ('refused' in outcome) refused.set(walked.emails[i].id, outcome.refused);
    const path = walked.path.map((entry) => {
      const reason = entry.messageId === null ? undefined : refused.get(entry.messageId);
      return reason === undefined ? entry : { ...entry, messageId: null, outcome: { ...entry.outcome, detail: reason } };
    });
    const timedOut = new Map<string, string[]>();
    for (const e of walked.timedOut) timedOut.set(e.account_id, [...(timedOut.get(e.account_id) ?? []), e.id]);
    for (const [accountId, ids] of timedOut) await enrollments.setLastOutcome(tx, accountId, ids, { branch: 'timeout' });
    await enrollments.addPath(tx, path);
    await enrollments.apply(tx, walked.changes);
  }

  /**
   * Posts the batch's `webhook` steps, then moves each enrolment on (a success, or a failure after
   * the last retry, noted on its path) or schedules its retry. Only an enrolment still holding the
   * same post is moved: a cancel or an archive meanwhile wins.
   */
  private async postWebhooks(posts: WebhookPost[]): Promise<void> {
    const secrets = new Map<string, Promise<string | null>>();
    const secretOf = (accountId: string, automationId: string) => {
      const key = `${accountId} ${automationId}`;
      if (!secrets.has(key))
        secrets.set(
          key,
          automations.get(this.deps.db, accountId, automationId).then((a) => a?.webhook_secret_sealed ?? null),
        );
      return secrets.get(key)!;
    };
    const outcomes = await Promise.all(
      posts.map(async ({ enrollment: e, step, pending, contact }) => {
        const sealed = await secretOf(e.account_id, e.automation_id);
        if (sealed === null) return { success: false, error: 'the automation is gone' };
        const body = {
          id: pending.id,
          type: 'automation.webhook',
          created_at: new Date().toISOString(),
          account_id: e.account_id,
          data: {
            ...(step.payload ?? {}),
            automation_id: e.automation_id,
            step_id: step.id,
            enrollment_id: e.id,
            contact: {
              id: contact.id,
              email: contact.email,
              first_name: contact.first_name,
              last_name: contact.last_name,
              tags: contact.tags,
              attributes: contact.attributes,
            },
            event: (e.context.event as Record<string, unknown> | undefined) ?? null,
          },
        };
        return this.deps.postWebhook(step.url!, body, sealed);
      }),
    );
    await this.deps.transactions.run(async (tx) => {
      for (const [i, { enrollment, step, pending }] of posts.entries()) {
        const current = await enrollments.get(tx, enrollment.account_id, enrollment.id, true);
        const held = current?.context.webhook as PendingWebhook | undefined;
        if (!current || current.status !== 'active' || held?.id !== pending.id) continue;
        const { success, error } = outcomes[i];
        const retries = this.deps.webhookRetries;
        const change = changeOf(current);
        if (!success && pending.attempt < retries.length) {
          change.context = { ...current.context, webhook: { ...pending, attempt: pending.attempt + 1 } };
          change.dueAt = new Date(Date.now() + retries[pending.attempt] * 1000);
        } else {
          if (!success) await enrollments.setLastOutcome(tx, current.account_id, [current.id], { detail: `webhook_failed: ${error ?? 'unknown'}` });
          const { webhook: _posted, ...context } = current.context;
          change.context = context;
          change.stepId = step.next ?? null;
          change.dueAt = new Date();
        }
        await enrollments.apply(tx, [change]);
      }
    });
    this.poke();
  }
}
