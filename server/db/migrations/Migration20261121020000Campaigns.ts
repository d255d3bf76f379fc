import { Migration } from '@mikro-orm/migrations';

export class Migration20261121020000Campaigns extends Migration {
  override name = 'Migration20261121020000Campaigns';

  override up(): void {
    this.addSql(`
      -- Ids made in SQL (bulk inserts), in the shape of server/db/ids.ts: 8 characters of time,
      -- then 14 random. Message ids are not secrets: the links in emails carry signed tokens.
      create function sendline_id(prefix text) returns text language plpgsql volatile as $$
      declare
        alphabet constant text := '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
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

      create table campaigns (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        name text not null,
        subject text not null,
        from_email text not null,
        from_name text,
        reply_to text,
        content text not null,
        text_content text,
        preheader text,
        audience jsonb not null default '{}'::jsonb,
        track_opens boolean not null default true,
        track_clicks boolean not null default true,
        status text not null check (status in ('draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled', 'failed')),
        failure_reason text,
        scheduled_at timestamptz(3),
        started_at timestamptz(3),
        completed_at timestamptz(3),
        recipients integer not null default 0,
        sent integer not null default 0,
        delivered integer not null default 0,
        deferred integer not null default 0,
        failed integer not null default 0,
        bounced integer not null default 0,
        opened integer not null default 0,
        clicked integer not null default 0,
        unsubscribed integer not null default 0,
        complained integer not null default 0,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create index campaigns_account_created on campaigns (account_id, created_at, id);
      create index campaigns_scheduled on campaigns (scheduled_at) where status = 'scheduled';

      -- One row per recipient, snapshotted when sending starts. The personal data stays when a
      -- contact is deleted only as far as the log needs it: the address, not the contact.
      create table messages (
        id text primary key,
        account_id text not null,
        campaign_id text not null references campaigns(id) on delete cascade,
        contact_id text references contacts(id) on delete set null,
        email text not null,
        status text not null check (status in ('queued', 'sending', 'sent', 'delivered', 'deferred', 'bounced', 'failed', 'cancelled')),
        reason text,
        attempts integer not null default 0,
        next_attempt_at timestamptz(3),
        claimed_at timestamptz(3),
        sent_at timestamptz(3),
        opened_at timestamptz(3),
        clicked_at timestamptz(3),
        created_at timestamptz(3) not null default now()
      );
      create index messages_campaign_created on messages (campaign_id, created_at, id);
      create index messages_campaign_status on messages (campaign_id, status, created_at, id);
      -- What workers claim: queued rows, deferred rows due again, and rows a dead worker held.
      create index messages_claimable on messages (campaign_id, next_attempt_at) where status in ('queued', 'deferred', 'sending');
    `);
  }
}
