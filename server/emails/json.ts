import type { components } from '../../generated/openapi.d.ts';
import type { ListedEmail, PersonEmail } from './store.ts';

type EmailJson = components['schemas']['Email'];
type ContactEmailJson = components['schemas']['ContactEmail'];

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A message as the API shows it (its timeline apart). */
export const emailJson = (e: ListedEmail): EmailJson => ({
  id: e.id,
  stream: 'transactional',
  from: e.from_email,
  from_name: e.from_name,
  email: e.email,
  kind: e.kind,
  subject: e.subject,
  status: e.status,
  reason: e.reason,
  attempts: e.attempts,
  tags: e.tags,
  metadata: e.metadata,
  track_opens: e.track_opens,
  track_clicks: e.track_clicks,
  scheduled_at: iso(e.scheduled_at),
  sent_at: iso(e.sent_at),
  opened_at: iso(e.opened_at),
  clicked_at: iso(e.clicked_at),
  bounced_at: iso(e.bounced_at),
  created_at: e.created_at.toISOString(),
});

/** A copy as the right of access shows it: its JSON with what it said. */
export const contactEmailJson = (e: PersonEmail): ContactEmailJson => ({
  ...emailJson(e),
  to_header: e.to_header,
  cc_header: e.cc_header,
  reply_to: e.reply_to,
  text: e.text,
  html: e.html,
  attachments: e.attachment_names,
});
