import { Migration } from '@mikro-orm/migrations';

/**
 * A campaign's audience is no longer written whole by the `send` request: the request keeps what
 * chooses it (`definition`: the audience filter, the topic, the segments' rules and fields as
 * they were) and the contacts created up to then (`frozen_at`), and the send job writes its
 * messages a batch at a time, walking the contacts in `(created_at, id)` order past the cursor.
 * Campaigns started before this have all their messages already: no row here means no more to write.
 */
export class Migration20261124100000CampaignAudiences extends Migration {
  override name = 'Migration20261124100000CampaignAudiences';

  override up(): void {
    this.addSql(`
      create table campaign_audiences (
        campaign_id text primary key references campaigns (id) on delete cascade,
        account_id text not null,
        definition jsonb not null,
        frozen_at timestamptz(3) not null,
        after_created_at timestamptz(3),
        after_id text,
        written integer not null default 0,
        done_at timestamptz(3)
      );
    `);
  }
}
