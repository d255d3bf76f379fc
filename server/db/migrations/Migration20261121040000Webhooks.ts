import { Migration } from '@mikro-orm/migrations';

export class Migration20261121040000Webhooks extends Migration {
  override name = 'Migration20261121040000Webhooks';

  override up(): void {
    this.addSql(`
      -- Events not yet fanned out to webhooks. A flag, not a cursor over seq: a transaction that
      -- took a lower seq can commit after a higher one, and a cursor would skip its events.
      alter table events add column dispatched boolean not null default false;
      create index events_undispatched on events (seq) where not dispatched;

      -- Every committed batch of events is announced to the processes that LISTEN (WebSocket
      -- fan-out, webhook dispatch), one notification per statement, carrying the new seqs.
      create function announce_events() returns trigger language plpgsql as $$
      declare
        seqs bigint[];
        i int := 1;
      begin
        select array_agg(seq order by seq) into seqs from new_rows;
        while i <= coalesce(array_length(seqs, 1), 0) loop
          perform pg_notify('sendline_events', array_to_string(seqs[i:i + 499], ','));
          i := i + 500;
        end loop;
        return null;
      end $$;
      create trigger events_announce after insert on events referencing new table as new_rows
        for each statement execute function announce_events();

      create table webhooks (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        url text not null,
        description text,
        events text[] not null,
        active boolean not null default true,
        disabled_reason text,
        -- Signing secrets must be usable, so they are encrypted (AES-256-GCM), not hashed.
        secret_sealed text not null,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz(3),
        last_success_at timestamptz(3),
        last_failure_at timestamptz(3),
        failing_since timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index webhooks_account_created on webhooks (account_id, created_at, id);

      create table webhook_deliveries (
        id text primary key,
        webhook_id text not null references webhooks(id) on delete cascade,
        account_id text not null,
        event_id text not null,
        event_type text not null,
        status text not null check (status in ('pending', 'succeeded', 'failed')),
        attempts integer not null default 0,
        status_code integer,
        latency_ms integer,
        response_excerpt text,
        error text,
        next_retry_at timestamptz(3),
        locked_until timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        unique (webhook_id, event_id)
      );
      create index webhook_deliveries_due on webhook_deliveries (webhook_id, next_retry_at) where status = 'pending';
      create index webhook_deliveries_list on webhook_deliveries (webhook_id, created_at desc, id desc);
      create index webhook_deliveries_failed on webhook_deliveries (webhook_id, updated_at) where status = 'failed';
    `);
  }
}
