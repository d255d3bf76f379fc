import { Migration } from '@mikro-orm/migrations';

/**
 * A contact export's CSV is written by PostgreSQL. An attribute that is not text is written as
 * JavaScript's `JSON.stringify` writes it (the API's JSON), which jsonb's text output is not:
 * jsonb puts spaces after `:` and `,`, writes numbers as stored (`1.50`, `1000000000000000000000`
 * where JavaScript writes `1.5`, `1e+21`), and orders keys by length where JavaScript puts
 * integer keys first. These functions write numbers (through float8, whose shortest round-trip
 * digits are JavaScript's) and objects and arrays the JavaScript way.
 */
export class Migration20261124060000ExportJsonText extends Migration {
  override name = 'Migration20261124060000ExportJsonText';

  override up(): void {
    this.addSql(`
      create function sendline_js_number(n numeric) returns text language plpgsql immutable strict parallel safe as $f$
      declare
        t text;
        e integer;
      begin
        begin
          t := n::float8::text;
        exception when numeric_value_out_of_range then
          -- JSON.parse reads these as Infinity (written null) or as 0.
          return case when abs(n) > 1 then 'null' else '0' end;
        end;
        if t = '-0' then return '0'; end if;
        if position('e' in t) = 0 then return t; end if;
        e := split_part(t, 'e', 2)::integer;
        -- float8 text uses an exponent from 1e15 and below 1e-4, JavaScript from 1e21 and below 1e-6.
        if e between -6 and 20 then
          return trim_scale(split_part(t, 'e', 1)::numeric * power(10::numeric, e))::text;
        end if;
        return regexp_replace(t, 'e([+-])0*', 'e\\1');
      end
      $f$;

      create function sendline_js_json(v jsonb) returns text language plpgsql immutable strict parallel safe as $f$
      begin
        case jsonb_typeof(v)
          when 'object' then
            -- JavaScript objects list array-index keys first, in numeric order, then the others in the order read.
            return '{' || coalesce((
              select string_agg(to_json(key)::text || ':' || sendline_js_json(value), ','
                order by index_key is null, index_key, ord)
              from jsonb_each(v) with ordinality as e(key, value, ord),
                lateral (select case when key ~ '^(0|[1-9][0-9]{0,9})$' and key::bigint < 4294967295 then key::bigint end as index_key) k
            ), '') || '}';
          when 'array' then
            return '[' || coalesce((select string_agg(sendline_js_json(value), ',' order by ord) from jsonb_array_elements(v) with ordinality as e(value, ord)), '') || ']';
          when 'number' then
            return sendline_js_number(v::numeric);
          else
            return v::text;
        end case;
      end
      $f$;
    `);
  }
}
