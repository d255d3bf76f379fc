import { randomInt } from 'node:crypto';
import { sql, type SqlBool } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { Db } from '../db/kysely.ts';
import { newId } from '../db/ids.ts';
import { compileRules } from '../segments/compiler.ts';
import { fieldSchema } from '../fields/definitions.ts';
import type { SegmentRule } from '../segments/rules.ts';
import { takeSignals, type TakenSignal } from '../signals/outbox.ts';
import { durationMs, type AutomationStep } from './graph.ts';
import type { JourneyContact, JourneyDeps } from './journey-deps.ts';
import { waitEnd, windowOpening, zoneOf } from './schedule.ts';
import { automations, enrollments, type EnrollmentChange, type EnrollmentRecord, type NewPathEntry, type Reentry, type VersionRecord } from './store.ts';

type Settings = components['schemas']['AutomationSettings'];

/** Steps one enrolment may enter in all: a loop through waits ends here rather than never. */
const MAX_VISITS = 1000;
/** Enrolments claimed per transaction, and of one automation among them. */
const BATCH = 200;
const PER_AUTOMATION = 50;
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

/** A `webhook` step's post under way: its id is the post's `webhook-id`, the same on every retry. */
interface PendingWebhook {
  step: string;
  id: string;
  attempt: number;
}

interface WebhookPost {
  enrollment: EnrollmentRecord;
  step: AutomationStep;
  pending: PendingWebhook;
  contact: JourneyContact;
}

/** How long an enrolment is held at a `webhook` step while its post is under way. */
const WEBHOOK_LEASE_MS = 60_000;

/** What an enrolment's processing wrote, to apply with the batch. */
interface Processed {
  change: EnrollmentChange;
  path: NewPathEntry[];
  queuedEmail: boolean;
}

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
  private wake: (() => void) | null = null;

  constructor(deps: JourneyDeps) {
    this.deps = deps;
  }

  start(signal: AbortSignal): void {
    this.running = [this.loop(signal, () => this.enrolFromSignals()), this.loop(signal, () => this.runDueSteps())];
  }

  /** Something was signalled or enrolled in this process: look at once. */
  poke(): void {
    this.wake?.();
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
        this.wake = resolve;
        void sleep(IDLE_POLL_MS, signal).then(resolve);
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

  /** Takes a batch of signals and acts on them in one transaction; answers how many. */
  async enrolFromSignals(): Promise<number> {
    let enrolled = 0;
    const taken = await this.deps.transactions.run(async (tx) => {
      const signals = await takeSignals(tx, SIGNALS_PER_BATCH);
      for (const s of signals) enrolled += await this.actOn(tx, s);
      return signals.length;
    });
    if (enrolled) this.poke();
    return taken;
  }

  private async actOn(tx: Db, s: TakenSignal): Promise<number> {
    let moved = 0;
    if (s.kind === 'event') moved += await this.resumeWaiting(tx, s);
    const key = s.kind === 'contact_created' ? undefined : s.key;
    const context = s.kind === 'event' ? { event: { name: s.key, properties: s.data ?? {} } } : {};
    for (const automation of await automations.activeByTrigger(tx, s.account_id, s.kind, key)) {
      moved += (await this.enrol(tx, automation.account_id, automation.id, automation.version, [{ contactId: s.contact_id, context }])).length;
    }
    return moved;
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
      await enrollments.setLastBranch(tx, e.account_id, e.id, 'event');
      changes.push({
        ...changeOf(e),
        status: 'active',
        stepId: step.next ?? null,
        dueAt: new Date(),
        waitingFor: null,
        context: { ...e.context, event: { name: s.key, properties: s.data ?? {} } },
      });
    }
    // A `next` of null ends the journey: it is processed as due now, and completes there.
    await enrollments.apply(tx, changes);
    return changes.length;
  }

  // ---- Due steps

  /** Claims due enrolments and walks each as far as it goes now, in one transaction; answers how many. */
  async runDueSteps(): Promise<number> {
    let queued = false;
    const webhooks: WebhookPost[] = [];
    const count = await this.deps.transactions.run(async (tx) => {
      const batch = await enrollments.claimDue(tx, PER_AUTOMATION, BATCH);
      if (!batch.length) return 0;
      const byAccount = new Map<string, EnrollmentRecord[]>();
      for (const e of batch) byAccount.set(e.account_id, [...(byAccount.get(e.account_id) ?? []), e]);
      const changes: EnrollmentChange[] = [];
      const path: NewPathEntry[] = [];
      for (const [accountId, list] of byAccount) {
        const contacts = await this.deps.contacts.read(tx, accountId, [...new Set(list.map((e) => e.contact_id))]);
        for (const e of list) {
          const done = await this.process(tx, e, contacts.get(e.contact_id) ?? null, webhooks);
          changes.push(done.change);
          path.push(...done.path);
          queued ||= done.queuedEmail;
        }
      }
      await enrollments.addPath(tx, path);
      await enrollments.apply(tx, changes);
      return batch.length;
    });
    if (queued) this.deps.emailsQueued();
    if (webhooks.length) await this.postWebhooks(webhooks);
    return count;
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
          if (!success) await enrollments.setLastOutcome(tx, current.account_id, current.id, { detail: `webhook_failed: ${error ?? 'unknown'}` });
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

  /** Walks one enrolment from its step until it waits or ends. */
  private async process(tx: Db, e: EnrollmentRecord, contact: JourneyContact | null, webhooks: WebhookPost[]): Promise<Processed> {
    const change = changeOf(e);
    const path: NewPathEntry[] = [];
    let queuedEmail = false;
    const end = (status: EnrollmentChange['status'], reason: string | null, keepStep = false): Processed => ({
      change: { ...change, status, exitReason: reason, stepId: keepStep ? change.stepId : null, dueAt: null, waitingFor: null, finished: true },
      path,
      queuedEmail,
    });
    if (!contact) return end('exited', 'contact_deleted');
    const version = await this.version(tx, e.account_id, e.automation_id, e.version);
    if (!version) return end('failed', 'version_missing', true);
    const settings = version.settings;
    if (settings.goal && (await this.matches(tx, e, settings.goal, version))) return end('converted', 'goal');
    const steps = new Map(version.steps.map((s) => [s.id, s]));
    const zone = zoneOf(contact.attributes);
    const now = new Date();
    const enter = (step: AutomationStep, outcome: NewPathEntry['outcome'] = {}, messageId: string | null = null) => {
      change.visits++;
      path.push({ accountId: e.account_id, enrollmentId: e.id, automationId: e.automation_id, stepId: step.id, stepType: step.type, outcome, messageId });
    };
    // Back from a wait: a `wait` goes on, a `wait_for_event` timed out; an email held for its window is sent now.
    if (e.status === 'waiting') {
      const step = steps.get(e.step_id ?? '');
      if (step?.type === 'wait') change.stepId = step.next ?? null;
      else if (step?.type === 'wait_for_event') {
        await enrollments.setLastBranch(tx, e.account_id, e.id, 'timeout');
        change.stepId = step.timeout_next ?? null;
      }
      change.status = 'active';
      change.waitingFor = null;
    }
    for (;;) {
      if (change.stepId === null) return end('completed', null);
      const step = steps.get(change.stepId);
      if (!step) return end('failed', `no step ${change.stepId} in version ${e.version}`, true);
      if (change.visits >= MAX_VISITS) return end('failed', `entered ${MAX_VISITS} steps: a loop that never ends`, true);
      switch (step.type) {
        case 'send_email': {
          const opening = windowOpening(settings.send_window, now, zone);
          if (opening) return { change: { ...change, status: 'waiting', dueAt: opening }, path, queuedEmail };
          const sent = await this.sendEmail(tx, e, step, contact, settings, change.context);
          enter(step, { detail: sent.detail }, sent.messageId);
          queuedEmail ||= sent.messageId !== null;
          change.stepId = step.next ?? null;
          break;
        }
        case 'wait': {
          enter(step);
          const until = waitEnd(step, now, zone);
          if (until > now) return { change: { ...change, status: 'waiting', dueAt: until }, path, queuedEmail };
          change.stepId = step.next ?? null;
          break;
        }
        case 'wait_for_event':
          enter(step);
          return {
            change: { ...change, status: 'waiting', waitingFor: step.name!, dueAt: new Date(now.getTime() + (durationMs(step.timeout!) ?? 0)) },
            path,
            queuedEmail,
          };
        case 'condition': {
          const yes = await this.matches(tx, e, step.rules as SegmentRule, version);
          enter(step, { branch: yes ? 'yes' : 'no' });
          change.stepId = (yes ? step.yes : step.no) ?? null;
          break;
        }
        case 'split': {
          const branches = step.branches ?? [];
          let roll = randomInt(100);
          let index = branches.findIndex((b) => (roll -= b.percent) < 0);
          if (index < 0) index = branches.length - 1;
          enter(step, { branch: String(index) });
          change.stepId = branches[index]?.next ?? null;
          break;
        }
        case 'update_contact':
          await this.deps.contacts.change(tx, e.account_id, contact.id, {
            addTags: step.add_tags ?? [],
            removeTags: step.remove_tags ?? [],
            setFields: step.set_fields ?? {},
            addListIds: step.add_list_ids ?? [],
            removeListIds: step.remove_list_ids ?? [],
          });
          enter(step);
          change.stepId = step.next ?? null;
          break;
        case 'webhook': {
          // Posted once the batch has committed (`postWebhooks`); meanwhile the enrolment is held
          // here for a lease. A retry, or a post lost with its process, posts the same id again.
          let pending = change.context.webhook as PendingWebhook | undefined;
          if (pending?.step !== step.id) {
            enter(step);
            pending = { step: step.id, id: newId('whm'), attempt: 0 };
          }
          change.context = { ...change.context, webhook: pending };
          webhooks.push({ enrollment: e, step, pending, contact });
          return { change: { ...change, status: 'active', dueAt: new Date(now.getTime() + WEBHOOK_LEASE_MS) }, path, queuedEmail };
        }
        case 'exit':
          enter(step);
          return end('exited', 'exit_step');
      }
    }
  }

  /** Whether the enrolment's contact matches segment rules (with engagement of this enrolment's emails). */
  private async matches(tx: Db, e: EnrollmentRecord, rules: SegmentRule, version: VersionRecord): Promise<boolean> {
    const emailSteps = new Set(version.steps.filter((s) => s.type === 'send_email').map((s) => s.id));
    const condition = compileRules(rules, {
      accountId: e.account_id,
      fields: await fieldSchema(tx, e.account_id),
      now: new Date(),
      stepEngagement: (stepId, engagement) => (emailSteps.has(stepId) ? stepEngagementCondition(e, stepId, engagement) : null),
    }).condition;
    const { rows } = await sql<{ yes: boolean }>`
      select exists (select 1 from contacts c where c.account_id = ${e.account_id} and c.id = ${e.contact_id} and ${condition}) as yes`.execute(tx);
    return rows[0].yes;
  }

  /** Renders and queues a step's email, unless the contact may not get it; answers its message id or why not. */
  private async sendEmail(
    tx: Db,
    e: EnrollmentRecord,
    step: AutomationStep,
    contact: JourneyContact,
    settings: Settings,
    context: Record<string, unknown>,
  ): Promise<{ messageId: string | null; detail: string | null }> {
    if (contact.status !== 'subscribed') return { messageId: null, detail: contact.status };
    if (settings.topic_id && (await this.deps.contacts.optedOut(tx, e.account_id, settings.topic_id, [contact.id])).size)
      return { messageId: null, detail: 'opted_out' };
    const version = (context.templates as Record<string, number> | undefined)?.[step.id];
    if (version === undefined) return { messageId: null, detail: 'template_not_published' };
    const messageId = newId('em');
    const unsubscribe = this.deps.unsubscribeUrl(messageId);
    const data = {
      ...contact.attributes,
      email: contact.email,
      first_name: contact.first_name,
      last_name: contact.last_name,
      tags: contact.tags,
      attributes: contact.attributes,
      contact: { email: contact.email, first_name: contact.first_name, last_name: contact.last_name, tags: contact.tags, attributes: contact.attributes },
      event: (context.event as { properties?: unknown } | undefined)?.properties ?? {},
      unsubscribe_url: unsubscribe,
    };
    const rendered = await this.deps.render(e.account_id, step.template_id!, version, step.subject, data);
    if ('error' in rendered) return { messageId: null, detail: `render_failed: ${rendered.error}` };
    const [queued] = await this.deps.queueEmails(tx, [
      {
        id: messageId,
        accountId: e.account_id,
        email: contact.email,
        fromEmail: step.from_email!,
        fromName: step.from_name ?? null,
        subject: rendered.subject,
        html: rendered.html ? withFooter(rendered.html, unsubscribe) : null,
        text: rendered.text && !rendered.text.includes(unsubscribe) ? `${rendered.text}\n\n--\nUnsubscribe: ${unsubscribe}\n` : rendered.text || null,
        headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        journey: { automationId: e.automation_id, stepId: step.id, enrollmentId: e.id },
      },
    ]);
    if ('refused' in queued) return { messageId: null, detail: queued.refused };
    return { messageId: queued.id, detail: null };
  }
}

/** The HTML with an unsubscribe link at its end, unless the template placed `{{ unsubscribe_url }}` itself. */
function withFooter(html: string, unsubscribe: string): string {
  if (html.includes(unsubscribe)) return html;
  const footer = `<p style="font-size:12px;color:#666"><a href="${unsubscribe}">Unsubscribe</a></p>`;
  const end = html.toLowerCase().lastIndexOf('</body>');
  return end < 0 ? html + footer : html.slice(0, end) + footer + html.slice(end);
}

function changeOf(e: EnrollmentRecord): EnrollmentChange {
  return {
    accountId: e.account_id,
    id: e.id,
    status: e.status,
    stepId: e.step_id,
    dueAt: e.due_at,
    waitingFor: e.waiting_for,
    context: e.context,
    visits: e.visits,
    exitReason: e.exit_reason,
    finished: false,
  };
}

/** Engagement with the email this enrolment got at `stepId` (its latest visit's). */
function stepEngagementCondition(e: EnrollmentRecord, stepId: string, engagement: string) {
  const message = sql`(select p.message_id from automation_path p where p.account_id = ${e.account_id} and p.enrollment_id = ${e.id}
    and p.step_id = ${stepId} order by p.seq desc limit 1)`;
  const column =
    engagement === 'opened' || engagement === 'not_opened'
      ? sql.ref('m.opened_at')
      : engagement === 'received'
        ? sql.ref('m.sent_at')
        : sql.ref('m.clicked_at');
  const happened = sql<SqlBool>`exists (select 1 from emails m where m.id = ${message} and ${column} is not null)`;
  return engagement.startsWith('not_') ? sql<SqlBool>`not ${happened}` : happened;
}
