import { Migration } from '@mikro-orm/migrations';

/**
 * A campaign's web version link (on by default, as for campaigns sent before it existed) and its
 * place in the account's public archive, which a random `public_id` of the account names.
 */
export class Migration20261202200000CampaignArchive extends Migration {
  override name = 'Migration20261202200000CampaignArchive';

  override up(): void {
    this.addSql(`alter table campaigns add column web_version_link boolean not null default true,
      add column archive boolean not null default false, add column archive_meta jsonb;`);
    this.addSql(`create index campaigns_archive on campaigns (account_id, started_at desc, id) where archive and started_at is not null;`);
    this.addSql(`alter table accounts add column public_id text;`);
    this.addSql(`update accounts set public_id = substr(replace(gen_random_uuid()::text, '-', ''), 1, 22);`);
    this.addSql(`alter table accounts alter column public_id set not null, add constraint accounts_public_id_key unique (public_id);`);
  }
}
