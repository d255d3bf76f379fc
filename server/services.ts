import type { Metrics } from './metrics/metrics.ts';
import type { Config } from './config.ts';
import type { EntityManager, Orm } from './db/orm.ts';
import type { Pool } from './db/pool.ts';
import { sql, type SqlBool } from 'kysely';
import { sqlOf } from './db/kysely.ts';
import type { Transactions } from './db/transactions.ts';
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
import { ContactService, type ReleaseContacts } from './contacts/service.ts';
import { ContactBulkService } from './contacts/bulk.ts';
import { ImportService } from './imports/service.ts';
import { CampaignRepository } from './campaigns/repository.ts';
import { CampaignService, type ForgetCampaign } from './campaigns/service.ts';
import type { SigningTransport } from './sending/dkim.ts';
import type { SendingIdentities } from './sending/identity.ts';
import type { TemplateThread } from './rendering/template-thread.ts';
import type { TokenSigner } from './tracked-links/tokens.ts';
import { FeedbackService } from './tracking/feedback.ts';
import { TrackingService } from './tracking/service.ts';
import { AttributionService } from './conversions/service.ts';
import { AnalyticsService } from './analytics/service.ts';
import { WebhookService } from './webhooks/service.ts';
import { DomainService } from './domains/service.ts';
import { DnsChecker } from './domains/dns-check.ts';
import type { SecretBox } from './secrets/secret-box.ts';
import { EventService } from './events/service.ts';
import type { Access } from './auth/access.ts';
import type { KeyUsage } from './api-keys/usage.ts';
import { FieldService } from './fields/service.ts';
import { SegmentService } from './segments/service.ts';
import { segmentStore } from './segments/store.ts';
import { TagService } from './tags/service.ts';
import { latestPublished, renderTemplate, renderVersion, TemplateService } from './templates/service.ts';
import { templates as templateStore } from './templates/store.ts';
import { joinLists, leaveLists, ListService } from './lists/service.ts';
import { listStore } from './lists/store.ts';
import { EmailService } from './emails/service.ts';
import { SuppressionService } from './suppressions/service.ts';
import { suppressions as suppressionStore } from './suppressions/store.ts';
import { TopicService } from './topics/service.ts';
import { ExportService } from './exports/service.ts';
import { PersonalDataService, type PersonalData } from './exports/personal-data.ts';
import { contactsByIds, deleteContact, removeTag, renameTag, retagContacts, setAttributes, tagCount, tagCounts } from './contacts/store.ts';
import { MAX_TAGS } from './contacts/rules.ts';
import { AutomationService, type AutomationLookups } from './automations/service.ts';
import { leaveJourneys } from './automations/erasure.ts';
import type { JourneyContacts, JourneyDeps } from './automations/journey-deps.ts';
import type { JourneyRunner } from './automations/runner.ts';
import { queueJourneyEmails, journeyEmailsQueued } from './emails/journey-mail.ts';
import {
  addEngagementCounts,
  clearTopic,
  deleteMessagesOf,
  eraseRecipient,
  markBounced,
  markComplained,
  markEngaged,
  markUnsubscribed,
  releaseMessagesOf,
} from './campaigns/store.ts';
import { detachCampaign, detachContact } from './conversions/store.ts';
import { emailsOfPerson, eraseEmailsOfPerson, releaseEmailsOf } from './emails/store.ts';
import { deleteNaming } from './events/store.ts';
import { idempotencyStore } from './idempotency/store.ts';
import { deleteErrorRowsOf } from './imports/store.ts';
import { optouts, topicExists } from './topics/store.ts';
import { deleteHitsOf, eraseTrackingRecords, insertBounce, recordSendBounces, Rollups, writeRollups } from './tracking/store.ts';
import { deleteDeliveriesOf } from './webhooks/store.ts';
import { attemptDelivery } from './webhooks/deliverer.ts';
import type { OutcomeRecords } from './sending/records.ts';
import { clearSoftBounces, countSoftBounce, suppress } from './contacts/suppression.ts';
import type { CampaignLookups } from './campaigns/service.ts';
import type { CampaignRecords } from './tracking/campaign-records.ts';
import { accountByPublicId, accountTimeZone } from './auth/account-lookups.ts';
import type { CampaignPageLookups } from './campaigns/pages.ts';
import type { ContactRecords } from './tracking/contact-records.ts';

/** What lives as long as the process: configuration, connections, the queue. */
export interface Runtime {
  config: Config;
  /** The database everything connects to (the embedded one's when DATABASE_URL is unset). */
  databaseUrl: string;
  orm: Orm;
  pool: Pool;
  /** Transactions on `pool`: one for the process, since the emails' single writes are shared per instance. */
  transactions: Transactions;
  queue: Queue;
  /** Test sends' connection to the relay, signing as each message's identity (campaigns send from their threads). */
  transport: SigningTransport;
  /** Where templates are checked and test messages rendered, off the thread that answers requests. */
  templates: TemplateThread;
  signer: TokenSigner;
  secretBox: SecretBox;
  /** Seals the sending domains' DKIM keys. */
  domainKeyBox: SecretBox;
  log: Logger;
  /** The last migration applied to the schema when this process started, and how many are. */
  schema: { migration: string | null; migrations: number };
  /** API keys and sessions in memory, request counts flushed to PostgreSQL. */
  access: Access;
  /** Enrols contacts and runs journeys' steps (started in worker processes). */
  journeys: JourneyRunner;
  /** When API keys were last used, marked in batches. */
  keyUsage: KeyUsage;
  metrics: Metrics;
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

/** The contacts' tag statements, for the tags resource. */
const contactTags = { tagCounts, tagCount, renameTag, removeTag, retagContacts };

/** What each feature keeps about a person, for the GDPR access and erasure. */
const personalData: PersonalData = {
  topicOptouts: (db, accountId, contactId) => optouts.ofContact(db, accountId, contactId),
  suppression: (db, accountId, email) => suppressionStore.byEmail(db, accountId, email),
  emails: emailsOfPerson,
  eraseMessages: eraseRecipient,
  eraseEmails: eraseEmailsOfPerson,
  eraseTracking: eraseTrackingRecords,
  detachConversions: detachContact,
  deleteEvents: deleteNaming,
  deleteDeliveries: deleteDeliveriesOf,
  deleteImportErrors: deleteErrorRowsOf,
  forgetIdempotentAnswers: (db, accountId, email) => idempotencyStore.forgetAnswersNaming(db, accountId, email),
  keepSuppressedAsHash: (db, accountId, email) => suppressionStore.keepOnlyHash(db, accountId, email),
  leaveJourneys,
  deleteContact,
};

/** What other features keep pointing at deleted contacts, campaigns and topics, where no foreign key reaches. */
const releaseContacts: ReleaseContacts = async (db, accountId, contactIds) => {
  await releaseMessagesOf(db, accountId, contactIds);
  await releaseEmailsOf(db, accountId, contactIds);
};
const forgetCampaign: ForgetCampaign = async (db, accountId, campaignId) => {
  await deleteMessagesOf(db, accountId, campaignId);
  await deleteHitsOf(db, accountId, campaignId);
  await detachCampaign(db, accountId, campaignId);
};

/** The composition root: every service, wired to one unit of work. */
export function createServices(runtime: Runtime, em: EntityManager = runtime.orm.em.fork()) {
  const { config } = runtime;
  const accounts = createAccountServices(em, config, runtime.access);
  const transactions = runtime.transactions;
  const contacts = new ContactService(new ContactRepository(em), em, transactions, suppressionStore, releaseContacts);
  const lists = new ListService(sqlOf(em), transactions, contacts, accounts.rateLimits, {
    publicUrl: config.publicUrl,
    perMinute: config.publicSubscribesPerMinute,
  });
  const domains = domainService(runtime, em);
  const testSending = { templates: runtime.templates, transport: runtime.transport, identities: domains };
  return {
    em,
    ...accounts,
    domains,
    apiKeys: new ApiKeyService(new ApiKeyRepository(em), accounts.rateLimits, runtime.access, runtime.keyUsage, {
      defaultRateLimit: config.defaultKeyRateLimit,
      invalidKeysPerMinute: config.invalidApiKeysPerMinute,
    }),
    contacts,
    imports: new ImportService(em, transactions, runtime.queue, config.imports, listStore),
    feedback: new FeedbackService(transactions, sqlOf(em), campaignRecords, contactRecords, runtime.metrics),
    tracking: new TrackingService(sqlOf(em)),
    attribution: new AttributionService(transactions, sqlOf(em), runtime.signer, config.tracking.attributionDays),
    analytics: new AnalyticsService(sqlOf(em)),
    webhooks: new WebhookService(sqlOf(em), transactions, runtime.secretBox, config.webhooks),
    events: new EventService(em),
    emails: new EmailService(
      sqlOf(em),
      transactions,
      (accountId, templateId, version, data) => renderTemplate(em, runtime.templates, accountId, templateId, version, data),
      domains,
    ),
    campaigns: new CampaignService(
      new CampaignRepository(em, transactions),
      em,
      runtime.queue,
      testSending,
      runtime.templates,
      config.sending.workersPerCampaign,
      campaignLookups,
      domains,
      forgetCampaign,
    ),
    fields: new FieldService(sqlOf(em)),
    segments: new SegmentService(sqlOf(em), listStore),
    tags: new TagService(sqlOf(em), transactions, contactTags, { lists: listStore, segments: segmentStore }),
    templates: new TemplateService(em, transactions, runtime.templates, testSending, new CampaignRepository(em, transactions)),
    lists,
    contactBulk: new ContactBulkService(sqlOf(em), transactions, lists, releaseContacts),
    suppressions: new SuppressionService(transactions, sqlOf(em), config.imports),
    topics: new TopicService(transactions, sqlOf(em), clearTopic),
    exports: new ExportService(sqlOf(em), transactions, runtime.queue, runtime.pool, config.exports),
    personalData: new PersonalDataService(transactions, sqlOf(em), personalData),
    automations: new AutomationService(sqlOf(em), transactions, automationLookups, journeyContacts, runtime.journeys, runtime.secretBox, config.webhooks),
  };
}

/** What automations check their journeys against. */
const automationLookups: AutomationLookups = {
  listsExist: (db, accountId, ids) => listStore.existing(db, accountId, ids),
  segmentExists: async (db, accountId, id) => (await segmentStore.some(db, accountId, [id])).length > 0,
  topicExists,
  publishedVersion: latestPublished,
  templateExists: async (db, accountId, id) => (await templateStore.byId(db, accountId, id)) !== undefined,
};

/** What journeys read and change of contacts, lists and topics. */
const journeyContacts: JourneyContacts = {
  async read(db, accountId, ids) {
    const [contacts, accountZone] = await Promise.all([contactsByIds(db, accountId, ids), accountTimeZone(db, accountId)]);
    return new Map(contacts.map((c) => [c.id, { ...c, timezone: c.timezone ?? accountZone }]));
  },
  find: async (db, accountId, ids, emails) => (await listStore.findContacts(db, accountId, ids, emails)).contacts,
  optedOut: (db, accountId, topicId, contactIds) => optouts.among(db, accountId, topicId, contactIds),
  async change(tx, accountId, contactIds, change) {
    const ids = sql<SqlBool>`c.id = any(${contactIds}::text[])`;
    if (change.addTags.length || change.removeTags.length)
      await retagContacts(tx, accountId, ids, { add: change.addTags, remove: change.removeTags, maxTags: MAX_TAGS });
    if (Object.keys(change.setFields).length) await setAttributes(tx, accountId, contactIds, change.setFields);
    await joinLists(tx, accountId, contactIds, change.addListIds);
    await leaveLists(tx, accountId, contactIds, change.removeListIds);
  },
};

/** What the journey runner of a process is handed. */
export function journeyDeps(parts: {
  transactions: Transactions;
  orm: Orm;
  templates: TemplateThread;
  log: Logger;
  signer: TokenSigner;
  publicUrl: string;
  box: SecretBox;
  webhooks: Config['webhooks'];
}): JourneyDeps {
  const db = sqlOf(parts.orm.em.fork());
  return {
    transactions: parts.transactions,
    db,
    log: parts.log,
    contacts: journeyContacts,
    render: (accountId, templateId, version, subject, data) => renderVersion(db, parts.templates, accountId, templateId, version, subject, data),
    publishedVersion: latestPublished,
    queueEmails: queueJourneyEmails,
    emailsQueued: journeyEmailsQueued,
    postWebhook: (url, body, sealedSecret) => attemptDelivery(url, body, [parts.box.open(sealedSecret)], parts.webhooks),
    webhookRetries: parts.webhooks.retrySchedule,
    unsubscribeUrl: (messageId) => `${parts.publicUrl}/u/${parts.signer.sign({ kind: 'unsubscribe', messageId })}`,
  };
}

export type Services = ReturnType<typeof createServices>;

function domainService(runtime: Runtime, em: EntityManager): DomainService {
  const { config } = runtime;
  return new DomainService(sqlOf(em), runtime.transactions, runtime.domainKeyBox, new DnsChecker(config.domains.dnsServers, config.domains.bounceDomain), {
    bounceDomain: config.domains.bounceDomain,
    trackingHost: new URL(config.publicUrl).hostname,
    publicScheme: new URL(config.publicUrl).protocol,
    policy: config.domains.policy,
    perAccount: config.domains.perAccount,
  });
}

/** The sending identities the senders look their From addresses up in, for as long as the process runs. */
export const sendingIdentities = (runtime: Runtime): SendingIdentities => domainService(runtime, runtime.orm.em.fork());

/** What tracking writes on campaigns' messages and counters. */
export const campaignRecords: CampaignRecords = { markEngaged, markBounced, markComplained, markUnsubscribed, addEngagementCounts };

/** What tracking changes of contacts, the suppression list and topic opt-outs. */
export const contactRecords: ContactRecords = {
  suppress: (tx, accountId, contactIds, status, reason) => suppress(tx, accountId, contactIds, status, reason),
  countSoftBounce,
  clearSoftBounces,
  addSuppressions: (tx, accountId, entries) => suppressionStore.add(tx, accountId, entries),
  optOut: (tx, accountId, topicId, contactId) => optouts.add(tx, accountId, topicId, contactId),
};

/** What the senders' outcomes write in tracking's, contacts' and the suppression list's tables. */
export const outcomeRecords: OutcomeRecords = {
  insertCampaignBounces: (tx, accountId, campaignId, bounces) => recordSendBounces(tx, accountId, campaignId, bounces, campaignRecords),
  insertBounce: async (tx, row) => void (await insertBounce(tx, row)),
  addSendRollups: async (tx, accountId, campaignId, at, counts, sentTo) => {
    const rollups = new Rollups();
    for (const email of sentTo) rollups.domain(campaignId, accountId, email, { sent: 1, delivered: 1 });
    rollups.hour(campaignId, accountId, at, counts);
    await writeRollups(tx, rollups, campaignRecords);
  },
  suppressContacts: (tx, accountId, contactIds, reason) => suppress(tx, accountId, contactIds, 'bounced', reason),
  suppressAddresses: async (tx, accountId, bounces) =>
    void (await suppressionStore.add(
      tx,
      accountId,
      bounces.map((b) => ({ email: b.email, reason: 'bounced', source: 'bounce', detail: b.reason })),
    )),
};

/** What campaigns check of lists and topics. */
/** What the campaigns' public pages read of contacts and accounts. */
export const campaignPageLookups: CampaignPageLookups = {
  async recipient(db, accountId, contactId, messageId) {
    const [contact] = await contactsByIds(db, accountId, [contactId]);
    if (!contact) return null;
    return { messageId, email: contact.email, firstName: contact.first_name, lastName: contact.last_name, tags: contact.tags, attributes: contact.attributes };
  },
  accountByPublicId,
};

const campaignLookups: CampaignLookups = { existingLists: (db, accountId, ids) => listStore.existing(db, accountId, ids), topicExists, accountTimeZone };
