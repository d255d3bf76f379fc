import { Migration } from '@mikro-orm/migrations';

/**
 * The account's suppression list, unsubscribe topics with contacts' opt-outs, a campaign's
 * topic, and contact exports. Addresses on the list are keyed by a SHA-256 of the address
 * (lower-cased): an erased person's entry keeps only the hash, and sends and imports look it up
 * the same way. Contacts suppressed before the list existed are put on it.
 */
export class Migration20261124030000SuppressionsTopicsExports extends Migration {
  override name = 'Migration20261124030000SuppressionsTopicsExports';

  override up(): void {
    this.addSql(`
      create function sendline_email_hash(email text) returns bytea language sql immutable parallel safe
        as $$ select sha256(convert_to(lower(email), 'UTF8')) $$;

      create table suppressions (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        -- Null once the person was erased: only the hash stays.
        email text,
        email_hash bytea not null,
        reason text not null check (reason in ('unsubscribed', 'bounced', 'complained', 'manual')),
        source text not null,
        detail text,
        created_at timestamptz(3) not null default now(),
        unique (account_id, email_hash)
      );
      create index suppressions_account_created on suppressions (account_id, created_at, id);
      create index suppressions_account_reason_created on suppressions (account_id, reason, created_at, id);

      insert into suppressions (id, account_id, email, email_hash, reason, source, detail, created_at)
      select sendline_id('sup'), account_id, email, sendline_email_hash(email), status, 'contact_status', status_reason,
             coalesce(status_changed_at, updated_at)
      from contacts where status <> 'subscribed'
      on conflict do nothing;

      create table topics (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        name text not null,
        description text,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create unique index topics_account_name on topics (account_id, lower(name));
      create index topics_account_created on topics (account_id, created_at, id);

      create table contact_topic_optouts (
        topic_id text not null references topics(id) on delete cascade,
        contact_id text not null references contacts(id) on delete cascade,
        account_id text not null,
        created_at timestamptz(3) not null default now(),
        primary key (topic_id, contact_id)
      );
      create index contact_topic_optouts_contact on contact_topic_optouts (contact_id);

      alter table campaigns add column topic_id text references topics(id) on delete set null;
      create index campaigns_topic on campaigns (topic_id) where topic_id is not null;

      create table contact_exports (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        status text not null default 'queued' check (status in ('queued', 'running', 'completed', 'failed')),
        filters jsonb not null default '{}',
        rows integer not null default 0,
        bytes bigint not null default 0,
        error text,
        created_at timestamptz(3) not null default now(),
        started_at timestamptz(3),
        completed_at timestamptz(3),
        expires_at timestamptz(3) not null
      );
      create index contact_exports_account_created on contact_exports (account_id, created_at, id);
      create index contact_exports_expires on contact_exports (expires_at);

      create table contact_export_chunks (
        export_id text not null references contact_exports(id) on delete cascade,
        seq integer not null,
        data bytea not null,
        primary key (export_id, seq)
      );
    `);
  }
}
