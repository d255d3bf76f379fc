import { Migration } from '@mikro-orm/migrations';

/**
 * Each relay's sends per second, claimed in blocks by every sending process, so a relay's
 * `rate_per_second` holds across processes. Rows older than a few seconds are deleted as it goes.
 */
export class Migration20261130200000RelaySendSlots extends Migration {
  override name = 'Migration20261130200000RelaySendSlots';

  override up(): void {
    this.addSql('create table relay_send_slots (relay text not null, second bigint not null, taken integer not null, primary key (relay, second));');
  }
}
