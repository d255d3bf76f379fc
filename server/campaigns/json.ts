import type { components } from '../../generated/openapi.d.ts';
import type { CampaignRow } from './entities.ts';

export type CampaignJson = components['schemas']['Campaign'];

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** A campaign as the API and its events show it. */
export const campaignJson = (c: CampaignRow): CampaignJson => ({
  id: c.id,
  name: c.name,
  subject: c.subject,
  from_email: c.fromEmail,
  from_name: c.fromName ?? null,
  reply_to: c.replyTo ?? null,
  content: c.content,
  text_content: c.textContent ?? null,
  content_source: c.contentSource ?? null,
  preheader: c.preheader ?? null,
  audience: c.audience,
  topic_id: c.topicId ?? null,
  track_opens: c.trackOpens,
  track_clicks: c.trackClicks,
  web_version_link: c.webVersionLink,
  archive: c.archive,
  archive_meta: c.archiveMeta ?? null,
  status: c.status,
  scheduled_at: iso(c.scheduledAt),
  send_time: c.sendTime ?? null,
  variants: c.variants ?? null,
  ab_test: c.abTest ?? null,
  test_phase: c.testPhase ?? null,
  test_decides_at: iso(c.testDecidesAt),
  winner: c.winner ?? null,
  started_at: iso(c.startedAt),
  completed_at: iso(c.completedAt),
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
  stats: campaignStats(c),
  template_id: c.templateId ?? null,
  template_version: c.templateVersion ?? null,
  template_data: c.templateData ?? null,
});

export const campaignStats = (c: CampaignRow): CampaignJson['stats'] => ({
  recipients: c.recipients,
  sent: c.sent,
  delivered: c.delivered,
  deferred: c.deferred,
  failed: c.failed,
  bounced: c.bounced,
  opened: c.opened,
  clicked: c.clicked,
  unsubscribed: c.unsubscribed,
  complained: c.complained,
});

/** The payload of the campaign.* events. */
export const campaignEventData = (c: CampaignRow): components['schemas']['CampaignEventData'] => ({ campaign_id: c.id, name: c.name, status: c.status });
