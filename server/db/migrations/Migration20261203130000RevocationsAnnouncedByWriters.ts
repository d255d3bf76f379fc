import { Migration } from '@mikro-orm/migrations';

/**
 * Ended sessions and keys, and changed allow-lists, are announced on `sendline_revocations` by
 * the code that ends or changes them (`announceRevoked`), not by triggers: under Citus,
 * `sessions` and `api_keys` are reference tables, whose triggers would run on every node.
 */
export class Migration20261203130000RevocationsAnnouncedByWriters extends Migration {
  override name = 'Migration20261203130000RevocationsAnnouncedByWriters';

  override up(): void {
    this.addSql(`drop trigger sessions_revoked on sessions;
      drop trigger sessions_deleted on sessions;
      drop trigger api_keys_deleted on api_keys;
      drop trigger api_keys_restricted on api_keys;
      drop function announce_revocation();`);
  }
}
