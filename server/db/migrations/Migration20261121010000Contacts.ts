import { Migration } from '@mikro-orm/migrations';

export class Migration20261121010000Contacts extends Migration {
  override name = 'Migration20261121010000Contacts';

  override up(): void {
    this.addSql(`
      create extension if not exists btree_gin;

      create table contacts (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        email text not null,
        first_name text,
        last_name text,
        attributes jsonb not null default '{}'::jsonb,
        tags text[] not null default '{}',
        status text not null default 'subscribed' check (status in ('subscribed', 'unsubscribed', 'bounced', 'complained')),
        status_reason text,
        status_changed_at timestamptz(3),
        -- The import that last wrote the contact: a second row for the same email in one file is a duplicate.
        last_import_id text,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      -- Each index costs every imported row; these are the ones the filters need. text_pattern_ops
      -- serves both equality (uniqueness, lookups) and prefix search.
      create unique index contacts_account_email on contacts (account_id, lower(email) text_pattern_ops);
      create index contacts_account_created on contacts (account_id, created_at, id);
      -- Most contacts are subscribed; the created index serves that filter, this one the rest.
      create index contacts_account_suppressed on contacts (account_id, status, created_at, id) where status <> 'subscribed';
      create index contacts_account_tags on contacts using gin (account_id, tags);
      create index contacts_account_first_name on contacts (account_id, lower(first_name) text_pattern_ops);
      create index contacts_account_last_name on contacts (account_id, lower(last_name) text_pattern_ops);

      create table contact_imports (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        status text not null check (status in ('queued', 'running', 'completed', 'failed')),
        mode text not null check (mode in ('upsert', 'create_only', 'update_only')),
        tags text[] not null default '{}',
        mapping jsonb not null default '{}'::jsonb,
        size_bytes bigint not null default 0,
        total_rows integer not null default 0,
        processed_rows integer not null default 0,
        created integer not null default 0,
        updated integer not null default 0,
        skipped integer not null default 0,
        failed integer not null default 0,
        failure_code text,
        failure_detail text,
        failure_row integer,
        created_at timestamptz(3) not null default now(),
        started_at timestamptz(3),
        finished_at timestamptz(3)
      );
      create index contact_imports_account_created on contact_imports (account_id, created_at, id);

      -- The uploaded file, in 1 MB chunks, so any worker process can read it; dropped when done.
      create table contact_import_chunks (
        import_id text not null references contact_imports(id) on delete cascade,
        seq integer not null,
        data bytea not null,
        primary key (import_id, seq)
      );

      create table contact_import_errors (
        import_id text not null references contact_imports(id) on delete cascade,
        row integer not null,
        email text,
        code text not null,
        detail text not null,
        primary key (import_id, row)
      );
    `);
  }
}
