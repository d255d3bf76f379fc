import type { ContactRow } from './entities.ts';

/** A contact as the API and its events show it. */
export const contactJson = (c: ContactRow) => ({
  id: c.id,
  email: c.email,
  first_name: c.firstName,
  last_name: c.lastName,
  attributes: c.attributes,
  tags: c.tags,
  status: c.status,
  status_reason: c.statusReason,
  status_changed_at: c.statusChangedAt?.toISOString() ?? null,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});
