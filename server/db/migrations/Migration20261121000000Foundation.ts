import { Migration } from '@mikro-orm/migrations';

export class Migration20261121000000Foundation extends Migration {
  override name = 'Migration20261121000000Foundation';

  override up(): void {
    this.addSql(`
      create table accounts (
        id text primary key,
        name text not null,
        created_at timestamptz(3) not null default now()
      );

      create table users (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        email text not null,
        name text not null,
        role text not null check (role in ('owner', 'admin', 'member')),
        password_hash text not null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create unique index users_email_unique on users (lower(email));
      create index users_account_created on users (account_id, created_at, id);

      -- A session is one refresh-token family: rotating keeps the row, reuse revokes it.
      create table sessions (
        id text primary key,
        user_id text not null references users(id) on delete cascade deferrable initially deferred,
        refresh_hash text not null,
        created_at timestamptz(3) not null default now(),
        expires_at timestamptz(3) not null,
        revoked_at timestamptz(3)
      );
      create index sessions_user on sessions (user_id);

      create table api_keys (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        name text not null,
        prefix text not null,
        key_hash text not null unique,
        scopes text[] not null,
        allowed_ips text[] not null default '{}',
        rate_limit_per_minute integer,
        created_at timestamptz(3) not null default now(),
        last_used_at timestamptz(3),
        expires_at timestamptz(3)
      );
      create index api_keys_account_created on api_keys (account_id, created_at, id);

      -- Fixed-window counters shared by every server process (API key limits, login throttling).
      create unlogged table rate_limit_counters (
        bucket text not null,
        window_start timestamptz not null,
        count integer not null,
        primary key (bucket, window_start)
      );

      -- The transactional outbox: written in the same transaction as the change it describes.
      create table events (
        seq bigserial unique,
        id text primary key,
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        type text not null,
        data jsonb not null,
        created_at timestamptz(3) not null default now()
      );
      create index events_account_seq on events (account_id, seq);
    `);
  }
}
