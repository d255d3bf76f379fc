import { Migration } from '@mikro-orm/migrations';

/**
 * Raw tracking records and the rollups analytics read. The rollups are kept by statement-level
 * triggers over the raw inserts (one aggregate per batch, not per row), so they cannot drift from
 * the records they summarise. Buckets are whole UTC hours.
 */
export class Migration20261121030000Tracking extends Migration {
  override name = 'Migration20261121030000Tracking';

  override up(): void {
    this.addSql(`
      alter table messages
        add column human_opened_at timestamptz(3),
        add column clicked_links integer[] not null default '{}',
        add column unsubscribed_at timestamptz(3),
        add column complained_at timestamptz(3),
        add column bounced_at timestamptz(3);
      -- Bounces reported by address (no message id) find the latest message to that address.
      create index messages_account_email on messages (account_id, lower(email), created_at desc);
      create index messages_contact on messages (contact_id, created_at desc) where contact_id is not null;

      alter table contacts add column soft_bounces integer not null default 0;

      create table opens (
        id text primary key,
        account_id text not null,
        campaign_id text not null references campaigns(id) on delete cascade,
        message_id text not null,
        contact_id text,
        email text not null,
        occurred_at timestamptz(3) not null,
        user_agent text,
        ip text,
        machine boolean not null,
        -- The message's first open, and its first open not flagged as a machine's.
        is_first boolean not null,
        is_first_human boolean not null
      );
      create index opens_account_time on opens (account_id, occurred_at desc, id desc);
      create index opens_campaign_time on opens (campaign_id, occurred_at desc, id desc);
      create index opens_contact_time on opens (contact_id, occurred_at desc, id desc) where contact_id is not null;

      create table clicks (
        id text primary key,
        account_id text not null,
        campaign_id text not null references campaigns(id) on delete cascade,
        message_id text not null,
        contact_id text,
        email text not null,
        link integer not null,
        url text not null,
        occurred_at timestamptz(3) not null,
        user_agent text,
        ip text,
        is_first boolean not null,
        is_first_for_link boolean not null
      );
      create index clicks_account_time on clicks (account_id, occurred_at desc, id desc);
      create index clicks_campaign_time on clicks (campaign_id, occurred_at desc, id desc);
      create index clicks_contact_time on clicks (contact_id, occurred_at desc, id desc) where contact_id is not null;

      create table bounces (
        id text primary key,
        account_id text not null,
        campaign_id text references campaigns(id) on delete cascade,
        message_id text,
        contact_id text,
        email text not null,
        type text not null check (type in ('hard', 'soft', 'complaint')),
        reason text,
        diagnostic_code text,
        source text not null check (source in ('smtp', 'dsn', 'arf', 'api')),
        occurred_at timestamptz(3) not null
      );
      create index bounces_account_time on bounces (account_id, occurred_at desc, id desc);
      create index bounces_campaign_time on bounces (campaign_id, occurred_at desc, id desc);
      create index bounces_contact_time on bounces (contact_id, occurred_at desc, id desc) where contact_id is not null;

      create table unsubscribes (
        id text primary key,
        account_id text not null,
        campaign_id text not null references campaigns(id) on delete cascade,
        message_id text not null,
        contact_id text,
        email text not null,
        source text not null check (source in ('link', 'one_click', 'api')),
        occurred_at timestamptz(3) not null
      );
      create index unsubscribes_contact_time on unsubscribes (contact_id, occurred_at desc, id desc) where contact_id is not null;

      create table conversions (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        contact_id text,
        campaign_id text references campaigns(id) on delete set null,
        type text not null,
        value numeric(19, 4),
        currency text,
        affiliate_id text,
        external_id text,
        attribution text not null,
        occurred_at timestamptz(3) not null,
        created_at timestamptz(3) not null default now()
      );
      create unique index conversions_account_external on conversions (account_id, external_id) where external_id is not null;
      create index conversions_account_time on conversions (account_id, occurred_at desc, id desc);
      create index conversions_contact_time on conversions (contact_id, occurred_at desc, id desc) where contact_id is not null;

      create table payments (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        contact_id text,
        campaign_id text references campaigns(id) on delete set null,
        amount numeric(19, 4) not null,
        currency text not null,
        external_id text not null,
        attribution text not null,
        occurred_at timestamptz(3) not null,
        created_at timestamptz(3) not null default now()
      );
      create unique index payments_account_external on payments (account_id, external_id);
      create index payments_account_time on payments (account_id, occurred_at desc, id desc);
      create index payments_contact_time on payments (contact_id, occurred_at desc, id desc) where contact_id is not null;

      create table campaign_hourly (
        campaign_id text not null references campaigns(id) on delete cascade,
        bucket timestamptz not null,
        account_id text not null,
        sent integer not null default 0,
        delivered integer not null default 0,
        deferred integer not null default 0,
        failed integer not null default 0,
        opens integer not null default 0,
        unique_opens integer not null default 0,
        human_opens integer not null default 0,
        clicks integer not null default 0,
        unique_clicks integer not null default 0,
        bounces_hard integer not null default 0,
        bounces_soft integer not null default 0,
        complaints integer not null default 0,
        unsubscribes integer not null default 0,
        primary key (campaign_id, bucket)
      );
      create index campaign_hourly_account on campaign_hourly (account_id, bucket);

      create table campaign_links (
        campaign_id text not null references campaigns(id) on delete cascade,
        url text not null,
        total_clicks integer not null default 0,
        unique_clicks integer not null default 0,
        primary key (campaign_id, url)
      );

      create table campaign_domains (
        campaign_id text not null references campaigns(id) on delete cascade,
        domain text not null,
        sent integer not null default 0,
        delivered integer not null default 0,
        opens integer not null default 0,
        clicks integer not null default 0,
        bounces integer not null default 0,
        primary key (campaign_id, domain)
      );

      -- Conversions and payments per hour, campaign ('' for none) and currency ('' for none).
      create table revenue_hourly (
        account_id text not null,
        bucket timestamptz not null,
        campaign_id text not null,
        currency text not null,
        conversions integer not null default 0,
        amount numeric(21, 4) not null default 0,
        primary key (account_id, bucket, campaign_id, currency)
      );

      create table contact_status_counts (
        account_id text not null,
        status text not null,
        count bigint not null default 0,
        primary key (account_id, status)
      );
      insert into contact_status_counts (account_id, status, count)
        select account_id, status, count(*) from contacts group by 1, 2;

      create function rollup_opens() returns trigger language plpgsql as $$
      begin
        insert into campaign_hourly as h (campaign_id, bucket, account_id, opens, unique_opens, human_opens)
          select campaign_id, date_trunc('hour', occurred_at, 'UTC'), min(account_id), count(*),
                 count(*) filter (where is_first), count(*) filter (where is_first_human)
          from new_rows group by 1, 2 order by 1, 2
        on conflict (campaign_id, bucket) do update set opens = h.opens + excluded.opens,
          unique_opens = h.unique_opens + excluded.unique_opens, human_opens = h.human_opens + excluded.human_opens;
        insert into campaign_domains as d (campaign_id, domain, opens)
          select campaign_id, lower(split_part(email, '@', 2)), count(*) from new_rows where is_first group by 1, 2 order by 1, 2
        on conflict (campaign_id, domain) do update set opens = d.opens + excluded.opens;
        update campaigns c set opened = c.opened + n.count
          from (select campaign_id, count(*) from new_rows where is_first group by 1) n where c.id = n.campaign_id;
        return null;
      end $$;
      create trigger opens_rollup after insert on opens referencing new table as new_rows
        for each statement execute function rollup_opens();

      create function rollup_clicks() returns trigger language plpgsql as $$
      begin
        insert into campaign_hourly as h (campaign_id, bucket, account_id, clicks, unique_clicks)
          select campaign_id, date_trunc('hour', occurred_at, 'UTC'), min(account_id), count(*), count(*) filter (where is_first)
          from new_rows group by 1, 2 order by 1, 2
        on conflict (campaign_id, bucket) do update set clicks = h.clicks + excluded.clicks, unique_clicks = h.unique_clicks + excluded.unique_clicks;
        insert into campaign_links as l (campaign_id, url, total_clicks, unique_clicks)
          select campaign_id, url, count(*), count(*) filter (where is_first_for_link) from new_rows group by 1, 2 order by 1, 2
        on conflict (campaign_id, url) do update set total_clicks = l.total_clicks + excluded.total_clicks, unique_clicks = l.unique_clicks + excluded.unique_clicks;
        insert into campaign_domains as d (campaign_id, domain, clicks)
          select campaign_id, lower(split_part(email, '@', 2)), count(*) from new_rows where is_first group by 1, 2 order by 1, 2
        on conflict (campaign_id, domain) do update set clicks = d.clicks + excluded.clicks;
        update campaigns c set clicked = c.clicked + n.count
          from (select campaign_id, count(*) from new_rows where is_first group by 1) n where c.id = n.campaign_id;
        return null;
      end $$;
      create trigger clicks_rollup after insert on clicks referencing new table as new_rows
        for each statement execute function rollup_clicks();

      create function rollup_bounces() returns trigger language plpgsql as $$
      begin
        insert into campaign_hourly as h (campaign_id, bucket, account_id, bounces_hard, bounces_soft, complaints)
          select campaign_id, date_trunc('hour', occurred_at, 'UTC'), min(account_id), count(*) filter (where type = 'hard'),
                 count(*) filter (where type = 'soft'), count(*) filter (where type = 'complaint')
          from new_rows where campaign_id is not null group by 1, 2 order by 1, 2
        on conflict (campaign_id, bucket) do update set bounces_hard = h.bounces_hard + excluded.bounces_hard,
          bounces_soft = h.bounces_soft + excluded.bounces_soft, complaints = h.complaints + excluded.complaints;
        insert into campaign_domains as d (campaign_id, domain, bounces)
          select campaign_id, lower(split_part(email, '@', 2)), count(*) from new_rows
          where campaign_id is not null and type <> 'complaint' group by 1, 2 order by 1, 2
        on conflict (campaign_id, domain) do update set bounces = d.bounces + excluded.bounces;
        update campaigns c set complained = c.complained + n.count
          from (select campaign_id, count(*) from new_rows where type = 'complaint' group by 1) n where c.id = n.campaign_id;
        return null;
      end $$;
      create trigger bounces_rollup after insert on bounces referencing new table as new_rows
        for each statement execute function rollup_bounces();

      create function rollup_unsubscribes() returns trigger language plpgsql as $$
      begin
        insert into campaign_hourly as h (campaign_id, bucket, account_id, unsubscribes)
          select campaign_id, date_trunc('hour', occurred_at, 'UTC'), min(account_id), count(*) from new_rows group by 1, 2 order by 1, 2
        on conflict (campaign_id, bucket) do update set unsubscribes = h.unsubscribes + excluded.unsubscribes;
        update campaigns c set unsubscribed = c.unsubscribed + n.count
          from (select campaign_id, count(*) from new_rows group by 1) n where c.id = n.campaign_id;
        return null;
      end $$;
      create trigger unsubscribes_rollup after insert on unsubscribes referencing new table as new_rows
        for each statement execute function rollup_unsubscribes();

      create function rollup_conversions() returns trigger language plpgsql as $$
      begin
        insert into revenue_hourly as r (account_id, bucket, campaign_id, currency, conversions, amount)
          select account_id, date_trunc('hour', occurred_at, 'UTC'), coalesce(campaign_id, ''), coalesce(currency, ''), count(*), coalesce(sum(value), 0)
          from new_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (account_id, bucket, campaign_id, currency) do update set conversions = r.conversions + excluded.conversions, amount = r.amount + excluded.amount;
        return null;
      end $$;
      create trigger conversions_rollup after insert on conversions referencing new table as new_rows
        for each statement execute function rollup_conversions();

      create function rollup_payments() returns trigger language plpgsql as $$
      begin
        insert into revenue_hourly as r (account_id, bucket, campaign_id, currency, amount)
          select account_id, date_trunc('hour', occurred_at, 'UTC'), coalesce(campaign_id, ''), currency, sum(amount)
          from new_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (account_id, bucket, campaign_id, currency) do update set amount = r.amount + excluded.amount;
        return null;
      end $$;
      create trigger payments_rollup after insert on payments referencing new table as new_rows
        for each statement execute function rollup_payments();

      -- Contacts by status, kept per statement (an import batch is one aggregate, not a row each).
      create function count_contact_statuses() returns trigger language plpgsql as $$
      begin
        insert into contact_status_counts as s (account_id, status, count)
          select account_id, status, sum(delta) from (
            select account_id, status, 1 as delta from new_rows
            union all
            select account_id, status, -1 from old_rows
          ) changes group by 1, 2 having sum(delta) <> 0 order by 1, 2
        on conflict (account_id, status) do update set count = s.count + excluded.count;
        return null;
      end $$;
      create function count_contact_inserts() returns trigger language plpgsql as $$
      begin
        insert into contact_status_counts as s (account_id, status, count)
          select account_id, status, count(*) from new_rows group by 1, 2 order by 1, 2
        on conflict (account_id, status) do update set count = s.count + excluded.count;
        return null;
      end $$;
      create function count_contact_deletes() returns trigger language plpgsql as $$
      begin
        update contact_status_counts s set count = s.count - d.count
          from (select account_id, status, count(*) from old_rows group by 1, 2) d
          where s.account_id = d.account_id and s.status = d.status;
        return null;
      end $$;
      create trigger contacts_count_insert after insert on contacts referencing new table as new_rows
        for each statement execute function count_contact_inserts();
      create trigger contacts_count_update after update on contacts referencing old table as old_rows new table as new_rows
        for each statement execute function count_contact_statuses();
      create trigger contacts_count_delete after delete on contacts referencing old table as old_rows
        for each statement execute function count_contact_deletes();
    `);
  }
}
