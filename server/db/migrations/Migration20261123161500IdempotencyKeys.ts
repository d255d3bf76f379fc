import { Migration } from '@mikro-orm/migrations';

/**
 * `Idempotency-Key` on POSTs: one row per key, account and credential, kept 24 hours. A row is
 * reserved (no `status`) before the handler runs, so a duplicate arriving meanwhile conflicts on
 * the primary key; it then holds the answer, sealed. `holder` names the request that reserved it,
 * so a request whose lease was taken over cannot overwrite its successor's answer.
 */
export class Migration20261123161500IdempotencyKeys extends Migration {
  override name = 'Migration20261123161500IdempotencyKeys';

  override up(): void {
    this.addSql(`
      create table idempotency_keys (
        account_id text not null references accounts(id) on delete cascade,
        credential text not null,
        key text not null,
        holder text not null,
        method text not null,
        path text not null,
        request_hash bytea,
        status smallint,
        seal_key_id text,
        sealed_answer bytea,
        created_at timestamptz(3) not null default now(),
        primary key (account_id, credential, key)
      );
      create index idempotency_keys_created_at on idempotency_keys (created_at);
    `);
  }
}
