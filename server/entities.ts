import type { InferKyselyDB } from '@mikro-orm/sql';
import { Account, Session, User } from './auth/entities.ts';
import { ApiKey } from './api-keys/entities.ts';
import { Event, EventSubscriber } from './events/entities.ts';
import { Contact } from './contacts/entities.ts';
import { Campaign, CampaignAudience, CampaignAudiencePiece, Message } from './campaigns/entities.ts';
import { Webhook, WebhookDelivery } from './webhooks/entities.ts';
import { Bounce, CampaignDomain, CampaignHourly, CampaignLink, Click, ContactStatusCount, Open, Unsubscribe } from './tracking/entities.ts';
import { Conversion, Payment, RevenueHourly } from './conversions/entities.ts';
import { RateLimitCounter } from './rate-limits/entities.ts';
import { RelaySendSlot } from './sending/entities.ts';
import { ContactImport, ContactImportChunk, ContactImportError } from './imports/entities.ts';
import { IdempotencyKey } from './idempotency/entities.ts';
import { ContactField } from './fields/entities.ts';
import { Segment } from './segments/entities.ts';
import { Template, TemplateVersion } from './templates/entities.ts';
import { ListMember, MailingList } from './lists/entities.ts';
import { Email, EmailContent } from './emails/entities.ts';
import { Suppression } from './suppressions/entities.ts';
import { ContactTopicOptout, Topic } from './topics/entities.ts';
import { ContactExport, ContactExportChunk } from './exports/entities.ts';
import { SendingDomain } from './domains/entities.ts';
import { Automation, AutomationContact, AutomationEnrollment, AutomationPathStep, AutomationVersion } from './automations/entities.ts';
import { ContactSignal, SignalInterest } from './signals/entities.ts';

/** Every table's entity. Each module that owns tables defines their entities beside its store. */
export const entities = [
  Account,
  User,
  Session,
  ApiKey,
  Event,
  EventSubscriber,
  Contact,
  Campaign,
  CampaignAudience,
  CampaignAudiencePiece,
  Message,
  Webhook,
  WebhookDelivery,
  Open,
  Click,
  Bounce,
  Unsubscribe,
  CampaignHourly,
  CampaignLink,
  CampaignDomain,
  ContactStatusCount,
  Conversion,
  Payment,
  RevenueHourly,
  RateLimitCounter,
  RelaySendSlot,
  ContactImport,
  ContactImportChunk,
  ContactImportError,
  IdempotencyKey,
  ContactField,
  Segment,
  Template,
  TemplateVersion,
  MailingList,
  ListMember,
  EmailContent,
  Email,
  Suppression,
  Topic,
  ContactTopicOptout,
  ContactExport,
  ContactExportChunk,
  SendingDomain,
  Automation,
  AutomationVersion,
  AutomationEnrollment,
  AutomationPathStep,
  AutomationContact,
  ContactSignal,
  SignalInterest,
] as const;

type Schema = InferKyselyDB<(typeof entities)[number]>;

declare module './db/kysely.ts' {
  /** The schema db/ queries, inferred from the entities above. */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging fills in db/'s schema
  interface Database extends Schema {}
}
