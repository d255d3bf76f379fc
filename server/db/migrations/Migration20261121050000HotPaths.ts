import { Migration } from '@mikro-orm/migrations';

/** Found by measuring the send, tracking and import paths (see bench/README.md). */
export class Migration20261121050000HotPaths extends Migration {
  override name = 'Migration20261121050000HotPaths';

  override up(): void {
    this.addSql(`
      -- Workers claim in id order: keyed on id, a claim reads its batch and stops. Keyed on
      -- next_attempt_at, every claim read and sorted the campaign's whole remaining queue.
      drop index messages_claimable;
      create index messages_claimable on messages (campaign_id, id) where status in ('queued', 'deferred', 'sending');
    `);
  }
}
