import { Migration } from '@mikro-orm/migrations';

/** Found by measuring the send, tracking and import paths (see bench/README.md). */
export class Migration20261121050000HotPaths extends Migration {
  override name = 'Migration20261121050000HotPaths';

  override up(): void {
    this.addSql(`
      -- Workers claim in id order: keyed on id, a claim reads its batch and stops. Keyed on
      -- next_attempt_at, every claim read and sorted the campaign's whole remaining queue.
      drop index messages_claimable;
      create index messages_claimable on messages (campaign_id, id) where status in ('queued', 'deferred', 'sending');

      -- A foreign key checks its parent once per inserted row: 120,000 lookups of one account for
      -- a 40,000-message send, a quarter of the time of writing a batch of opens. On the tables
      -- written in bulk, the cascades become statement triggers on the parents instead; every
      -- writer takes the parent ids from rows it has just read (the account of the caller, the
      -- campaign of a message).
      alter table events drop constraint events_account_id_fkey;
      alter table contacts drop constraint contacts_account_id_fkey;
      alter table messages drop constraint messages_campaign_id_fkey, drop constraint messages_contact_id_fkey;
      alter table opens drop constraint opens_campaign_id_fkey;
      alter table clicks drop constraint clicks_campaign_id_fkey;

      create function cascade_account_delete() returns trigger language plpgsql as $$
      begin
        delete from events where account_id in (select id from old_rows);
        delete from contacts where account_id in (select id from old_rows);
        return null;
      end $$;
      create trigger accounts_cascade after delete on accounts referencing old table as old_rows
        for each statement execute function cascade_account_delete();

      create function cascade_campaign_delete() returns trigger language plpgsql as $$
      begin
        delete from messages where campaign_id in (select id from old_rows);
        delete from opens where campaign_id in (select id from old_rows);
        delete from clicks where campaign_id in (select id from old_rows);
        return null;
      end $$;
      create trigger campaigns_cascade after delete on campaigns referencing old table as old_rows
        for each statement execute function cascade_campaign_delete();

      create function release_contact_messages() returns trigger language plpgsql as $$
      begin
        update messages set contact_id = null where contact_id in (select id from old_rows);
        return null;
      end $$;
      create trigger contacts_release_messages after delete on contacts referencing old table as old_rows
        for each statement execute function release_contact_messages();
    `);
  }
}
