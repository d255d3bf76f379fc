import { Migration } from '@mikro-orm/migrations';

/**
 * Ids made in SQL use the alphabet of server/db/ids.ts, now in code point order
 * (`0-9A-Za-z`): with digits then lower then upper case, an id's time part did not sort as
 * text in the order of its time whenever a digit passed from `z` to `A`.
 */
export class Migration20261121080000IdAlphabet extends Migration {
  override name = 'Migration20261121080000IdAlphabet';

  override up(): void {
    this.addSql(`
      create or replace function sendline_id(prefix text) returns text language plpgsql volatile as $$
      declare
        alphabet constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
        ms bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
        id text := '';
      begin
        for i in 1..8 loop
          id := substr(alphabet, (ms % 62)::int + 1, 1) || id;
          ms := ms / 62;
        end loop;
        for i in 1..14 loop
          id := id || substr(alphabet, floor(random() * 62)::int + 1, 1);
        end loop;
        return prefix || '_' || id;
      end $$;
    `);
  }
}
