import { Migration } from '@mikro-orm/migrations';

/**
 * Two things made every transaction that created a contact wait for the one before it to commit
 * (its WAL flush included), whatever the number of connections:
 * - the account's one `contact_status_counts` row per status, locked by the trigger's upsert until
 *   commit. The counts are now split into shards, one chosen by the writing connection
 *   (`pg_backend_pid() % 16`), and readers add the shards up; existing counts become shard 0.
 *   A shard may go negative (a contact counted in one shard, deleted through another): only sums
 *   mean anything.
 * - the NOTIFY of `announce_events`: PostgreSQL lets one notifying transaction commit at a time.
 *   Events are now announced only where someone listens: an account with events not born
 *   dispatched (a webhook subscribes to them) or with WebSocket clients, which the processes
 *   holding them register in `event_subscribers`.
 */
export class Migration20261123150000ConcurrentContactWrites extends Migration {
  override name = 'Migration20261123150000ConcurrentContactWrites';

  override up(): void {
    this.addSql(`
      alter table contact_status_counts add column shard smallint not null default 0;
      alter table contact_status_counts drop constraint contact_status_counts_pkey;
      alter table contact_status_counts add primary key (account_id, status, shard);

      create or replace function count_contact_statuses() returns trigger language plpgsql as $$
      begin
        insert into contact_status_counts as s (account_id, status, shard, count)
          select account_id, status, pg_backend_pid() % 16, sum(delta) from (
            select account_id, status, 1 as delta from new_rows
            union all
            select account_id, status, -1 from old_rows
          ) changes group by 1, 2 having sum(delta) <> 0 order by 1, 2
        on conflict (account_id, status, shard) do update set count = s.count + excluded.count;
        return null;
      end $$;
      create or replace function count_contact_inserts() returns trigger language plpgsql as $$
      begin
        insert into contact_status_counts as s (account_id, status, shard, count)
          select account_id, status, pg_backend_pid() % 16, count(*) from new_rows group by 1, 2 order by 1, 2
        on conflict (account_id, status, shard) do update set count = s.count + excluded.count;
        return null;
      end $$;
      create or replace function count_contact_deletes() returns trigger language plpgsql as $$
      begin
        insert into contact_status_counts as s (account_id, status, shard, count)
          -- Not for an account being deleted (its contacts go with it): nothing would read the row.
          select account_id, status, pg_backend_pid() % 16, -count(*) from old_rows
          where exists (select 1 from accounts a where a.id = old_rows.account_id) group by 1, 2 order by 1, 2
        on conflict (account_id, status, shard) do update set count = s.count + excluded.count;
        return null;
      end $$;

      -- The accounts some process holds WebSocket clients of, refreshed by that process while it
      -- does (seen_at); rows of a process that died are removed by the others once stale.
      create table event_subscribers (
        account_id text not null references accounts(id) on delete cascade,
        listener text not null,
        seen_at timestamptz not null default now(),
        primary key (account_id, listener)
      );

      create or replace function announce_events() returns trigger language plpgsql as $$
      declare
        batch record;
        i int;
      begin
        for batch in
          select account_id, array_agg(seq order by seq) as seqs from new_rows group by account_id
          having bool_or(not dispatched) or exists (select 1 from event_subscribers s where s.account_id = new_rows.account_id)
        loop
          i := 1;
          while i <= array_length(batch.seqs, 1) loop
            -- An account id and 500 seqs stay well within NOTIFY's 8,000 bytes.
            perform pg_notify('sendline_events', batch.account_id || ':' || array_to_string(batch.seqs[i:i + 499], ','));
            i := i + 500;
          end loop;
        end loop;
        return null;
      end $$;
    `);
  }
}
