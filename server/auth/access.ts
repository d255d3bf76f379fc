import { ChangeSetType } from '@mikro-orm/core';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { RequestCounters } from '../rate-limits/limiter.ts';
import { CredentialCache, type RevocationSource } from './credential-cache.ts';
import { User } from './entities.ts';

/** Unknown or expired keys an address presented, per minute (see `ApiKeyService.verify`). */
export const badKeyBucket = (ip: string) => `badkey:ip:${ip}`;

/** What authenticating a request keeps in memory, process-wide. */
export interface Access {
  credentials: CredentialCache;
  counters: RequestCounters;
  close(): Promise<void>;
}

export function startAccess(orm: Orm, revocations: RevocationSource, settings: { invalidKeysPerMinute: number }, log: Logger): Access {
  const credentials = new CredentialCache();
  credentials.listen(revocations);
  announceUserChanges(orm, credentials);
  const counters = new RequestCounters(orm.em.fork(), { prefix: badKeyBucket(''), limit: settings.invalidKeysPerMinute }, log);
  return {
    credentials,
    counters,
    close: () => counters.close(),
  };
}

/**
 * A user's role change or deletion is announced as `user:<id>` in the transaction that makes it
 * (delivered when it commits, or never), so every process forgets the user's cached sessions.
 * This process forgets them at once as well: its next request must not wait for the announcement.
 */
function announceUserChanges(orm: Orm, credentials: CredentialCache): void {
  orm.em.getEventManager().registerSubscriber({
    getSubscribedEntities: () => [User],
    async afterFlush({ em, uow }) {
      const ids = uow
        .getChangeSets()
        .filter((change) => change.meta.className === User.meta.className)
        .filter((change) => change.type === ChangeSetType.DELETE || (change.type === ChangeSetType.UPDATE && 'role' in change.payload))
        .map((change) => `user:${change.getSerializedPrimaryKey()}`);
      if (!ids.length) return;
      await em
        .getConnection()
        .execute("select pg_notify('sendline_revocations', c) from unnest(string_to_array(?, ',')) c", [ids.join(',')], 'all', em.getTransactionContext());
      for (const id of ids) credentials.evict(id);
    },
  });
}
