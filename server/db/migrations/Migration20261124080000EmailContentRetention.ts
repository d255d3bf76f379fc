import { Migration } from '@mikro-orm/migrations';

/**
 * Transactional contents are kept `EMAIL_CONTENT_RETENTION_DAYS` after every copy of a request
 * reached its final state. `emails.finished_at` says when a copy did (null: not yet, or it did
 * before this column: the pruning job takes a final status without a time as finished long
 * ago, so no backfill rewrites the table). `email_contents.pruned_at` marks contents whose body,
 * headers and attachments are gone; the partial index lists the ones still held, oldest first.
 */
export class Migration20261124080000EmailContentRetention extends Migration {
  override name = 'Migration20261124080000EmailContentRetention';

  override up(): void {
    this.addSql(`
      alter table emails add column finished_at timestamptz(3);
      alter table email_contents add column pruned_at timestamptz(3);
      create index email_contents_held on email_contents (created_at) where pruned_at is null;
    `);
  }
}
