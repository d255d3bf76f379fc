import type { Readable } from 'node:stream';
import type { components } from '../../generated/openapi.d.ts';
import { isValidEmail, normaliseEmail } from '../email.ts';
import type { Transactions } from '../db/transactions.ts';
import type { Db } from '../db/kysely.ts';
import { analyzeSoon } from '../db/statistics.ts';
import { append } from '../events/outbox.ts';
import type { PendingEvent } from '../events/types.ts';
import { idsByEmails, resubscribeEmail, suppress, type SuppressedStatus } from '../contacts/suppression.ts';
import { CsvParser } from '../formats/csv-parser.ts';
import { decodeCursor, toPage, type Page } from '../contract/pagination.ts';
import { notFound, Problem } from '../contract/problem.ts';
import type { SuppressionReason } from './entities.ts';
import { suppressions, type SuppressionEntry, type SuppressionListed, type SuppressionSource } from './store.ts';

type SuppressionJson = components['schemas']['Suppression'];
type AddResult = components['schemas']['SuppressionAddResult'];
type ImportResult = components['schemas']['SuppressionImportResult'];

/** Addresses written per statement by a CSV import. */
const IMPORT_BATCH = 10_000;
const MAX_INVALID_SHOWN = 100;

/** The contact status a suppression reason gives a subscribed contact. */
const STATUS_OF: Record<SuppressionReason, SuppressedStatus> = {
  unsubscribed: 'unsubscribed',
  bounced: 'bounced',
  complained: 'complained',
  manual: 'unsubscribed',
};

export const suppressionJson = (r: SuppressionListed): SuppressionJson => ({
  id: r.id,
  email: r.email,
  reason: r.reason,
  source: r.source,
  detail: r.detail,
  created_at: r.created_at.toISOString(),
});

/**
 * Puts addresses on the list and suppresses the subscribed contacts that have them, with their
 * `contact.suppressed` events, in the caller's transaction on `db`.
 */
export async function addSuppressions(
  db: Db,
  accountId: string,
  emails: readonly string[],
  reason: SuppressionReason,
  source: SuppressionSource,
  detail: string | null,
): Promise<{ added: number; contacts: PendingEvent[] }> {
  const entries: SuppressionEntry[] = emails.map((email) => ({ email, reason, source, detail }));
  const added = await suppressions.add(db, accountId, entries);
  const contactIds = await idsByEmails(db, accountId, emails);
  const events = await suppress(db, accountId, contactIds, STATUS_OF[reason], detail ?? `suppressed: ${reason}`);
  return { added: added.length, contacts: events };
}

/** Starts refreshing the statistics of the entries and contacts a bulk suppression wrote (see `analyzeSoon`). */
function analyzeSuppressed(db: Db, result: { added: number; contacts_suppressed: number }): void {
  analyzeSoon(db, ['suppressions'], result.added);
  analyzeSoon(db, ['contacts'], result.contacts_suppressed);
}

/** The suppression list through the API. */
export class SuppressionService {
  private readonly transactions: Transactions;
  private readonly db: Db;
  private readonly limits: { maxBytes: number; maxRows: number };

  constructor(transactions: Transactions, db: Db, limits: { maxBytes: number; maxRows: number }) {
    this.transactions = transactions;
    this.db = db;
    this.limits = limits;
  }

  async list(accountId: string, filters: { reason?: SuppressionReason; email?: string }, limit: number, cursor?: string): Promise<Page<SuppressionJson>> {
    const rows = await suppressions.page(this.db, accountId, filters, decodeCursor(cursor), limit);
    return toPage(rows, limit, (r) => ({ at: r.created_at, id: r.id }), suppressionJson);
  }

  async get(accountId: string, id: string): Promise<SuppressionJson> {
    const row = await suppressions.byId(this.db, accountId, id);
    if (!row) throw notFound('suppression');
    return suppressionJson(row);
  }

  /** Up to 10,000 addresses (the contract's limit), in one transaction. */
  async add(accountId: string, emails: string[], reason: SuppressionReason, detail: string | null): Promise<AddResult> {
    const unique = uniqueAddresses(emails);
    const result = await this.transactions.run(async (tx) => {
      const { added, contacts } = await addSuppressions(tx, accountId, unique, reason, 'api', detail);
      await append(tx, accountId, contacts);
      return { added, existing: unique.length - added, contacts_suppressed: contacts.length };
    });
    analyzeSuppressed(this.db, result);
    return result;
  }

  /** A CSV body of addresses, read as it arrives, written in one transaction. */
  async importCsv(accountId: string, body: Readable, reason: SuppressionReason, detail: string | null): Promise<ImportResult> {
    const parser = new CsvParser(',');
    const result: ImportResult = { added: 0, existing: 0, contacts_suppressed: 0, invalid: 0, invalid_rows: [] };
    let row = 0;
    let bytes = 0;
    let batch: string[] = [];
    await this.transactions.run(async (db) => {
      const flush = async () => {
        const unique = uniqueAddresses(batch);
        batch = [];
        const { added, contacts } = await addSuppressions(db, accountId, unique, reason, 'csv_import', detail);
        await append(db, accountId, contacts);
        result.added += added;
        result.existing += unique.length - added;
        result.contacts_suppressed += contacts.length;
      };
      const take = async (records: string[][]) => {
        for (const record of records) {
          row++;
          if (row > this.limits.maxRows) throw new Problem(413, 'too_many_rows', `At most ${this.limits.maxRows} rows.`);
          const value = (record[0] ?? '').trim();
          if (row === 1 && value.toLowerCase() === 'email') continue;
          const email = normaliseEmail(value);
          // PostgreSQL cannot store a NUL character: such a cell is no address either.
          if (!isValidEmail(email) || email.includes('\u0000')) {
            result.invalid++;
            if (result.invalid_rows.length < MAX_INVALID_SHOWN) result.invalid_rows.push({ row, value: value.slice(0, 254).replaceAll('\u0000', '\ufffd') });
            continue;
          }
          batch.push(email);
          if (batch.length >= IMPORT_BATCH) await flush();
        }
      };
      const decoder = new TextDecoder('utf-8');
      for await (const chunk of body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > this.limits.maxBytes) throw new Problem(413, 'payload_too_large', `At most ${this.limits.maxBytes} bytes.`);
        await take(parser.push(decoder.decode(chunk, { stream: true })));
      }
      await take(parser.push(decoder.decode()));
      await take(parser.end());
      if (batch.length) await flush();
    });
    analyzeSuppressed(this.db, result);
    return result;
  }

  /** Takes an entry off the list; its contact, if suppressed, is subscribed again with `reason`. */
  async remove(accountId: string, id: string, reason: string): Promise<void> {
    await this.transactions.run(async (db) => {
      const removed = await suppressions.remove(db, accountId, id);
      if (!removed) throw notFound('suppression');
      if (removed.email) await append(db, accountId, await resubscribeEmail(db, accountId, removed.email, reason));
    });
  }
}

function uniqueAddresses(emails: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const email of emails) {
    const normal = normaliseEmail(email);
    if (!seen.has(normal.toLowerCase())) seen.set(normal.toLowerCase(), normal);
  }
  return [...seen.values()];
}
