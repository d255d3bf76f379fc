import { Migration } from '@mikro-orm/migrations';

/**
 * What an editor made a campaign's `content` from (a visual editor's blocks, or Markdown), kept
 * so that the dashboard opens the campaign the way it was written; null for HTML written as is.
 */
export class Migration20261129100000CampaignContentSource extends Migration {
  override name = 'Migration20261129100000CampaignContentSource';

  override up(): void {
    this.addSql('alter table campaigns add column content_source jsonb;');
  }
}
