import { Migration } from '@mikro-orm/migrations';

/**
 * A/B tests: a campaign's variants and how its test runs, where the test is, when its wait ends
 * and the winner; each message names the variant it carries.
 */
export class Migration20261202300000AbTests extends Migration {
  override name = 'Migration20261202300000AbTests';

  override up(): void {
    this.addSql(`alter table campaigns add column variants jsonb, add column ab_test jsonb,
      add column test_phase text check (test_phase in ('testing', 'waiting', 'decided')),
      add column test_decides_at timestamptz, add column winner jsonb;`);
    this.addSql('alter table messages add column variant text;');
    // The tick's question every second: which tests' waits have ended.
    this.addSql(`create index campaigns_test_waiting on campaigns (test_decides_at) where test_phase = 'waiting';`);
  }
}
