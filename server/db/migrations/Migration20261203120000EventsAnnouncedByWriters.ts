import { Migration } from '@mikro-orm/migrations';

/**
 * Events are announced on `sendline_events` by the code that appends them
 * (server/events/outbox.ts), not by a trigger on `events`: under Citus a trigger runs on the
 * shard, on a worker, where a NOTIFY reaches none of the processes listening on the coordinator.
 */
export class Migration20261203120000EventsAnnouncedByWriters extends Migration {
  override name = 'Migration20261203120000EventsAnnouncedByWriters';

  override up(): void {
    this.addSql('drop trigger events_announce on events; drop function announce_events();');
  }
}
