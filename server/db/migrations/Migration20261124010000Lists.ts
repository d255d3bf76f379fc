import { Migration } from '@mikro-orm/migrations';

/**
 * Lists and their members. A member's status is its own (`unconfirmed` until a double opt-in
 * link is followed); a campaign to lists reaches `subscribed` members whose contact is
 * subscribed too. `confirmation_due_at` is set while a confirmation message waits to be sent
 * (and, once claimed, holds the sender's lease). Imports remember the lists they add to.
 *
 * Members are paged in contact order (ids start with their time), on the primary key or the
 * status index, and a list's members are deleted with it by its store: a million-row import into
 * a list writes three index entries per member and checks one foreign key, not five and two.
 */
export class Migration20261124010000Lists extends Migration {
  override name = 'Migration20261124010000Lists';

  override up(): void {
    this.addSql(`
      create table lists (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        name text not null,
        description text,
        double_opt_in boolean not null default false,
        from_email text,
        from_name text,
        public_id text not null unique,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index lists_account_created on lists (account_id, created_at, id);

      create table list_members (
        list_id text not null,
        contact_id text not null references contacts(id) on delete cascade,
        account_id text not null,
        status text not null check (status in ('unconfirmed', 'subscribed', 'unsubscribed')),
        confirmation_due_at timestamptz(3),
        confirmation_sent_at timestamptz(3),
        confirmed_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        primary key (list_id, contact_id)
      );
      create index list_members_contact on list_members (contact_id);
      create index list_members_list_status on list_members (list_id, status, contact_id);
      create index list_members_confirmation_due on list_members (confirmation_due_at) where confirmation_due_at is not null;

      alter table contact_imports add column list_ids text[] not null default '{}';
    `);
  }
}
