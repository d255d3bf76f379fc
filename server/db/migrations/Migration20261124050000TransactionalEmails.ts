import { Migration } from '@mikro-orm/migrations';

/**
 * Transactional email (`POST /emails`), in tables of its own so that the campaigns' claim and
 * record statements keep their indexes and plans. `email_contents` holds a request's content
 * once; `emails` one row per recipient, claimed by the transactional sender in `next_attempt_at`
 * order (a scheduled message's time, a deferred one's retry, a claimed one's lease end).
 * The partial index on `events` serves a message's timeline; campaign events never enter it.
 */
export class Migration20261124050000TransactionalEmails extends Migration {
  override name = 'Migration20261124050000TransactionalEmails';

  override up(): void {
    this.addSql(`
      create table email_contents (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        from_email text not null,
        from_name text,
        reply_to text,
        to_header text not null,
        cc_header text,
        subject text not null,
        html text,
        text text,
        headers jsonb not null default '{}',
        attachments jsonb not null default '[]',
        created_at timestamptz(3) not null default now()
      );

      create table emails (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        content_id text not null references email_contents(id) on delete cascade,
        contact_id text references contacts(id) on delete set null,
        email text not null,
        kind text not null check (kind in ('to', 'cc', 'bcc')),
        status text not null check (status in ('scheduled', 'queued', 'sending', 'delivered', 'deferred', 'bounced', 'failed', 'cancelled')),
        reason text,
        attempts integer not null default 0,
        tags text[] not null default '{}',
        metadata jsonb not null default '{}',
        track_opens boolean not null,
        track_clicks boolean not null,
        scheduled_at timestamptz(3),
        next_attempt_at timestamptz(3),
        sent_at timestamptz(3),
        opened_at timestamptz(3),
        human_opened_at timestamptz(3),
        clicked_at timestamptz(3),
        clicked_links integer[] not null default '{}',
        bounced_at timestamptz(3),
        complained_at timestamptz(3),
        created_at timestamptz(3) not null default now()
      );
      create index emails_account_created on emails (account_id, created_at desc, id desc);
      create index emails_account_address on emails (account_id, lower(email), created_at desc, id desc);
      create index emails_claimable on emails (next_attempt_at) where status in ('scheduled', 'queued', 'deferred', 'sending');
      create index emails_content on emails (content_id);

      -- Transactional recipients refused for an earlier bounce or complaint of an address no contact holds.
      create index bounces_account_address on bounces (account_id, lower(email)) where type in ('hard', 'complaint');

      create index events_transactional_message on events ((data->>'message_id'), seq) where data->>'stream' = 'transactional';
    `);
  }
}
