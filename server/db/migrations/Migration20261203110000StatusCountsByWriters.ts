import { Migration } from '@mikro-orm/migrations';

/**
 * The contacts by status are counted by the statements that write contacts
 * (server/contacts/status-counts.ts), not by triggers on `contacts`: under Citus a trigger runs
 * on the shard, where its transition table cannot be read by the counters' insert.
 */
export class Migration20261203110000StatusCountsByWriters extends Migration {
  override name = 'Migration20261203110000StatusCountsByWriters';

  override up(): void {
    this.addSql(`drop trigger contacts_count_insert on contacts;
      drop trigger contacts_count_update on contacts;
      drop trigger contacts_count_delete on contacts;
      drop function count_contact_inserts();
      drop function count_contact_statuses();
      drop function count_contact_deletes();`);
  }
}
