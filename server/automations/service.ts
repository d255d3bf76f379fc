import { sql, type SqlBool } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { newId } from '../db/ids.ts';
import { decodeCursor, toPage, type Page } from '../contract/pagination.ts';
import { conflict, notFound, Problem, validationFailed, type FieldError } from '../contract/problem.ts';
import { compileRules } from '../segments/compiler.ts';
import { fieldSchema } from '../fields/definitions.ts';
import { attributeErrors } from '../fields/rules.ts';
import type { SegmentRule } from '../segments/rules.ts';
import { declareInterests, signal, type SignalKind } from '../signals/outbox.ts';
import { graphErrors } from './graph.ts';
import { markSegmentMembers } from './sweeps.ts';
import { segmentsCondition } from '../segments/service.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { newWebhookSecret } from '../webhooks/signing.ts';
import { urlProblem, type GuardSettings } from '../webhooks/address-guard.ts';
import type { JourneyContacts } from './journey-deps.ts';
import { automationJson, enrollmentJson } from './json.ts';
import type { JourneyRunner } from './runner.ts';
import { automations, enrollments, isFinished, type AutomationRecord } from './store.ts';
import type { AutomationStatus, EnrollmentStatus } from './entities.ts';

type Schemas = components['schemas'];
type AutomationJson = Schemas['Automation'];
type EnrollmentJson = Schemas['Enrollment'];

/** At most this much of an event's `properties`, as JSON. */
const MAX_EVENT_BYTES = 16 * 1024;
const MAX_ENROL = 10_000;

/** What the service needs to look up of the account's other resources when it checks a journey. */
export interface AutomationLookups {
  listsExist(db: Db, accountId: string, ids: readonly string[]): Promise<Set<string>>;
  segmentExists(db: Db, accountId: string, id: string): Promise<boolean>;
  topicExists(db: Db, accountId: string, id: string): Promise<boolean>;
  publishedVersion(db: Db, accountId: string, templateId: string): Promise<number | null>;
  templateExists(db: Db, accountId: string, id: string): Promise<boolean>;
}

/** An object without its null members: some generated SDKs send every property of a model, null when not set. */
function present<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) as T;
}

/** The journey's parts as given, a null member read as one left out (`next: null` and no `next` both end the journey). */
function journeyOf(body: Pick<Schemas['AutomationUpdate'], 'trigger' | 'steps' | 'settings'>) {
  return {
    ...(body.trigger ? { trigger: present(body.trigger) } : {}),
    ...(body.steps ? { steps: body.steps.map(present) } : {}),
    ...(body.settings ? { settings: present(body.settings) } : {}),
  };
}

/** The signal a trigger listens for, if it is one signals carry. */
function interestOf(trigger: Schemas['AutomationTrigger']): { kind: SignalKind; key: string } | null {
  switch (trigger.type) {
    case 'contact_created':
      return { kind: 'contact_created', key: '' };
    case 'tag_added':
      return { kind: 'tag_added', key: trigger.tag ?? '' };
    case 'list_joined':
      return { kind: 'list_joined', key: trigger.list_id ?? '' };
    case 'event':
      return { kind: 'event', key: trigger.name ?? '' };
    default:
      return null;
  }
}

/** Automations: saving and checking journeys, their life cycle, enrolments by hand and by event, and their figures. */
export class AutomationService {
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly lookups: AutomationLookups;
  private readonly contacts: JourneyContacts;
  private readonly runner: Pick<JourneyRunner, 'enrol' | 'poke'>;
  private readonly box: SecretBox;
  private readonly guard: GuardSettings;

  constructor(
    db: Db,
    transactions: Transactions,
    lookups: AutomationLookups,
    contacts: JourneyContacts,
    runner: Pick<JourneyRunner, 'enrol' | 'poke'>,
    box: SecretBox,
    guard: GuardSettings,
  ) {
    this.box = box;
    this.guard = guard;
    this.db = db;
    this.transactions = transactions;
    this.lookups = lookups;
    this.contacts = contacts;
    this.runner = runner;
  }

  async create(accountId: string, given: Schemas['AutomationCreate']): Promise<AutomationJson> {
    const body = { ...given, ...journeyOf(given) };
    const settings = body.settings ?? {};
    await this.check(accountId, body.trigger, body.steps, settings, false);
    const row = await automations.insert(this.db, {
      account_id: accountId,
      id: newId('aut'),
      name: body.name,
      status: 'draft',
      trigger: body.trigger,
      steps: body.steps,
      settings,
      webhook_secret_sealed: this.box.seal(newWebhookSecret()),
    });
    return automationJson(row);
  }

  async webhookSecret(accountId: string, id: string): Promise<Schemas['AutomationWebhookSecret']> {
    return { secret: this.box.open((await this.load(this.db, accountId, id)).webhook_secret_sealed) };
  }

  async list(accountId: string, status: AutomationStatus | undefined, limit: number, cursor: string | undefined): Promise<Page<AutomationJson>> {
    const rows = await automations.page(this.db, accountId, status, decodeCursor(cursor), limit);
    return toPage(rows, limit, (r) => ({ at: r.created_at, id: r.id }), automationJson);
  }

  async get(accountId: string, id: string): Promise<AutomationJson> {
    return automationJson(await this.load(this.db, accountId, id));
  }

  private async load(db: Db, accountId: string, id: string, lock = false): Promise<AutomationRecord> {
    const row = await automations.get(db, accountId, id, lock);
    if (!row) throw notFound('automation');
    return row;
  }

  /** A change of an active or paused automation's journey is a new version, taken by contacts who enrol from now on. */
  async update(accountId: string, id: string, given: Schemas['AutomationUpdate']): Promise<AutomationJson> {
    const body = { ...given, ...journeyOf(given) };
    const current = await this.load(this.db, accountId, id);
    if (current.status === 'archived')
      throw conflict('invalid_state_transition', 'An archived automation cannot be changed.', { current_status: current.status });
    const next = { trigger: body.trigger ?? current.trigger, steps: body.steps ?? current.steps, settings: body.settings ?? current.settings };
    await this.check(accountId, next.trigger, next.steps, next.settings, current.status !== 'draft');
    return this.transactions.run(async (tx) => {
      const locked = await this.load(tx, accountId, id, true);
      const live = locked.status === 'active' || locked.status === 'paused';
      const journeyChanged = body.trigger !== undefined || body.steps !== undefined || body.settings !== undefined;
      const version = live && journeyChanged ? locked.version + 1 : locked.version;
      const row = await automations.update(tx, accountId, id, { ...(body.name !== undefined ? { name: body.name } : {}), ...next, version });
      if (version !== locked.version) await automations.addVersion(tx, row, version);
      if (locked.status === 'active') await this.listen(tx, row);
      return automationJson(row);
    });
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      if (!(await automations.delete(tx, accountId, id))) throw notFound('automation');
      await declareInterests(tx, accountId, id, []);
    });
  }

  async activate(accountId: string, id: string): Promise<AutomationJson> {
    const current = await this.load(this.db, accountId, id);
    await this.check(accountId, current.trigger, current.steps, current.settings, true);
    const row = await this.transactions.run(async (tx) => {
      const locked = await this.load(tx, accountId, id, true);
      if (locked.status === 'active') return locked;
      if (locked.status === 'archived')
        throw conflict('invalid_state_transition', 'An archived automation cannot be activated.', { current_status: locked.status });
      // A draft's first activation, or a paused one with changes since its version was frozen, freezes a new version.
      const version = locked.version === 0 ? 1 : locked.version;
      const row = await automations.update(tx, accountId, id, { status: 'active', version, activated_at: new Date() });
      if (locked.version === 0) await automations.addVersion(tx, row, version);
      await this.listen(tx, row);
      // Who is in the segment now is where "newly matching" counts from.
      if (row.trigger.type === 'segment_entered')
        await markSegmentMembers(tx, row, await segmentsCondition(tx, accountId, [row.trigger.segment_id!], '/trigger/segment_id'));
      return row;
    });
    this.runner.poke();
    return automationJson(row);
  }

  async pause(accountId: string, id: string): Promise<AutomationJson> {
    return this.transactions.run(async (tx) => {
      const locked = await this.load(tx, accountId, id, true);
      if (locked.status === 'paused') return automationJson(locked);
      if (locked.status !== 'active')
        throw conflict('invalid_state_transition', `The automation is ${locked.status}; only an active one can be paused.`, { current_status: locked.status });
      const row = await automations.update(tx, accountId, id, { status: 'paused' });
      await declareInterests(tx, accountId, id, []);
      return automationJson(row);
    });
  }

  async archive(accountId: string, id: string): Promise<AutomationJson> {
    return this.transactions.run(async (tx) => {
      const locked = await this.load(tx, accountId, id, true);
      if (locked.status === 'archived') return automationJson(locked);
      const row = await automations.update(tx, accountId, id, { status: 'archived' });
      await declareInterests(tx, accountId, id, []);
      await enrollments.exitAll(tx, accountId, { automationId: id }, 'archived');
      return automationJson(row);
    });
  }

  /** Signals of the trigger are written from now on (and no others of this automation). */
  private async listen(tx: Db, row: AutomationRecord): Promise<void> {
    const interest = interestOf(row.trigger);
    await declareInterests(tx, row.account_id, row.id, interest ? [interest] : []);
  }

  async enroll(accountId: string, id: string, body: Schemas['EnrollmentCreate']): Promise<Schemas['EnrollmentResult']> {
    const ids = body.contact_ids ?? [];
    const emails = body.emails ?? [];
    if (!ids.length && !emails.length) throw validationFailed([{ pointer: '/contact_ids', detail: 'give contact_ids or emails' }]);
    if (ids.length + emails.length > MAX_ENROL) throw validationFailed([{ pointer: '/contact_ids', detail: `at most ${MAX_ENROL} contacts in all` }]);
    const result = await this.transactions.run(async (tx) => {
      const automation = await this.load(tx, accountId, id, true);
      if (automation.status !== 'active')
        throw conflict('invalid_state_transition', `The automation is ${automation.status}; contacts enrol in an active one only.`, {
          current_status: automation.status,
        });
      const found = await this.contacts.find(tx, accountId, ids, emails);
      const byId = new Set(found.map((c) => c.id));
      const byEmail = new Set(found.map((c) => c.email.toLowerCase()));
      const skipped: Schemas['EnrollmentSkip'][] = [
        ...ids.filter((c) => !byId.has(c)).map((contact) => ({ contact, reason: 'not_found' as const })),
        ...emails.filter((e) => !byEmail.has(e.toLowerCase())).map((contact) => ({ contact, reason: 'not_found' as const })),
      ];
      const made = await this.runner.enrol(
        tx,
        accountId,
        id,
        automation.version,
        found.map((c) => ({ contactId: c.id, context: {} })),
      );
      const enrolled = new Set(made.map((m) => m.contact_id));
      const seen = new Set<string>();
      for (const c of found) {
        if (enrolled.has(c.id) || seen.has(c.id)) continue;
        seen.add(c.id);
        skipped.push({ contact: ids.includes(c.id) ? c.id : c.email, reason: 'reentry' });
      }
      return { enrolled: made.length, skipped };
    });
    this.runner.poke();
    return result;
  }

  async listEnrollments(
    accountId: string,
    by: { automationId?: string; contactId?: string; status?: EnrollmentStatus },
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<EnrollmentJson>> {
    if (by.automationId) await this.load(this.db, accountId, by.automationId);
    if (by.contactId && !(await this.contacts.read(this.db, accountId, [by.contactId])).size) throw notFound('contact');
    const rows = await enrollments.page(this.db, accountId, by, decodeCursor(cursor), limit);
    const paths = await enrollments.paths(
      this.db,
      accountId,
      rows.slice(0, limit).map((r) => r.id),
    );
    return toPage(
      rows,
      limit,
      (r) => ({ at: r.created_at, id: r.id }),
      (r) => enrollmentJson(r, paths),
    );
  }

  async cancelEnrollment(accountId: string, automationId: string, enrollmentId: string): Promise<EnrollmentJson> {
    return this.transactions.run(async (tx) => {
      const e = await enrollments.get(tx, accountId, enrollmentId, true);
      if (!e || e.automation_id !== automationId) throw notFound('enrollment');
      if (isFinished(e.status)) throw conflict('enrollment_finished', `The enrollment is ${e.status} already.`, { current_status: e.status });
      await enrollments.apply(tx, [
        {
          accountId,
          id: e.id,
          status: 'exited',
          stepId: null,
          dueAt: null,
          waitingFor: null,
          context: e.context,
          visits: e.visits,
          exitReason: 'cancelled',
          finished: true,
        },
      ]);
      const row = (await enrollments.get(tx, accountId, enrollmentId))!;
      return enrollmentJson(row, await enrollments.paths(tx, accountId, [row.id]));
    });
  }

  /** A custom event: a signal for the journeys it triggers and those waiting for it. */
  async postEvent(accountId: string, contactId: string, body: Schemas['ContactEventCreate']): Promise<Schemas['ContactEvent']> {
    const properties = body.properties ?? {};
    if (Buffer.byteLength(JSON.stringify(properties)) > MAX_EVENT_BYTES)
      throw validationFailed([{ pointer: '/properties', detail: `is larger than ${MAX_EVENT_BYTES / 1024} KB as JSON` }]);
    if (!(await this.contacts.read(this.db, accountId, [contactId])).size) throw notFound('contact');
    const [id] = await signal(this.db, accountId, [{ kind: 'event', contactId, key: body.name, data: properties }]);
    this.runner.poke();
    return { id, contact_id: contactId, name: body.name, properties, created_at: new Date().toISOString() };
  }

  async analytics(accountId: string, id: string): Promise<Schemas['AutomationAnalytics']> {
    const automation = await this.load(this.db, accountId, id);
    const counts = await enrollments.counts(this.db, accountId, id);
    const figures = new Map((await enrollments.stepFigures(this.db, accountId, id)).map((f) => [f.step_id, f]));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    return {
      automation_id: id,
      enrollments: { total, ...counts },
      steps: automation.steps.map((step) => {
        const f = figures.get(step.id);
        const entered = f?.entered ?? 0;
        const waiting = f?.here ?? 0;
        return {
          step_id: step.id,
          type: step.type,
          entered,
          waiting,
          completed: Math.max(0, entered - waiting - (f?.failed_here ?? 0)),
          emails:
            step.type === 'send_email'
              ? {
                  sent: f?.sent ?? 0,
                  delivered: f?.delivered ?? 0,
                  opened: f?.opened ?? 0,
                  clicked: f?.clicked ?? 0,
                  bounced: f?.bounced ?? 0,
                  unsubscribed: f?.unsubscribed ?? 0,
                  complained: f?.complained ?? 0,
                }
              : null,
        };
      }),
    };
  }

  /**
   * The journey as a graph (graph.ts), then what it names of the account: templates (published,
   * when activating), lists, segments, the topic, custom fields, rules. The first fault found in
   * each answers 400 at its pointer; all of them are listed.
   */
  private async check(
    accountId: string,
    trigger: Schemas['AutomationTrigger'],
    steps: Schemas['AutomationStep'][],
    settings: Schemas['AutomationSettings'],
    activating: boolean,
  ): Promise<void> {
    const errors: FieldError[] = graphErrors(trigger, steps, activating);
    const fields = await fieldSchema(this.db, accountId);
    const now = new Date();
    const emailSteps = new Set(steps.filter((s) => s.type === 'send_email').map((s) => s.id));
    /** A condition's rules may read its enrolment's emails; a goal's are on the contact alone. */
    const rulesErrors = (rules: unknown, pointer: string, ofSteps: boolean) => {
      const stepEngagement = (stepId: string) => (emailSteps.has(stepId) ? sql<SqlBool>`true` : null);
      try {
        compileRules(rules as SegmentRule, { accountId, fields, now, ...(ofSteps ? { stepEngagement } : {}) }, pointer);
      } catch (error) {
        if (error instanceof Problem && error.errors) errors.push(...error.errors);
        else throw error;
      }
    };
    if (trigger.type === 'list_joined' && trigger.list_id && !(await this.lookups.listsExist(this.db, accountId, [trigger.list_id])).size)
      errors.push({ pointer: '/trigger/list_id', detail: 'no list of this account has this id' });
    if (trigger.type === 'segment_entered' && trigger.segment_id && !(await this.lookups.segmentExists(this.db, accountId, trigger.segment_id)))
      errors.push({ pointer: '/trigger/segment_id', detail: 'no segment of this account has this id' });
    if (trigger.type === 'date' && trigger.field && trigger.field !== 'created_at' && fields.get(trigger.field)?.type !== 'date')
      errors.push({ pointer: '/trigger/field', detail: 'must be created_at or the key of a date custom field' });
    for (const [i, step] of steps.entries()) {
      const at = `/steps/${i}`;
      if (step.type === 'send_email' && step.template_id) {
        const published = await this.lookups.publishedVersion(this.db, accountId, step.template_id);
        if (published === null) {
          if (!(await this.lookups.templateExists(this.db, accountId, step.template_id)))
            errors.push({ pointer: `${at}/template_id`, detail: 'no template of this account has this id' });
          else if (activating) errors.push({ pointer: `${at}/template_id`, detail: 'the template has no published version: publish it first' });
        }
      }
      if (step.type === 'condition' && step.rules) rulesErrors(step.rules, `${at}/rules`, true);
      if (step.type === 'webhook' && step.url) {
        const problem = urlProblem(step.url, this.guard);
        if (problem) errors.push({ pointer: `${at}/url`, detail: problem.detail });
      }
      if (step.type === 'update_contact') {
        const lists = [...(step.add_list_ids ?? []), ...(step.remove_list_ids ?? [])];
        const found = await this.lookups.listsExist(this.db, accountId, lists);
        for (const [key, ids] of [
          ['add_list_ids', step.add_list_ids ?? []],
          ['remove_list_ids', step.remove_list_ids ?? []],
        ] as const)
          ids.forEach((listId, n) => found.has(listId) || errors.push({ pointer: `${at}/${key}/${n}`, detail: 'no list of this account has this id' }));
        if (step.set_fields)
          for (const e of attributeErrors(fields, step.set_fields))
            errors.push({ pointer: `${at}/set_fields${e.pointer.replace(/^\/attributes/, '')}`, detail: e.detail });
      }
    }
    if (settings.goal) rulesErrors(settings.goal, '/settings/goal', false);
    if (settings.topic_id && !(await this.lookups.topicExists(this.db, accountId, settings.topic_id)))
      errors.push({ pointer: '/settings/topic_id', detail: 'no topic of this account has this id' });
    if (settings.send_window && settings.send_window.from === settings.send_window.to % 24)
      errors.push({ pointer: '/settings/send_window', detail: 'from and to must differ' });
    if (errors.length) throw validationFailed(errors, "The automation's steps do not form a journey.");
  }
}
