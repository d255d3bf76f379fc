import type { components } from '../../generated/openapi.d.ts';
import type { ContactRow } from './entities.ts';

export type ContactJson = components['schemas']['Contact'];

/** What of a contact the API shows. */
export type ShownContact = Pick<
  ContactRow,
  'id' | 'email' | 'firstName' | 'lastName' | 'attributes' | 'tags' | 'timezone' | 'status' | 'statusReason' | 'statusChangedAt' | 'createdAt' | 'updatedAt'
>;

/** A contact as the API and its events show it. */
export const contactJson = (c: ShownContact): ContactJson => ({
  id: c.id,
  email: c.email,
  first_name: c.firstName ?? null,
  last_name: c.lastName ?? null,
  attributes: c.attributes,
  tags: c.tags,
  timezone: c.timezone ?? null,
  status: c.status,
  status_reason: c.statusReason ?? null,
  status_changed_at: c.statusChangedAt?.toISOString() ?? null,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});
