import { Migration } from '@mikro-orm/migrations';

/**
 * An import writes with several transactions at once, each owning the addresses that hash to
 * it, so each keeps its own checkpoint: the last file row it has accounted for. An import
 * interrupted before this had one checkpoint, `processed_rows`, which holds for every writer.
 */
export class Migration20261121070000ImportWriters extends Migration {
  override name = 'Migration20261121070000ImportWriters';

  override up(): void {
    this.addSql(`alter table contact_imports add column checkpoints integer[] not null default '{}';`);
  }
}
