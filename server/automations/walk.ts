import { randomInt } from 'node:crypto';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { Db } from '../db/kysely.ts';
import { newId } from '../db/ids.ts';
import { compileRules } from '../segments/compiler.ts';
import { fieldSchema } from '../fields/definitions.ts';
import type { FieldSchema } from '../fields/rules.ts';
import type { SegmentRule } from '../segments/rules.ts';
import type { JourneyEmail } from '../emails/journey-mail.ts';
import { contactScope } from '../rendering/contact-scope.ts';
import { durationMs, type AutomationStep } from './graph.ts';
import type { JourneyContact, JourneyDeps } from './journey-deps.ts';
import { waitEnd, windowOpening, zoneOf } from './schedule.ts';
import type { EnrollmentChange, EnrollmentRecord, NewPathEntry, VersionRecord } from './store.ts';

type Settings = components['schemas']['AutomationSettings'];

/** Steps one enrolment may enter in all: a loop through waits ends here rather than never. */
const MAX_VISITS = 1000;
/** Rounds of one batch: each moves every enrolment one step, and no journey without a wait is longer. */
const MAX_ROUNDS = 100;
/** How long an enrolment is held at a `webhook` step while its post is under way. */
const WEBHOOK_LEASE_MS = 60_000;

/** A `webhook` step's post under way: its id is the post's `webhook-id`, the same on every retry. */
export interface PendingWebhook {
  step: string;
  id: string;
  attempt: number;
}

export interface WebhookPost {
  enrollment: EnrollmentRecord;
  step: AutomationStep;
  pending: PendingWebhook;
  contact: JourneyContact;
}

/** One enrolment as the walk moves it. */
interface Walker {
  e: EnrollmentRecord;
  version: VersionRecord;
  steps: Map<string, AutomationStep>;
  contact: JourneyContact;
  change: EnrollmentChange;
  /** Finished or parked: no more steps in this batch. */
  stopped: boolean;
}

/** What a batch's walk wrote, for the runner to apply in the batch's transaction and after it. */
export interface Walked {
  changes: EnrollmentChange[];
  path: NewPathEntry[];
  emails: JourneyEmail[];
  webhooks: WebhookPost[];
  /** Path entries of earlier batches to complete: a `wait_for_event` that timed out. */
  timedOut: EnrollmentRecord[];
}

export function changeOf(e: EnrollmentRecord): EnrollmentChange {
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

const finish = (w: Walker, status: EnrollmentChange['status'], reason: string | null, keepStep = false) => {
  w.change = { ...w.change, status, exitReason: reason, stepId: keepStep ? w.change.stepId : null, dueAt: null, waitingFor: null, finished: true };
  w.stopped = true;
};

const park = (w: Walker, dueAt: Date | null, status: 'active' | 'waiting' = 'waiting', waitingFor: string | null = null) => {
  w.change = { ...w.change, status, dueAt, waitingFor };
  w.stopped = true;
};

/**
 * Walks a batch of claimed enrolments set by set: each round takes every enrolment one step, and
 * the enrolments at the same step of the same version go together, so that a condition is one
 * query and an `update_contact` one statement for all of them, whatever the batch's size.
 */
export class BatchWalk {
  private readonly deps: JourneyDeps;
  private readonly tx: Db;
  private readonly now = new Date();
  private readonly fields = new Map<string, Promise<FieldSchema>>();
  private readonly out: Walked = { changes: [], path: [], emails: [], webhooks: [], timedOut: [] };

  constructor(deps: JourneyDeps, tx: Db) {
    this.deps = deps;
    this.tx = tx;
  }

  async walk(batch: { e: EnrollmentRecord; version: VersionRecord | null; contact: JourneyContact | null }[]): Promise<Walked> {
    const walkers: Walker[] = [];
    for (const { e, version, contact } of batch) {
      const change = changeOf(e);
      if (!contact || !version) {
        const reason = contact ? 'version_missing' : 'contact_deleted';
        this.out.changes.push({
          ...change,
          status: contact ? 'failed' : 'exited',
          exitReason: reason,
          stepId: null,
          dueAt: null,
          waitingFor: null,
          finished: true,
        });
        continue;
      }
      const w: Walker = { e, version, steps: new Map(version.steps.map((s) => [s.id, s])), contact, change, stopped: false };
      this.resume(w);
      walkers.push(w);
    }
    await this.goals(walkers);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const moving = walkers.filter((w) => !w.stopped);
      if (!moving.length) break;
      const groups = new Map<string, Walker[]>();
      for (const w of moving) {
        if (w.change.stepId === null) {
          finish(w, 'completed', null);
          continue;
        }
        const step = w.steps.get(w.change.stepId);
        if (!step) finish(w, 'failed', `no step ${w.change.stepId} in version ${w.e.version}`, true);
        else if (w.change.visits >= MAX_VISITS) finish(w, 'failed', `entered ${MAX_VISITS} steps: a loop that never ends`, true);
        else {
          const key = `${w.e.account_id} ${w.e.automation_id} ${w.e.version} ${step.id}`;
          groups.set(key, [...(groups.get(key) ?? []), w]);
        }
      }
      for (const group of groups.values()) await this.step(group[0].steps.get(group[0].change.stepId!)!, group);
    }
    for (const w of walkers) {
      // Still moving after every round: a journey longer than a batch walks on in the next one.
      if (!w.stopped) w.change = { ...w.change, status: 'active', dueAt: this.now };
      this.out.changes.push(w.change);
    }
    return this.out;
  }

  /** Back from a wait: a `wait` goes on, a `wait_for_event` timed out; an email held for its window is sent now. */
  private resume(w: Walker): void {
    if (w.e.status !== 'waiting') return;
    const step = w.steps.get(w.e.step_id ?? '');
    if (step?.type === 'wait') w.change.stepId = step.next ?? null;
    else if (step?.type === 'wait_for_event') {
      this.out.timedOut.push(w.e);
      w.change.stepId = step.timeout_next ?? null;
    }
    w.change = { ...w.change, status: 'active', waitingFor: null };
  }

  private enter(w: Walker, step: AutomationStep, outcome: NewPathEntry['outcome'] = {}, messageId: string | null = null): NewPathEntry {
    w.change.visits++;
    const entry = {
      accountId: w.e.account_id,
      enrollmentId: w.e.id,
      automationId: w.e.automation_id,
      stepId: step.id,
      stepType: step.type,
      outcome,
      messageId,
    };
    this.out.path.push(entry);
    return entry;
  }

  private fieldsOf(accountId: string): Promise<FieldSchema> {
    if (!this.fields.has(accountId)) this.fields.set(accountId, fieldSchema(this.tx, accountId));
    return this.fields.get(accountId)!;
  }

  /** Enrolments whose contact meets their version's goal leave, converted, before any step. */
  private async goals(walkers: Walker[]): Promise<void> {
    const byVersion = new Map<string, Walker[]>();
    for (const w of walkers) {
      if (!w.version.settings.goal) continue;
      const key = `${w.e.account_id} ${w.e.automation_id} ${w.e.version}`;
      byVersion.set(key, [...(byVersion.get(key) ?? []), w]);
    }
    for (const group of byVersion.values()) {
      const matched = await this.matching(group, group[0].version.settings.goal as SegmentRule);
      for (const w of group) if (matched.has(w.e.id)) finish(w, 'converted', 'goal');
    }
  }

  /** The enrolments of one account whose contact matches segment rules (and this enrolment's email engagement). */
  private async matching(group: Walker[], rules: SegmentRule): Promise<Set<string>> {
    const { account_id: accountId } = group[0].e;
    const emailSteps = new Set(group[0].version.steps.filter((s) => s.type === 'send_email').map((s) => s.id));
    const condition = compileRules(rules, {
      accountId,
      fields: await this.fieldsOf(accountId),
      now: this.now,
      stepEngagement: (stepId, engagement) => (emailSteps.has(stepId) ? stepEngagementCondition(stepId, engagement) : null),
    }).condition;
    const { rows } = await sql<{ id: string }>`
      select e.id from automation_enrollments e join contacts c on c.account_id = e.account_id and c.id = e.contact_id
      where e.account_id = ${accountId} and e.id = any(${group.map((w) => w.e.id)}::text[]) and ${condition}`.execute(this.tx);
    return new Set(rows.map((r) => r.id));
  }

  private async step(step: AutomationStep, group: Walker[]): Promise<void> {
    switch (step.type) {
      case 'send_email':
        return this.sendEmails(step, group);
      case 'wait':
        for (const w of group) {
          this.enter(w, step);
          const until = waitEnd(step, this.now, zoneOf(w.contact));
          if (until > this.now) park(w, until);
          else w.change.stepId = step.next ?? null;
        }
        return;
      case 'wait_for_event':
        for (const w of group) {
          this.enter(w, step);
          park(w, new Date(this.now.getTime() + (durationMs(step.timeout!) ?? 0)), 'waiting', step.name);
        }
        return;
      case 'condition': {
        const yes = await this.matching(group, step.rules as SegmentRule);
        for (const w of group) {
          const branch = yes.has(w.e.id);
          this.enter(w, step, { branch: branch ? 'yes' : 'no' });
          w.change.stepId = (branch ? step.yes : step.no) ?? null;
        }
        return;
      }
      case 'split':
        for (const w of group) {
          const branches = step.branches ?? [];
          let roll = randomInt(100);
          let index = branches.findIndex((b) => (roll -= b.percent) < 0);
          if (index < 0) index = branches.length - 1;
          this.enter(w, step, { branch: String(index) });
          w.change.stepId = branches[index]?.next ?? null;
        }
        return;
      case 'update_contact':
        return this.updateContacts(step, group);
      case 'webhook':
        for (const w of group) {
          // Posted once the batch has committed; meanwhile the enrolment is held here for a lease.
          // A retry, or a post lost with its process, posts the same id again.
          let pending = w.change.context.webhook as PendingWebhook | undefined;
          if (pending?.step !== step.id) {
            this.enter(w, step);
            pending = { step: step.id, id: newId('whm'), attempt: 0 };
          }
          w.change.context = { ...w.change.context, webhook: pending };
          this.out.webhooks.push({ enrollment: w.e, step, pending, contact: w.contact });
          park(w, new Date(this.now.getTime() + WEBHOOK_LEASE_MS), 'active');
        }
        return;
      case 'exit':
        for (const w of group) {
          this.enter(w, step);
          finish(w, 'exited', 'exit_step');
        }
    }
  }

  private async updateContacts(step: AutomationStep, group: Walker[]): Promise<void> {
    const change = {
      addTags: step.add_tags ?? [],
      removeTags: step.remove_tags ?? [],
      setFields: step.set_fields ?? {},
      addListIds: step.add_list_ids ?? [],
      removeListIds: step.remove_list_ids ?? [],
    };
    await this.deps.contacts.change(
      this.tx,
      group[0].e.account_id,
      group.map((w) => w.contact.id),
      change,
    );
    for (const w of group) {
      // What later steps of this walk render with.
      const tags = [...w.contact.tags, ...change.addTags.filter((t) => !w.contact.tags.includes(t))].filter((t) => !change.removeTags.includes(t));
      const attributes = { ...w.contact.attributes, ...change.setFields };
      for (const [key, value] of Object.entries(change.setFields)) if (value === null) delete attributes[key];
      w.contact = { ...w.contact, tags, attributes };
      this.enter(w, step);
      w.change.stepId = step.next ?? null;
    }
  }

  /** Renders each contact's email (queued with the batch, see `emails`), unless the contact may not get it. */
  private async sendEmails(step: AutomationStep, group: Walker[]): Promise<void> {
    const settings: Settings = group[0].version.settings;
    const { account_id: accountId } = group[0].e;
    const optedOut = settings.topic_id
      ? await this.deps.contacts.optedOut(
          this.tx,
          accountId,
          settings.topic_id,
          group.map((w) => w.contact.id),
        )
      : new Set<string>();
    const sending: { w: Walker; id: string; unsubscribe: string; version: number }[] = [];
    for (const w of group) {
      const opening = windowOpening(settings.send_window, this.now, zoneOf(w.contact));
      if (opening) {
        park(w, opening);
        continue;
      }
      const version = (w.change.context.templates as Record<string, number> | undefined)?.[step.id];
      const refusal =
        w.contact.status !== 'subscribed'
          ? w.contact.status
          : optedOut.has(w.contact.id)
            ? 'opted_out'
            : version === undefined
              ? 'template_not_published'
              : null;
      w.change.stepId = step.next ?? null;
      if (refusal !== null || version === undefined) {
        this.enter(w, step, { detail: refusal });
        continue;
      }
      const id = newId('em');
      sending.push({ w, id, unsubscribe: this.deps.unsubscribeUrl(id), version });
    }
    // The template thread takes them one after another; asked all at once, it is never idle.
    const rendered = await Promise.all(
      sending.map(({ w, unsubscribe, version }) =>
        this.deps.render(accountId, step.template_id!, version, step.subject, {
          ...contactScope(w.contact),
          event: (w.change.context.event as { properties?: unknown } | undefined)?.properties ?? {},
          unsubscribe_url: unsubscribe,
        }),
      ),
    );
    for (const [i, { w, id, unsubscribe }] of sending.entries()) {
      const parts = rendered[i];
      if ('error' in parts) {
        this.enter(w, step, { detail: `render_failed: ${parts.error}` });
        continue;
      }
      this.enter(w, step, {}, id);
      this.out.emails.push({
        id,
        accountId,
        email: w.contact.email,
        fromEmail: step.from_email!,
        fromName: step.from_name ?? null,
        subject: parts.subject,
        html: parts.html ? withFooter(parts.html, unsubscribe) : null,
        text: parts.text && !parts.text.includes(unsubscribe) ? `${parts.text}\n\n--\nUnsubscribe: ${unsubscribe}\n` : parts.text || null,
        headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        journey: { automationId: w.e.automation_id, stepId: step.id, enrollmentId: w.e.id },
      });
    }
  }
}

/** The HTML with an unsubscribe link at its end, unless the template placed `{{ unsubscribe_url }}` itself. */
function withFooter(html: string, unsubscribe: string): string {
  if (html.includes(unsubscribe)) return html;
  const footer = `<p style="font-size:12px;color:#666"><a href="${unsubscribe}">Unsubscribe</a></p>`;
  const end = html.toLowerCase().lastIndexOf('</body>');
  return end < 0 ? html + footer : html.slice(0, end) + footer + html.slice(end);
}

/** Engagement with the email the enrolment `e` got at `stepId` (its latest visit's). */
function stepEngagementCondition(stepId: string, engagement: string): RawBuilder<SqlBool> {
  const message = sql`(select p.message_id from automation_path p where p.account_id = e.account_id and p.enrollment_id = e.id
    and p.step_id = ${stepId} order by p.seq desc limit 1)`;
  const column =
    engagement === 'opened' || engagement === 'not_opened'
      ? sql.ref('m.opened_at')
      : engagement === 'received'
        ? sql.ref('m.sent_at')
        : sql.ref('m.clicked_at');
  const happened = sql<SqlBool>`exists (select 1 from emails m where m.account_id = e.account_id and m.id = ${message} and ${column} is not null)`;
  return engagement.startsWith('not_') ? sql<SqlBool>`not ${happened}` : happened;
}
