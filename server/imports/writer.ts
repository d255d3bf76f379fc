import { writeImportedContacts } from '../contacts/import-batch.ts';
import type { Db } from '../db/kysely.ts';
import { addImportedMembers } from '../lists/import-batch.ts';
import { addImportedSuppressions } from '../suppressions/import-batch.ts';
import type { StagingBatch } from './batch.ts';
import type { ImportMode } from './entities.ts';
import { importStore, type BatchCounts } from './store.ts';

/**
 * Which of an import's writers owns an address (FNV-1a of it, ASCII case folded). Rows for one
 * address must meet in one writer, whose batches commit in file order, or a later row could be
 * written before an earlier one. An address with any other character goes to the first writer;
 * PostgreSQL's lower() makes such an address equal to an ASCII one only through a few letters
 * (the Kelvin sign is a k), a pair that could still be written out of order.
 */
export function writerFor(email: string, writers: number): number {
  if (writers === 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < email.length; i++) {
    let c = email.charCodeAt(i);
    if (c > 0x7f) return 0;
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    hash = Math.imul(hash ^ c, 0x01000193);
  }
  return (hash >>> 0) % writers;
}

/**
 * Writes one batch in the caller's transaction (`Transactions.run`'s handle): its rows into the contacts (the
 * contacts COPY them into a staging table, then merges them in one statement), its bad
 * rows into the import's errors; with lists, its contacts join them as the lists say. Rows repeating an email (in the batch, or earlier in the same
 * import) are merged: the later row wins and counts as skipped.
 */
export async function writeBatch(
  db: Db,
  target: { importId: string; accountId: string; mode: ImportMode; listIds?: readonly string[] },
  batch: StagingBatch,
): Promise<BatchCounts> {
  const { created, updated } = batch.rows ? await writeImportedContacts(db, target, batch.lines()) : { created: 0, updated: 0 };
  // The batch's addresses are still staged: they join the lists in the same transaction.
  if (batch.rows && target.listIds?.length) await addImportedMembers(db, target.accountId, target.listIds);
  // Rows that suppress their contact put the address on the suppression list, as a PATCH would.
  if (batch.rows) await addImportedSuppressions(db, target.accountId);
  await importStore.recordErrors(db, target.accountId, target.importId, batch.errors);
  return { created, updated, skipped: batch.rows - created - updated, failed: batch.errors.length };
}
