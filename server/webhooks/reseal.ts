import type { Pool } from 'pg';
import type { Logger } from '../logger.ts';
import type { SecretBox } from './signing.ts';

interface SealedSecrets {
  id: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
}

/**
 * Seals again, under the ring's first key, the webhook secrets sealed under another (an older
 * key, or the legacy one), so that once every process has started on a new ring the old key seals
 * nothing and can leave it. A row is replaced only while it still holds what was read: a rotation
 * of its secret meanwhile, or another process doing the same, wins. Answers how many were sealed again.
 */
export async function resealWebhookSecrets(pool: Pool, box: SecretBox, log: Logger): Promise<number> {
  const { rows } = await pool.query<SealedSecrets>('select id, secret_sealed, previous_secret_sealed from webhooks');
  const stale = (sealed: string | null) => sealed !== null && !box.sealedUnderCurrentKey(sealed);
  let resealed = 0;
  for (const row of rows) {
    if (!stale(row.secret_sealed) && !stale(row.previous_secret_sealed)) continue;
    let secrets: [string, string | null];
    try {
      secrets = [box.seal(box.open(row.secret_sealed)), row.previous_secret_sealed === null ? null : box.seal(box.open(row.previous_secret_sealed))];
    } catch (err) {
      log.error({ err, webhook: row.id }, 'a webhook secret cannot be opened with SECRET_KEYS: put its key back, or rotate the secret (POST /webhooks/{id}/rotate-secret)');
      continue;
    }
    const { rowCount } = await pool.query(
      `update webhooks set secret_sealed = $2, previous_secret_sealed = $3
        where id = $1 and secret_sealed = $4 and previous_secret_sealed is not distinct from $5`,
      [row.id, ...secrets, row.secret_sealed, row.previous_secret_sealed],
    );
    resealed += rowCount ?? 0;
  }
  if (resealed) log.info({ resealed }, 'sealed webhook secrets again under the first key of SECRET_KEYS');
  return resealed;
}
