import { Migration } from '@mikro-orm/migrations';

/**
 * Each account's sending domains: their DKIM keys (the private halves sealed under SECRET_KEYS,
 * two during a rotation) and what the last DNS check found. Unique per account, not across
 * accounts: only the account that publishes its own key gets a domain verified.
 */
export class Migration20261130100000SendingDomains extends Migration {
  override name = 'Migration20261130100000SendingDomains';

  override up(): void {
    this.addSql(`
      create table sending_domains (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        name text not null,
        status text not null default 'pending' check (status in ('pending', 'verified', 'failed')),
        dkim_selector text not null,
        dkim_public_key text not null,
        dkim_private_key_sealed text not null,
        next_dkim_selector text,
        next_dkim_public_key text,
        next_dkim_private_key_sealed text,
        record_checks jsonb not null default '{}',
        verified_at timestamptz(3),
        checked_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint sending_domains_account_id_name_key unique (account_id, name)
      );`);
    this.addSql('create index sending_domains_account_created on sending_domains (account_id, created_at, id);');
    this.addSql("create index sending_domains_due on sending_domains (checked_at) where status = 'verified';");
  }
}
