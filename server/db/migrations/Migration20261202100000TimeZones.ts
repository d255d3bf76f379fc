import { Migration } from '@mikro-orm/migrations';

/**
 * Time zones: a contact's own (null: its account's; a zone in its `timezone` attribute, which
 * automations read until now, carries over), an account's default, and a campaign sent
 * at a wall-clock time (`send_time`), with when that was set (contacts whose local time had
 * passed by then are late). A queued message may wait for its contact's time in `next_attempt_at`.
 */
export class Migration20261202100000TimeZones extends Migration {
  override name = 'Migration20261202100000TimeZones';

  override up(): void {
    this.addSql('alter table contacts add column timezone text;');
    // Automations read a `timezone` attribute before the field existed: a zone set there carries over.
    this.addSql(`update contacts set timezone = z.name from pg_timezone_names z
      where contacts.attributes ? 'timezone' and z.name = contacts.attributes->>'timezone' and z.name !~ '^(posix|right)/';`);
    this.addSql(`alter table accounts add column timezone text not null default 'UTC';`);
    this.addSql('alter table campaigns add column send_time jsonb, add column send_time_set_at timestamptz;');
    // When a campaign's next message is due: one seek, whatever the messages waiting behind it.
    this.addSql(
      `create index messages_due on messages (campaign_id, coalesce(next_attempt_at, '-infinity')) where status in ('queued', 'deferred', 'sending');`,
    );
  }
}
