import type { Config } from './config.ts';
import type { EntityManager, Orm } from './db/orm.ts';
import type { Pool } from './db/pool.ts';
import { sqlOf } from './db/kysely.ts';
import type { Queue } from './jobs/queue.ts';
import type { Logger } from './logger.ts';
import { AuthRepository } from './auth/repository.ts';
import { AuthService } from './auth/service.ts';
import { ApiKeyRepository } from './api-keys/repository.ts';
import { ApiKeyService } from './api-keys/service.ts';
import { UserRepository } from './users/repository.ts';
import { UserService } from './users/service.ts';
import { RateLimitStore } from './rate-limits/limiter.ts';
import { ContactRepository } from './contacts/repository.ts';
import { ContactService } from './contacts/service.ts';
import { ContactBulkService } from './contacts/bulk.ts';
import { ImportService } from './imports/service.ts';
import { CampaignRepository } from './campaigns/repository.ts';
import { CampaignService } from './campaigns/service.ts';
import type { MailTransport } from './sending/transport.ts';
import type { TemplateThread } from './campaigns/template-thread.ts';
import type { TokenSigner } from './tracking/tokens.ts';
import { FeedbackService } from './tracking/feedback.ts';
import { TrackingService } from './tracking/service.ts';
import { AttributionService } from './conversions/service.ts';
import { AnalyticsService } from './analytics/service.ts';
import { WebhookService } from './webhooks/service.ts';
import type { SecretBox } from './webhooks/signing.ts';
import { EventService } from './events/service.ts';
import type { Access } from './auth/access.ts';
import type { KeyUsage } from './api-keys/usage.ts';
import { FieldService } from './fields/service.ts';
import { SegmentService } from './segments/service.ts';
import { TagService } from './tags/service.ts';
import { renderTemplate, TemplateService } from './templates/service.ts';
import { ListService } from './lists/service.ts';
import { EmailService } from './emails/service.ts';
import { SuppressionService } from './suppressions/service.ts';
import { TopicService } from './topics/service.ts';
import { ExportService } from './exports/service.ts';
import { PersonalDataService } from './exports/personal-data.ts';

/** What lives as long as the process: configuration, connections, the queue. */
export interface Runtime {
  config: Config;
  /** The database everything connects to (the embedded one's when DATABASE_URL is unset). */
  databaseUrl: string;
  orm: Orm;
  pool: Pool;
  queue: Queue;
  /** Test sends' connection to the relay (campaigns send from their threads). */
  transport: MailTransport;
  /** Where templates are checked and test messages rendered, off the thread that answers requests. */
  templates: TemplateThread;
  signer: TokenSigner;
  secretBox: SecretBox;
  log: Logger;
  /** The last migration applied to the schema when this process started, and how many are. */
  schema: { migration: string | null; migrations: number };
  /** API keys and sessions in memory, request counts flushed to PostgreSQL. */
  access: Access;
  /** When API keys were last used, marked in batches. */
  keyUsage: KeyUsage;
}

/** Accounts, users and their throttles: all that tools such as `user:create` need. */
export function createAccountServices(em: EntityManager, config: Config, access: Access | null = null) {
  const authRepo = new AuthRepository(em, access?.credentials);
  const rateLimits = new RateLimitStore(em);
  return {
    rateLimits,
    auth: new AuthService(authRepo, config, rateLimits, access),
    users: new UserService(new UserRepository(em), authRepo, em),
  };
}

/** The composition root: every service, wired to one unit of work. */
export function createServices(runtime: Runtime, em: EntityManager = runtime.orm.em.fork()) {
  const { config } = runtime;
  const accounts = createAccountServices(em, config, runtime.access);
  const lists = new ListService(sqlOf(em), new ContactService(new ContactRepository(em), em, runtime.pool), accounts.rateLimits, {
    publicUrl: config.publicUrl,
    perMinute: config.publicSubscribesPerMinute,
  });
  return {
    em,
    ...accounts,
    apiKeys: new ApiKeyService(new ApiKeyRepository(em), accounts.rateLimits, runtime.access, runtime.keyUsage, {
      defaultRateLimit: config.defaultKeyRateLimit,
      invalidKeysPerMinute: config.invalidApiKeysPerMinute,
    }),
    contacts: new ContactService(new ContactRepository(em), em, runtime.pool),
    imports: new ImportService(em, runtime.pool, runtime.queue, config.imports),
    feedback: new FeedbackService(runtime.pool, sqlOf(em)),
    tracking: new TrackingService(sqlOf(em)),
    attribution: new AttributionService(runtime.pool, sqlOf(em), runtime.signer, config.tracking.attributionDays),
    analytics: new AnalyticsService(sqlOf(em)),
    webhooks: new WebhookService(sqlOf(em), runtime.secretBox, config.webhooks),
    events: new EventService(em),
    emails: new EmailService(sqlOf(em), runtime.pool, (accountId, templateId, version, data) =>
      renderTemplate(em, runtime.templates, accountId, templateId, version, data),
    ),
    campaigns: new CampaignService(new CampaignRepository(em), em, runtime.queue, runtime.transport, runtime.templates, config.sending.workersPerCampaign),
    fields: new FieldService(sqlOf(em)),
    segments: new SegmentService(sqlOf(em)),
    tags: new TagService(sqlOf(em)),
    templates: new TemplateService(em, runtime.templates, runtime.transport),
    lists,
    contactBulk: new ContactBulkService(sqlOf(em), lists),
    suppressions: new SuppressionService(runtime.pool, sqlOf(em), config.imports),
    topics: new TopicService(runtime.pool, sqlOf(em)),
    exports: new ExportService(sqlOf(em), runtime.queue, runtime.pool, config.exports),
    personalData: new PersonalDataService(runtime.pool, sqlOf(em)),
  };
}

export type Services = ReturnType<typeof createServices>;
