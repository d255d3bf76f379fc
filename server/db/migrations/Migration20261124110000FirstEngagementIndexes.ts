import { Migration } from '@mikro-orm/migrations';

/**
 * Every opened (clicked) message has exactly one open (click) marked `is_first`, so "has this
 * contact ever opened" reads these indexes, one entry per opened message, instead of every open:
 * segment rules without a time window (`opened`, `not_opened`, `clicked`, `not_clicked`).
 */
export class Migration20261124110000FirstEngagementIndexes extends Migration {
  override name = 'Migration20261124110000FirstEngagementIndexes';

  override up(): void {
    this.addSql(`
      create index opens_contact_first on opens (contact_id, campaign_id) where is_first and contact_id is not null;
      create index clicks_contact_first on clicks (contact_id, campaign_id) where is_first and contact_id is not null;
    `);
  }
}
