import { Migration } from '@mikro-orm/migrations';

/**
 * Custom field definitions (typed keys of `contacts.attributes`) and saved segments (rule trees,
 * compiled to SQL when read). Tags stay in `contacts.tags`; they have no table of their own.
 */
export class Migration20261124020000SegmentsAndFields extends Migration {
  override name = 'Migration20261124020000SegmentsAndFields';

  override up(): void {
    this.addSql(`
      create table contact_fields (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        key text not null,
        label text not null,
        type text not null check (type in ('text', 'number', 'date', 'boolean', 'choice')),
        options jsonb not null default '[]'::jsonb,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create unique index contact_fields_account_key on contact_fields (account_id, key);

      create table segments (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        name text not null,
        description text,
        rules jsonb not null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index segments_account_created on segments (account_id, created_at, id);
    `);
  }
}
