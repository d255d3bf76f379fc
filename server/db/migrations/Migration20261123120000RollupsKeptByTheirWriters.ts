import { Migration } from '@mikro-orm/migrations';

/**
 * The rollups of opens, clicks, bounces, unsubscribes, conversions and payments were kept by
 * statement triggers, and the campaign counters beside them by the code that sent the messages:
 * two mechanisms, so a hard bounce reported twice counted once in a campaign's `stats` and twice
 * in its analytics. Their writers now keep every rollup in the same transaction (tracking's and
 * conversions' stores), counting a first where a first is what counts. The contact counts by
 * status stay with their triggers: every writer of contacts, COPY included, moves them.
 */
export class Migration20261123120000RollupsKeptByTheirWriters extends Migration {
  override name = 'Migration20261123120000RollupsKeptByTheirWriters';

  override up(): void {
    this.addSql(`
      drop trigger opens_rollup on opens;
      drop trigger clicks_rollup on clicks;
      drop trigger bounces_rollup on bounces;
      drop trigger unsubscribes_rollup on unsubscribes;
      drop trigger conversions_rollup on conversions;
      drop trigger payments_rollup on payments;
      drop function rollup_opens();
      drop function rollup_clicks();
      drop function rollup_bounces();
      drop function rollup_unsubscribes();
      drop function rollup_conversions();
      drop function rollup_payments();
    `);
  }
}
