import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { ClientBase } from 'pg';
import { connectionUnder, type Db } from './kysely.ts';

export type CopyValue = string | number | boolean | Date | null;

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES = /[\\\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Whether `target` is bound to one connection (`Transactions.run`), so COPY can run in its transaction. */
export function canCopy(target: Db): boolean {
  return connectionUnder(target) !== undefined;
}

function clientFor(target: Db): ClientBase {
  const client = connectionUnder(target);
  if (!client) throw new Error('COPY needs a handle bound to one connection (Transactions.run)');
  return client;
}

/** The last time formatted: the hits of a busy millisecond, a batch's rows, share one. */
let lastTime = NaN;
let lastTimeText = '';

/** One value in COPY's text format: backslash escapes, `\N` for null. */
export function copyText(value: CopyValue): string {
  // Strings first, and tested before they are rewritten: a flush formats a few hundred thousand.
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPES, (c) => ESCAPED[c]) : value;
  if (value === null) return '\\N';
  if (value instanceof Date) {
    if (value.getTime() !== lastTime) {
      lastTime = value.getTime();
      lastTimeText = value.toISOString();
    }
    return lastTimeText;
  }
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

/**
 * Writes lines of COPY text into `table` in the caller's transaction. Cheaper than an INSERT of
 * the same rows through `unnest`: no array literals to build in Node or to parse in PostgreSQL.
 * Lines go out in chunks of 32 KB: few writes, bounded memory, and each chunk small enough for
 * V8's young generation (a string over 128 KB is born in the old generation, where it stays
 * until a full collection: a send's events, a few hundred KB a batch, grew the heap by 70 MB).
 */
export async function copyLines(target: Db, table: string, columns: string, lines: Iterable<string>): Promise<void> {
  function* chunks(): Generator<string> {
    let chunk = '';
    for (const line of lines) {
      chunk += line;
      if (chunk.length > 32 * 1024) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  await pipeline(Readable.from(chunks()), clientFor(target).query(copyFrom(`copy ${table} (${columns}) from stdin`)));
}

/** Writes COPY text already formatted (see `copyRows`) into `table` in the caller's transaction. */
export async function copyBytes(target: Db, table: string, columns: string, text: Buffer): Promise<void> {
  await pipeline(Readable.from([text]), clientFor(target).query(copyFrom(`copy ${table} (${columns}) from stdin`)));
}

/** Rows of plain values as COPY lines. */
export function* copyRows(rows: Iterable<CopyValue[]>): Generator<string> {
  for (const row of rows) {
    let line = copyText(row[0]);
    for (let i = 1; i < row.length; i++) line += '\t' + copyText(row[i]);
    yield line + '\n';
  }
}
