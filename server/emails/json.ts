import type { components } from '../../generated/openapi.d.ts';
import type { ListedEmail } from './store.ts';

type EmailJson = components['schemas']['Email'];

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
