import { newId } from '../db/ids.ts';
import { isValidEmail, normaliseEmail } from '../email.ts';
import { CONTACT_STATUSES, MAX_NAME_LENGTH, MAX_TAG_LENGTH, MAX_TAGS, attributesJsonTooLarge, type ContactStatus } from '../contacts/rules.ts';
import type { RowError } from './errors.ts';
import { importedValue, type FieldSchema } from '../fields/rules.ts';
import { timeZoneName } from '../formats/timezone.ts';

/** One valid row, ready for the staging table. */
export interface ImportRow {
  row: number;
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  tags: string[];
  status: ContactStatus | null;
  timezone: string | null;
  /** As JSON text: written once to check its size and once to the staging table. */
  attributes: string;
}

/** A row as given: CSV cells (all strings) or a JSON object. */
export interface RawRow {
  email?: unknown;
  first_name?: unknown;
  last_name?: unknown;
  tags?: unknown;
  status?: unknown;
  timezone?: unknown;
  attributes?: Record<string, unknown>;
}

const KNOWN_COLUMNS = new Set(['email', 'first_name', 'last_name', 'tags', 'status', 'timezone']);

const text = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  const shown = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  const trimmed = shown.trim();
  return trimmed === '' ? null : trimmed;
};

/**
 * CSV records as rows: the known columns by name (the last of a repeated name wins), every other
 * non-empty cell an attribute. Planned once per file from its header.
 */
export function csvRowReader(columns: string[]): (fields: string[]) => RawRow {
  const at = (name: string) => columns.lastIndexOf(name);
  const [email, firstName, lastName, tags, status, timezone] = [at('email'), at('first_name'), at('last_name'), at('tags'), at('status'), at('timezone')];
  const attributeColumns = columns.flatMap((name, i) => (name && !KNOWN_COLUMNS.has(name) ? [[name, i] as const] : []));
  const cell = (fields: string[], i: number) => (i === -1 ? undefined : fields[i]);
  return (fields) => {
    const attributes: Record<string, unknown> = {};
    for (const [name, i] of attributeColumns) {
      const value = fields[i];
      if (value !== undefined && value.trim() !== '') attributes[name] = value;
    }
    return {
      email: cell(fields, email),
      first_name: cell(fields, firstName),
      last_name: cell(fields, lastName),
      tags: cell(fields, tags),
      status: cell(fields, status),
      timezone: cell(fields, timezone),
      attributes,
    };
  };
}

/**
 * The row's tags (a list, or text split at `;` or `|`) and the import's, trimmed, each once, in
 * the order given. A set: a row of up to a million characters may hold a hundred thousand.
 */
function tagsOf(given: unknown, importTags: string[]): string[] {
  const tags = new Set<string>();
  const add = (tag: string) => {
    const trimmed = tag.trim();
    if (trimmed) tags.add(trimmed);
  };
  if (Array.isArray(given)) for (const tag of given) add(String(tag));
  else for (const tag of text(given)?.split(/[;|]/) ?? []) add(tag);
  for (const tag of importTags) add(tag);
  return [...tags];
}

/** Whether a value holds U+0000 anywhere, which PostgreSQL cannot store in text or JSON. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, inner]) => key.includes('\0') || holdsNul(inner));
  return false;
}

const NO_FIELDS: FieldSchema = new Map();

/**
 * The row's attributes with custom fields' values as their fields store them (numbers and
 * booleans from CSV text), or the detail of the first that does not fit. Unchanged (the same
 * object) when no key is a field's, which costs a map lookup per attribute.
 */
function typedAttributes(attributes: Record<string, unknown>, fields: FieldSchema): Record<string, unknown> | string {
  let typed = attributes;
  for (const key in attributes) {
    const field = fields.get(key);
    if (!field) continue;
    const result = importedValue(field, attributes[key]);
    if ('error' in result) return result.error;
    if (result.value !== attributes[key]) {
      if (typed === attributes) typed = { ...attributes };
      typed[key] = result.value;
    }
  }
  return typed;
}

/**
 * Checks one row against the contact rules and the account's custom fields (`fields`, read once
 * per import); a bad row becomes an error for the report and never stops the import.
 */
export function toImportRow(row: number, raw: RawRow, importTags: string[], fields: FieldSchema = NO_FIELDS): ImportRow | RowError {
  const given = text(raw.email);
  if (!given) return { row, email: null, code: 'missing_email', detail: 'The row has no email.' };
  let attributes = JSON.stringify(raw.attributes ?? {});
  // JSON writes U+0000 as \u0000, so only rows whose text has that need the closer look.
  if (
    holdsNul(raw.email) ||
    holdsNul(raw.first_name) ||
    holdsNul(raw.last_name) ||
    holdsNul(raw.tags) ||
    holdsNul(raw.status) ||
    holdsNul(raw.timezone) ||
    (attributes.includes('\\u0000') && holdsNul(raw.attributes))
  ) {
    return { row, email: given.replaceAll('\0', ''), code: 'invalid_text', detail: 'The row contains a NUL character (U+0000), which cannot be stored.' };
  }
  const email = normaliseEmail(given);
  if (!isValidEmail(email)) return { row, email: given, code: 'invalid_email', detail: `"${given}" is not a valid email address.` };
  const statusText = text(raw.status)?.toLowerCase() ?? null;
  if (statusText !== null && !(CONTACT_STATUSES as readonly string[]).includes(statusText)) {
    return { row, email, code: 'invalid_status', detail: `Status "${statusText}" is not one of ${CONTACT_STATUSES.join(', ')}.` };
  }
  if (fields.size && raw.attributes) {
    const typed = typedAttributes(raw.attributes, fields);
    if (typeof typed === 'string') return { row, email, code: 'invalid_field', detail: typed };
    if (typed !== raw.attributes) attributes = JSON.stringify(typed);
  }
  if (attributesJsonTooLarge(attributes)) return { row, email, code: 'attributes_too_large', detail: 'The custom fields exceed 16 KB as JSON.' };
  const tags = tagsOf(raw.tags, importTags);
  if (tags.some((t) => t.length > MAX_TAG_LENGTH)) return { row, email, code: 'invalid_tag', detail: `A tag is longer than ${MAX_TAG_LENGTH} characters.` };
  if (tags.length > MAX_TAGS)
    return { row, email, code: 'too_many_tags', detail: `A row may carry at most ${MAX_TAGS} tags, as a request may; this one has ${tags.length}.` };
  const firstName = text(raw.first_name);
  const lastName = text(raw.last_name);
  const tooLong = (firstName?.length ?? 0) > MAX_NAME_LENGTH ? 'first_name' : (lastName?.length ?? 0) > MAX_NAME_LENGTH ? 'last_name' : null;
  if (tooLong) return { row, email, code: 'name_too_long', detail: `${tooLong} is longer than ${MAX_NAME_LENGTH} characters.` };
  const zoneText = text(raw.timezone);
  const timezone = zoneText === null ? null : timeZoneName(zoneText);
  if (zoneText !== null && timezone === null)
    return { row, email, code: 'invalid_timezone', detail: `"${zoneText.slice(0, 100)}" is not an IANA time zone name.` };
  return {
    row,
    id: newId('ct'),
    email,
    firstName,
    lastName,
    tags,
    status: statusText as ContactStatus | null,
    timezone,
    attributes,
  };
}
