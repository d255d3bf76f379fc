/**
 * The instants the API takes: RFC 3339 with a four-digit year, 0001 to 9999 in UTC. PostgreSQL's
 * `timestamptz` refuses year 0 and offsets past ±15:59, and JavaScript's `Date` reaches years
 * that PostgreSQL does not; within this range both agree.
 */
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

export function isStorableInstant(date: Date): boolean {
  const time = date.getTime();
  return time >= EARLIEST && time <= LATEST;
}

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysInMonth = (year: number, month: number) => [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];

/** The contract's `date-time` format: a real calendar date and time, any offset up to ±23:59, in range. */
export function isStorableDateTime(text: string): boolean {
  const match = RFC_3339.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return false;
  return isStorableInstant(new Date(text.toUpperCase().replace(' ', 'T')));
}

/** The same instant in UTC (`2026-01-01T17:12:00.000Z`), the only form that reaches the database. */
export const toUtc = (text: string): string => new Date(text.toUpperCase().replace(' ', 'T')).toISOString();
