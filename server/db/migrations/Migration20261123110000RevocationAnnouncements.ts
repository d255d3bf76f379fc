import { Migration } from '@mikro-orm/migrations';

/**
 * Ending a credential is announced on `sendline_revocations` as `session:<id>` or `key:<id>`, by
 * whatever ends it (logout, refresh-token reuse, a password change, deleting the user or the key),
 * so every process closes the WebSocket clients that authenticated with it. A key whose IP
 * allow-list changed is announced as `key-restricted:<id>`: its clients are checked again.
 */
export class Migration20261123110000RevocationAnnouncements extends Migration {
  override name = 'Migration20261123110000RevocationAnnouncements';

  override up(): void {
    this.addSql(`
      create or replace function announce_revocation() returns trigger language plpgsql as $$
      begin
        perform pg_notify('sendline_revocations', tg_argv[0] || ':' || old.id);
        return null;
      end $$;

      create trigger sessions_revoked after update of revoked_at on sessions for each row
        when (old.revoked_at is null and new.revoked_at is not null) execute function announce_revocation('session');
      create trigger sessions_deleted after delete on sessions for each row execute function announce_revocation('session');
      create trigger api_keys_deleted after delete on api_keys for each row execute function announce_revocation('key');
      create trigger api_keys_restricted after update of allowed_ips on api_keys for each row
        when (old.allowed_ips is distinct from new.allowed_ips) execute function announce_revocation('key-restricted');
    `);
  }
}
