import { SEND_JOB } from '../jobs/payloads.ts';
import { sendJobs } from '../sending/send-jobs.ts';
import type { SendingPolicy } from '../sending/identity.ts';
import type { components } from '../../generated/openapi.d.ts';
import { newId } from '../db/ids.ts';
import { sendTests, type TestSending } from '../sending/test-sends.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Db } from '../db/kysely.ts';
import { decodeCursor, toPage } from '../contract/pagination.ts';
import { notFound, validationFailed } from '../contract/problem.ts';
import type { Queue } from '../jobs/queue.ts';
import { campaignContent, type CampaignContent } from '../rendering/campaign-message.ts';
import { sqlOf } from '../db/kysely.ts';
import { publishedBundle, shareTemplate } from '../templates/service.ts';
import type { CampaignRow, MessageStatus } from './entities.ts';
import { CampaignRepository } from './repository.ts';
import { audiences } from './audience.ts';
import { checkContentSource as checkEditorSource } from './content-source.ts';
import { assertDeletable, assertEditable, transition as statusAfter, type CampaignAction, type CampaignStatus } from './state.ts';
import { campaigns, type CampaignOrder, type ListedMessage, type TransitionDetails } from './store.ts';
import type { TemplateThread } from '../rendering/template-thread.ts';
import { checkSegmentIds } from '../segments/service.ts';
import { schedulePlan } from './send-time.ts';
import { abTestErrors } from './ab-test.ts';
import { chooseWinner } from './winner.ts';

/** A campaign's fields as the API takes them (`POST` and `PUT` take the same). */
type CampaignInput = components['schemas']['CampaignCreate'] | components['schemas']['CampaignReplace'];
type ScheduleRequest = components['schemas']['CampaignScheduleRequest'];

export const messageJson = (m: ListedMessage) => ({
  id: m.id,
  campaign_id: m.campaign_id,
  contact_id: m.contact_id,
  email: m.email,
  status: m.status,
  variant: m.variant,
  reason: m.reason,
  attempts: m.attempts,
  sent_at: m.sent_at?.toISOString() ?? null,
  opened_at: m.opened_at?.toISOString() ?? null,
  clicked_at: m.clicked_at?.toISOString() ?? null,
  created_at: m.created_at.toISOString(),
});

/** Checked in the template thread: parsing 1 MB of hostile Liquid or HTML takes a while. */
async function checkTemplates(templates: TemplateThread, input: Partial<CampaignInput>): Promise<void> {
  const errors = await templates
    .errors({ subject: input.subject, content: input.content, text_content: input.text_content, preheader: input.preheader })
    .catch((error: Error) => [{ pointer: '/content', detail: `could not be checked: ${error.message}` }]);
  if (errors.length) throw validationFailed(errors, 'A template does not parse.');
}

/** At most this much `archive_meta` (as JSON): the archive renders with it. */
const MAX_ARCHIVE_META_BYTES = 16 * 1024;

/** A 400 at `pointer` for a JSON value larger than `maxBytes`. */
function checkJsonSize(value: unknown, maxBytes: number, pointer: string): void {
  if (value != null && Buffer.byteLength(JSON.stringify(value)) > maxBytes)
    throw validationFailed([{ pointer, detail: `is larger than ${maxBytes / 1024} KB as JSON` }]);
}

/** Variants and their test, each variant's Liquid parsed in the template thread. */
async function checkVariants(templates: TemplateThread, input: CampaignInput): Promise<void> {
  const parsed = await Promise.all(
    (input.variants ?? []).map((v) =>
      templates
        .errors({ subject: v.subject, content: v.content, text_content: v.text_content ?? undefined })
        .catch((error: Error) => [{ pointer: '/content', detail: `could not be checked: ${error.message}` }]),
    ),
  );
  const errors = abTestErrors(input, parsed);
  if (errors.length) throw validationFailed(errors);
}

/** At most this much `template_data` (as JSON): it is copied into every message's variables. */
const MAX_TEMPLATE_DATA_BYTES = 64 * 1024;

/**
 * A campaign sends a template, or its own `subject` and `content`; a template it names must be
 * the account's, and a version it names must exist. Run in the transaction that writes the
 * campaign: the template stays locked (shared) until it commits, so that it cannot be deleted
 * in between (deleting waits, then finds the campaign).
 */
async function checkContentSource(db: Db, accountId: string, input: CampaignInput): Promise<void> {
  if (input.template_id == null) {
    const missing = (['subject', 'content'] as const).filter((field) => input[field] === undefined);
    if (missing.length) throw validationFailed(missing.map((field) => ({ pointer: `/${field}`, detail: 'is required unless template_id is given' })));
    if (input.template_version != null || input.template_data != null)
      throw validationFailed([{ pointer: input.template_version != null ? '/template_version' : '/template_data', detail: 'needs template_id' }]);
    return;
  }
  checkJsonSize(input.template_data, MAX_TEMPLATE_DATA_BYTES, '/template_data');
  if (!(await shareTemplate(db, accountId, input.template_id)))
    throw validationFailed([{ pointer: '/template_id', detail: 'no template of this account has this id' }]);
  if (input.template_version != null) await publishedBundle(db, accountId, input.template_id, input.template_version);
}

/**
 * What a campaign renders: its own content, or its template's version (the one it names, else
 * the latest published) with the partials frozen into it; one query per campaign, never per message.
 */
export async function resolvedContent(db: Db, campaign: CampaignRow): Promise<CampaignContent> {
  const content = campaignContent(campaign);
  if (campaign.templateId === null) return content;
  const { bundle } = await publishedBundle(db, campaign.accountId, campaign.templateId, campaign.templateVersion ?? undefined);
  return { ...content, template: bundle, templateData: campaign.templateData };
}

/**
 * What campaigns check in other modules' tables, in the caller's transaction (`db`): handed in by
 * the composition root.
 */
export interface CampaignLookups {
  /** Of `ids`, those that are lists of the account. */
  existingLists(db: Db, accountId: string, ids: readonly string[]): Promise<Set<string>>;
  topicExists(db: Db, accountId: string, id: string): Promise<boolean>;
  /** The zone of the account's contacts without their own. */
  accountTimeZone(db: Db, accountId: string): Promise<string>;
}

/**
 * Deletes or detaches, in the deleting transaction, what other features keep of a campaign
 * being deleted and no foreign key reaches: its messages, opens and clicks; its conversions and
 * payments.
 */
export type ForgetCampaign = (db: Db, accountId: string, campaignId: string) => Promise<void>;

/** An audience names only lists of the account. */
async function checkLists(lookups: CampaignLookups, em: EntityManager, accountId: string, input: CampaignInput): Promise<void> {
  const ids = input.audience?.list_ids ?? [];
  const known = await lookups.existingLists(sqlOf(em), accountId, ids);
  const errors = ids.flatMap((id, i) => (known.has(id) ? [] : [{ pointer: `/audience/list_ids/${i}`, detail: 'is not a list of this account' }]));
  if (errors.length) throw validationFailed(errors);
}

function fields(input: CampaignInput) {
  return {
    name: input.name,
    subject: input.subject ?? '',
    fromEmail: input.from_email,
    content: input.content ?? '',
    templateId: input.template_id ?? null,
    templateVersion: input.template_id == null ? null : (input.template_version ?? null),
    templateData: input.template_id == null ? null : (input.template_data ?? null),
    fromName: input.from_name ?? null,
    replyTo: input.reply_to ?? null,
    textContent: input.text_content ?? null,
    contentSource: input.content_source ?? null,
    preheader: input.preheader ?? null,
    audience: input.audience ?? {},
    topicId: input.topic_id ?? null,
    trackOpens: input.track_opens ?? true,
    trackClicks: input.track_clicks ?? true,
    webVersionLink: input.web_version_link ?? true,
    archive: input.archive ?? false,
    archiveMeta: input.archive_meta ?? null,
    variants: input.variants ?? null,
    abTest: input.ab_test ?? null,
  };
}

export class CampaignService {
  private readonly repo: CampaignRepository;
  private readonly em: EntityManager;
  private readonly queue: Queue;
  private readonly testSending: TestSending;
  private readonly templates: TemplateThread;
  private readonly workersPerCampaign: number;
  private readonly lookups: CampaignLookups;
  private readonly policy: SendingPolicy;
  private readonly forgetCampaign: ForgetCampaign;

  constructor(
    repo: CampaignRepository,
    em: EntityManager,
    queue: Queue,
    testSending: TestSending,
    templates: TemplateThread,
    workersPerCampaign: number,
    lookups: CampaignLookups,
    policy: SendingPolicy,
    forgetCampaign: ForgetCampaign,
  ) {
    this.repo = repo;
    this.em = em;
    this.queue = queue;
    this.testSending = testSending;
    this.templates = templates;
    this.workersPerCampaign = workersPerCampaign;
    this.lookups = lookups;
    this.policy = policy;
    this.forgetCampaign = forgetCampaign;
  }

  async create(accountId: string, input: CampaignInput): Promise<CampaignRow> {
    checkEditorSource(input.content_source);
    checkJsonSize(input.archive_meta, MAX_ARCHIVE_META_BYTES, '/archive_meta');
    await checkTemplates(this.templates, input);
    await checkVariants(this.templates, input);
    await this.checkTopic(accountId, input.topic_id);
    return this.em.transactional(async (em) => {
      await checkContentSource(sqlOf(em), accountId, input);
      await checkSegmentIds(sqlOf(em), accountId, input.audience?.segment_ids, '/audience/segment_ids');
      await checkLists(this.lookups, em, accountId, input);
      return campaigns.create(em, { id: newId('cmp'), accountId, status: 'draft', ...fields(input) });
    });
  }

  /** A campaign's topic is one of the account's. */
  private async checkTopic(accountId: string, topicId: string | null | undefined): Promise<void> {
    if (topicId && !(await this.lookups.topicExists(sqlOf(this.em), accountId, topicId))) {
      throw validationFailed([{ pointer: '/topic_id', detail: 'is not a topic of this account' }]);
    }
  }

  async list(accountId: string, status: CampaignStatus | undefined, order: CampaignOrder, limit: number, cursor?: string) {
    const rows = await this.repo.page(accountId, status, order, decodeCursor(cursor), limit);
    return toPage(
      rows,
      limit,
      (c) => ({ at: c.createdAt, id: c.id }),
      (c) => c,
    );
  }

  async get(accountId: string, id: string): Promise<CampaignRow> {
    const campaign = await this.repo.byId(accountId, id);
    if (!campaign) throw notFound('campaign');
    return campaign;
  }

  async update(accountId: string, id: string, input: CampaignInput): Promise<CampaignRow> {
    checkEditorSource(input.content_source);
    checkJsonSize(input.archive_meta, MAX_ARCHIVE_META_BYTES, '/archive_meta');
    return this.locked(accountId, id, async (campaign, em) => {
      assertEditable(campaign.status);
      await checkContentSource(sqlOf(em), accountId, input);
      await checkTemplates(this.templates, input);
      await checkVariants(this.templates, input);
      if (input.variants && campaign.sendTime?.by_contact_timezone)
        throw validationFailed([{ pointer: '/variants', detail: "cannot test a campaign scheduled in each contact's time zone: unschedule it first" }]);
      await checkSegmentIds(sqlOf(em), accountId, input.audience?.segment_ids, '/audience/segment_ids');
      await checkLists(this.lookups, em, accountId, input);
      await this.checkTopic(accountId, input.topic_id);
      Object.assign(campaign, fields(input));
    });
  }

  /** How many contacts the campaign would send to if it started now. */
  async audienceCount(accountId: string, id: string): Promise<number> {
    return audiences.count(sqlOf(this.em), await this.get(accountId, id));
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.locked(accountId, id, async (campaign, em) => {
      assertDeletable(campaign.status);
      await this.forgetCampaign(sqlOf(em), accountId, id);
      campaigns.remove(em, campaign);
    });
  }

  /** Sends now, or schedules for `scheduledAt`; sending now forgets a schedule's wall-clock time. */
  async send(accountId: string, id: string, scheduledAt?: string): Promise<CampaignRow> {
    if (scheduledAt) return this.schedule(accountId, id, { scheduled_at: scheduledAt });
    await this.requireSendable(accountId, id);
    return this.start(accountId, id, { now: true });
  }

  async schedule(accountId: string, id: string, request: ScheduleRequest): Promise<CampaignRow> {
    await this.requireSendable(accountId, id);
    const plan = schedulePlan(request, await this.lookups.accountTimeZone(sqlOf(this.em), accountId), new Date());
    return this.locked(accountId, id, async (campaign, em) => {
      if (campaign.variants && plan.sendTime?.by_contact_timezone)
        throw validationFailed([{ pointer: '/by_contact_timezone', detail: 'cannot send an A/B test, which sends its test group at one time' }]);
      // Refused now rather than failing at its time: the template must have a version to send.
      if (campaign.templateId !== null) {
        await shareTemplate(sqlOf(em), accountId, campaign.templateId);
        await publishedBundle(sqlOf(em), accountId, campaign.templateId, campaign.templateVersion ?? undefined);
      }
      await campaigns.transition(em, campaign, 'schedule', { scheduledAt: plan.startAt, sendTime: plan.sendTime });
    });
  }

  unschedule(accountId: string, id: string): Promise<CampaignRow> {
    return this.move(accountId, id, 'unschedule');
  }

  /**
   * Refuses a campaign whose from address the account may not send from (`SENDING_DOMAIN_POLICY`).
   * Checked when it is sent, scheduled or resumed through the API; a scheduled campaign starts
   * at its time as it was accepted.
   */
  private async requireSendable(accountId: string, id: string): Promise<void> {
    const campaign = await this.get(accountId, id);
    await this.policy.requireSendable(accountId, campaign.fromEmail, '/from_email');
  }

  /**
   * Starts sending now: the audience is snapshotted in the same transaction as the status change,
   * and a template's version is frozen (the latest published one when none was named), its
   * template locked meanwhile so that it cannot be deleted under the campaign.
   */
  async start(accountId: string, id: string, options: { now?: boolean } = {}): Promise<CampaignRow> {
    const accountTimeZone = await this.lookups.accountTimeZone(sqlOf(this.em), accountId);
    const campaign = await this.locked(accountId, id, async (campaign, em) => {
      this.sendingSoon(campaign, 'start');
      if (options.now) campaign.sendTime = null;
      if (campaign.templateId !== null && campaign.status !== 'sending') {
        await shareTemplate(sqlOf(em), accountId, campaign.templateId);
        const { version } = await publishedBundle(sqlOf(em), accountId, campaign.templateId, campaign.templateVersion ?? undefined);
        campaign.templateVersion = version.version;
      }
      await campaigns.transition(em, campaign, 'start', { accountTimeZone });
    });
    await sendJobs(this.queue, campaign.id, this.workersPerCampaign);
    return campaign;
  }

  pause(accountId: string, id: string): Promise<CampaignRow> {
    return this.move(accountId, id, 'pause');
  }

  async resume(accountId: string, id: string): Promise<CampaignRow> {
    await this.requireSendable(accountId, id);
    const campaign = await this.locked(accountId, id, async (campaign, em) => {
      this.sendingSoon(campaign, 'resume');
      await campaigns.transition(em, campaign, 'resume');
    });
    await sendJobs(this.queue, campaign.id, this.workersPerCampaign);
    return campaign;
  }

  cancel(accountId: string, id: string): Promise<CampaignRow> {
    return this.move(accountId, id, 'cancel');
  }

  /** Chooses the A/B test's winner by hand; a sending campaign's rest goes out with it at once. */
  async winner(accountId: string, id: string, variant: string): Promise<CampaignRow> {
    const campaign = await chooseWinner(this.em, id, accountId, variant);
    if (campaign.status === 'sending') await sendJobs(this.queue, campaign.id, this.workersPerCampaign);
    return campaign;
  }

  async duplicate(accountId: string, id: string): Promise<CampaignRow> {
    const source = await this.get(accountId, id);
    const copy = this.repo.create({
      id: newId('cmp'),
      accountId,
      status: 'draft',
      ...fields({
        name: `${source.name} (copy)`,
        subject: source.subject,
        from_email: source.fromEmail,
        content: source.content,
        from_name: source.fromName,
        reply_to: source.replyTo,
        text_content: source.textContent,
        content_source: source.contentSource,
        preheader: source.preheader,
        audience: source.audience,
        topic_id: source.topicId,
        track_opens: source.trackOpens,
        track_clicks: source.trackClicks,
        web_version_link: source.webVersionLink,
        archive: source.archive,
        archive_meta: source.archiveMeta,
        variants: source.variants,
        ab_test: source.abTest,
        template_id: source.templateId,
        template_version: source.templateVersion,
        template_data: source.templateData,
      }),
    });
    await this.em.flush();
    return copy;
  }

  /** Sends the campaign to up to 10 addresses now, marked as a test; no statistics count it. */
  async test(accountId: string, id: string, emails: string[]) {
    const campaign = await this.get(accountId, id);
    await this.policy.requireSendable(accountId, campaign.fromEmail, '/from_email');
    return sendTests(this.repo, this.testSending, accountId, await resolvedContent(sqlOf(this.em), campaign), emails);
  }

  async messages(accountId: string, id: string, status: MessageStatus | undefined, limit: number, cursor?: string) {
    // Both at once: the page is thrown away unless the account has the campaign.
    const [found, rows] = await Promise.all([this.repo.exists(accountId, id), this.repo.messages(accountId, id, status, decodeCursor(cursor), limit)]);
    if (!found) throw notFound('campaign');
    return toPage(rows, limit, (m) => ({ at: m.created_at, id: m.id }), messageJson);
  }

  /**
   * Refuses a move the campaign's status does not allow (409), then tells this process's sending
   * worker a send job is coming: its threads load while the transaction runs.
   */
  private sendingSoon(campaign: CampaignRow, action: 'start' | 'resume'): void {
    statusAfter(campaign.status, action);
    this.queue.coming(SEND_JOB);
  }

  /** Moves the campaign through the state machine, locked, in one transaction. */
  private move(accountId: string, id: string, action: CampaignAction, details?: TransitionDetails): Promise<CampaignRow> {
    return this.locked(accountId, id, async (campaign, em) => {
      await campaigns.transition(em, campaign, action, details);
    });
  }

  /** Loads the campaign locked, applies `change` and commits, all in one transaction. */
  private async locked(accountId: string, id: string, change: (c: CampaignRow, em: EntityManager) => Promise<void> | void): Promise<CampaignRow> {
    return this.em.transactional(async (em) => {
      const campaign = await campaigns.lock(em, id, accountId);
      if (!campaign) throw notFound('campaign');
      await change(campaign, em);
      return campaign;
    });
  }
}
