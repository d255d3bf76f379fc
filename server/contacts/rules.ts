import type { components } from '../../generated/openapi.d.ts';
import { enumValues } from '../contract/enums.ts';

/**
 * Contact rules shared by the API and the import thread, which loads no ORM: statuses,
 * suppression and the sizes of fields.
 */
export type ContactStatus = components['schemas']['ContactStatus'];
export const CONTACT_STATUSES = enumValues<ContactStatus>()(['subscribed', 'unsubscribed', 'bounced', 'complained']);

/**
 * The `status_reason` of a contact that a public double opt-in form made and that has not
 * confirmed yet: unsubscribed, so that no campaign reaches it, but not on the suppression list.
 * The account creating or importing the address takes it over as a new contact.
 */
export const PENDING_SIGNUP_REASON = 'double opt-in not confirmed yet';

/** Suppressed contacts are never sent to. */
export const isSuppressed = (status: ContactStatus) => status !== 'subscribed';

export const MAX_ATTRIBUTES_BYTES = 16 * 1024;
/** As the contract has them for a request; imports check each row against the same. */
export const MAX_NAME_LENGTH = 200;
export const MAX_TAGS = 100;
export const MAX_TAG_LENGTH = 100;

export function attributesTooLarge(attributes: Record<string, unknown>): boolean {
  return attributesJsonTooLarge(JSON.stringify(attributes));
}

/** The same for attributes already written as JSON text. */
export function attributesJsonTooLarge(json: string): boolean {
  // A UTF-16 unit is at most 3 bytes of UTF-8: short text needs no counting.
  return json.length * 3 > MAX_ATTRIBUTES_BYTES && Buffer.byteLength(json) > MAX_ATTRIBUTES_BYTES;
}
