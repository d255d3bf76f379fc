import type { components } from '../../generated/openapi.d.ts';
import { newId } from '../db/ids.ts';
import { newTestMessageId } from '../sending/test-message.ts';
import type { EntityManager } from '../db/orm.ts';
import { decodeCursor, toPage } from '../http/pagination.ts';
import { notFound, validationFailed } from '../http/problem.ts';
import type { Queue } from '../jobs/queue.ts';
import type { MailTransport } from '../sending/transport.ts';
import { campaignContent, type Recipient } from '../sending/render.ts';
import type { CampaignRow, MessageStatus } from './entities.ts';
import { CampaignRepository } from './repository.ts';
import { assertDeletable, assertEditable, type CampaignAction, type CampaignStatus } from './state.ts';
import { campaigns, type ListedMessage, type TransitionDetails } from './store.ts';
import type { TemplateThread } from './template-thread.ts';
import { sqlOf } from '../db/kysely.ts';
import { topicExists } from '../topics/store.ts';

export const SEND_JOB = 'campaigns.send';

/**
 * Makes sure the campaign has its `count` send jobs, due now: one per slot, so asking again (a
 * resume, the tick after a restart) adds none.
 */
export async function sendJobs(queue: Queue, campaignId: string, count: number): Promise<void> {
  for (let slot = 0; slot < count; slot++) await queue.ensure(SEND_JOB, { campaignId, slot }, ['campaignId', 'slot']);
}

/** A campaign's fields as the API takes them (`POST` and `PUT` take the same). */
type CampaignInput = components['schemas']['CampaignCreate'] | components['schemas']['CampaignReplace'];

export const messageJson = (m: ListedMessage) => ({
  id: m.id,
  campaign_id: m.campaign_id,
  contact_id: m.contact_id,
  email: m.email,
  status: m.status,
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

function fields(input: CampaignInput) {
  return {
    name: input.name,
    subject: input.subject,
    fromEmail: input.from_email,
    content: input.content,
    fromName: input.from_name ?? null,
    replyTo: input.reply_to ?? null,
    textContent: input.text_content ?? null,
    preheader: input.preheader ?? null,
    audience: input.audience ?? {},
    topicId: input.topic_id ?? null,
    trackOpens: input.track_opens ?? true,
    trackClicks: input.track_clicks ?? true,
  };
}

export class CampaignService {
  private readonly repo: CampaignRepository;
  private readonly em: EntityManager;
  private readonly queue: Queue;
  private readonly transport: MailTransport;
  private readonly templates: TemplateThread;
  private readonly workersPerCampaign: number;

  constructor(repo: CampaignRepository, em: EntityManager, queue: Queue, transport: MailTransport, templates: TemplateThread, workersPerCampaign: number) {
    this.repo = repo;
    this.em = em;
    this.queue = queue;
    this.transport = transport;
    this.templates = templates;
    this.workersPerCampaign = workersPerCampaign;
  }

  async create(accountId: string, input: CampaignInput): Promise<CampaignRow> {
    await checkTemplates(this.templates, input);
    await this.checkTopic(accountId, input.topic_id);
    const campaign = this.repo.create({ id: newId('cmp'), accountId, status: 'draft', ...fields(input) });
    await this.em.flush();
    return campaign;
  }

  /** A campaign's topic is one of the account's. */
  private async checkTopic(accountId: string, topicId: string | null | undefined): Promise<void> {
    if (topicId && !(await topicExists(sqlOf(this.em), accountId, topicId))) {
      throw validationFailed([{ pointer: '/topic_id', detail: 'is not a topic of this account' }]);
    }
  }

  async list(accountId: string, status: CampaignStatus | undefined, limit: number, cursor?: string) {
    const rows = await this.repo.page(accountId, status, decodeCursor(cursor), limit);
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
    return this.locked(accountId, id, async (campaign) => {
      assertEditable(campaign.status);
      await checkTemplates(this.templates, input);
      await this.checkTopic(accountId, input.topic_id);
      Object.assign(campaign, fields(input));
    });
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.locked(accountId, id, (campaign, em) => {
      assertDeletable(campaign.status);
      campaigns.remove(em, campaign);
    });
  }

  async send(accountId: string, id: string, scheduledAt?: string): Promise<CampaignRow> {
    return scheduledAt ? this.schedule(accountId, id, scheduledAt) : this.start(accountId, id);
  }

  async schedule(accountId: string, id: string, at: string): Promise<CampaignRow> {
    const when = new Date(at);
    if (when.getTime() <= Date.now()) throw validationFailed([{ pointer: '/scheduled_at', detail: 'must be in the future' }]);
    return this.move(accountId, id, 'schedule', { scheduledAt: when });
  }

  unschedule(accountId: string, id: string): Promise<CampaignRow> {
    return this.move(accountId, id, 'unschedule');
  }

  /** Starts sending now: the audience is snapshotted in the same transaction as the status change. */
  async start(accountId: string, id: string): Promise<CampaignRow> {
    const campaign = await this.move(accountId, id, 'start');
    await sendJobs(this.queue, campaign.id, this.workersPerCampaign);
    return campaign;
  }

  pause(accountId: string, id: string): Promise<CampaignRow> {
    return this.move(accountId, id, 'pause');
  }

  async resume(accountId: string, id: string): Promise<CampaignRow> {
    const campaign = await this.move(accountId, id, 'resume');
    await sendJobs(this.queue, campaign.id, this.workersPerCampaign);
    return campaign;
  }

  cancel(accountId: string, id: string): Promise<CampaignRow> {
    return this.move(accountId, id, 'cancel');
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
        preheader: source.preheader,
        audience: source.audience,
        topic_id: source.topicId,
        track_opens: source.trackOpens,
        track_clicks: source.trackClicks,
      }),
    });
    await this.em.flush();
    return copy;
  }

  /** Sends the campaign to up to 10 addresses now, marked as a test; no statistics count it. */
  async test(accountId: string, id: string, emails: string[]) {
    const campaign = await this.get(accountId, id);
    const recipients: Recipient[] = [];
    for (const email of emails) {
      const contact = await this.repo.contactByEmail(accountId, email);
      recipients.push({
        messageId: newTestMessageId(),
        email,
        firstName: contact?.first_name ?? null,
        lastName: contact?.last_name ?? null,
        tags: contact?.tags ?? [],
        attributes: contact?.attributes ?? {},
      });
    }
    // Rendered and built in the template thread; only the SMTP conversation happens here.
    const messages = await this.templates
      .testMessages(campaignContent(campaign), recipients)
      .catch((error: Error) => recipients.map(() => ({ failed: error.message })));
    const accepted: string[] = [];
    const rejected: { email: string; reason: string }[] = [];
    for (const [i, { email }] of recipients.entries()) {
      const message = messages[i];
      const outcome =
        'failed' in message
          ? { kind: 'render_failed' as const, reason: `rendering failed: ${message.failed}` }
          : await this.transport.sendMime(message.envelope, message.raw);
      if (outcome.kind === 'accepted') accepted.push(email);
      else
        rejected.push({
          email,
          reason: outcome.kind === 'transport_error' ? outcome.error : outcome.kind === 'render_failed' ? outcome.reason : outcome.response,
        });
    }
    return { accepted, rejected };
  }

  async messages(accountId: string, id: string, status: MessageStatus | undefined, limit: number, cursor?: string) {
    // Both at once: the page is thrown away unless the account has the campaign.
    const [found, rows] = await Promise.all([this.repo.exists(accountId, id), this.repo.messages(id, status, decodeCursor(cursor), limit)]);
    if (!found) throw notFound('campaign');
    return toPage(rows, limit, (m) => ({ at: m.created_at, id: m.id }), messageJson);
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
