import type { components } from '../../generated/openapi.d.ts';
import { enumValues } from '../contract/enums.ts';

/**
 * Custom field rules shared by the API, the import thread (which loads no ORM) and the segment
 * compiler: the types, and what value each takes.
 */
export type FieldType = components['schemas']['ContactFieldType'];
export const FIELD_TYPES = enumValues<FieldType>()(['text', 'number', 'date', 'boolean', 'choice']);

export const MAX_FIELDS = 100;

/** What a write needs of a definition. */
export interface FieldDefinition {
  key: string;
  type: FieldType;
  options: string[];
}

/** An account's definitions by key. */
export type FieldSchema = ReadonlyMap<string, FieldDefinition>;

export const schemaOf = (definitions: FieldDefinition[]): FieldSchema => new Map(definitions.map((d) => [d.key, d]));

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day written `YYYY-MM-DD` (what date fields hold, so that they sort as text). */
export function isCalendarDate(value: string): boolean {
  const parts = DATE.exec(value);
  if (!parts) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const describe = (field: FieldDefinition): string => {
  switch (field.type) {
    case 'text':
      return 'a string';
    case 'number':
      return 'a number';
    case 'date':
      return 'a date written YYYY-MM-DD';
    case 'boolean':
      return 'true or false';
    case 'choice':
      return `one of ${field.options.map((o) => JSON.stringify(o)).join(', ')}`;
  }
};

/** Why a value given through the API does not fit its field, or null when it does (null itself always does: it unsets). */
export function valueError(field: FieldDefinition, value: unknown): string | null {
  if (value === null) return null;
  const fits =
    field.type === 'text'
      ? typeof value === 'string'
      : field.type === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : field.type === 'date'
          ? typeof value === 'string' && isCalendarDate(value)
          : field.type === 'boolean'
            ? typeof value === 'boolean'
            : typeof value === 'string' && field.options.includes(value);
  return fits ? null : `must be ${describe(field)} (custom field "${field.key}" is of type ${field.type})`;
}

/** The JSON pointer of an attribute, escaped as RFC 6901 has it. */
export const attributePointer = (key: string) => `/attributes/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** Every attribute of `attributes` that does not fit its field, as field errors. */
export function attributeErrors(schema: FieldSchema, attributes: Record<string, unknown>): { pointer: string; detail: string }[] {
  if (!schema.size) return [];
  const errors: { pointer: string; detail: string }[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    const field = schema.get(key);
    const error = field ? valueError(field, value) : null;
    if (error) errors.push({ pointer: attributePointer(key), detail: error });
  }
  return errors;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);

/**
 * An import's value (CSV cells are text) as its field stores it: numbers and booleans from their
 * text, the rest checked as given. Answers `{ error }` when it does not fit.
 */
export function importedValue(field: FieldDefinition, value: unknown): { value: unknown } | { error: string } {
  if (value === null) return { value };
  const text = typeof value === 'string' ? value.trim() : null;
  switch (field.type) {
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value)) return { value };
      const n = text !== null && NUMBER.test(text) ? Number(text) : NaN;
      if (Number.isFinite(n)) return { value: n };
      break;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return { value };
      const lower = text?.toLowerCase();
      if (lower !== undefined && TRUE.has(lower)) return { value: true };
      if (lower !== undefined && FALSE.has(lower)) return { value: false };
      break;
    }
    case 'text':
      if (typeof value === 'string') return { value };
      if (typeof value === 'number' || typeof value === 'boolean') return { value: String(value) };
      break;
    case 'date':
      if (text !== null && isCalendarDate(text)) return { value: text };
      break;
    case 'choice':
      if (text !== null && field.options.includes(text)) return { value: text };
      break;
  }
  return { error: `"${field.key}" must be ${describe(field)}; the row has ${JSON.stringify(value)?.slice(0, 100)}.` };
}
