import { Migration } from '@mikro-orm/migrations';

/**
 * A campaign's audience is no longer written whole by the `send` request: the request keeps what
 * chooses it (`definition`: the audience filter, the topic, the segments' rules and fields as
 * they were) and the contacts created up to then (`frozen_at`). The send job takes the audience a
 * piece at a time, walking the contacts in `(created_at, id)` order past the cursor, and writes
 * each message once, with its outcome. A piece being sent is a row of `campaign_audience_pieces`
 * (its contacts' range and when it was taken) until its messages are recorded: one whose worker
 * died is taken again after the lease, for its contacts that have no message yet.
 * Campaigns started before this have all their messages already: no row here means none to write.
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
        done_at timestamptz(3)
      );
      create table campaign_audience_pieces (
        id bigserial primary key,
        campaign_id text not null references campaign_audiences (campaign_id) on delete cascade,
        after_created_at timestamptz(3),
        after_id text,
        last_created_at timestamptz(3) not null,
        last_id text not null,
        taken_at timestamptz(3)
      );
      create index campaign_audience_pieces_campaign on campaign_audience_pieces (campaign_id, taken_at);
    `);
  }
}
