import type { Db } from '../db/kysely.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { resealSecrets, sealedSecrets } from './store.ts';

/**
 * Seals again, under the ring's first key, the webhook secrets sealed under another (an older
 * key, or the legacy one), so that once every process has started on a new ring the old key seals
 * nothing and can leave it. A row is replaced only while it still holds what was read: a rotation
 * of its secret meanwhile, or another process doing the same, wins. Answers how many were sealed again.
 */
export async function resealWebhookSecrets(db: Db, box: SecretBox, log: Logger): Promise<number> {
  const stale = (sealed: string | null) => sealed !== null && !box.sealedUnderCurrentKey(sealed);
  let resealed = 0;
  for (const row of await sealedSecrets(db)) {
    if (!stale(row.secret_sealed) && !stale(row.previous_secret_sealed)) continue;
    let sealed: { secret_sealed: string; previous_secret_sealed: string | null };
    try {
      sealed = {
        secret_sealed: box.seal(box.open(row.secret_sealed)),
        previous_secret_sealed: row.previous_secret_sealed === null ? null : box.seal(box.open(row.previous_secret_sealed)),
      };
    } catch (err) {
      log.error(
        { err, webhook: row.id },
        'a webhook secret cannot be opened with SECRET_KEYS: put its key back, or rotate the secret (POST /webhooks/{id}/rotate-secret)',
      );
      continue;
    }
    if (await resealSecrets(db, row.id, row, sealed)) resealed++;
  }
  if (resealed) log.info({ resealed }, 'sealed webhook secrets again under the first key of SECRET_KEYS');
  return resealed;
}
