import { Migration } from '@mikro-orm/migrations';

/**
 * Erasure (GDPR) reaches transactional email and stored idempotent answers. `emails_contact`
 * finds a contact's copies (and serves the foreign key's `on delete set null` when a contact is
 * deleted, which scanned the table). `idempotency_keys.email_hashes` holds the addresses a stored
 * answer shows, hashed as suppressions are (`sendline_email_hash`), so an erasure drops the answers
 * naming the person without opening sealed ones; rows stored before have none, and an erasure
 * drops all of its account's (they expire within 24 hours anyway).
 */
export class Migration20261128090000ErasureReachesEmails extends Migration {
  override name = 'Migration20261128090000ErasureReachesEmails';

  override up(): void {
    this.addSql(`
      create index emails_contact on emails (contact_id) where contact_id is not null;
      alter table idempotency_keys add column email_hashes bytea[];
    `);
  }
}
