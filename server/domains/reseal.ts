import type { Db } from '../db/kysely.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { resealKeys, sealedKeys } from './store.ts';

/**
 * Seals again, under the ring's first key, the DKIM private keys sealed under another, so that
 * once every process has started on a new ring the old key seals nothing and can leave it (as
 * webhook secrets are). Answers how many domains were sealed again.
 */
export async function resealDomainKeys(db: Db, box: SecretBox, log: Logger): Promise<number> {
  const stale = (sealed: string | null) => sealed !== null && !box.sealedUnderCurrentKey(sealed);
  let resealed = 0;
  for (const row of await sealedKeys(db)) {
    if (!stale(row.dkim_private_key_sealed) && !stale(row.next_dkim_private_key_sealed)) continue;
    let sealed: { dkim_private_key_sealed: string; next_dkim_private_key_sealed: string | null };
    try {
      sealed = {
        dkim_private_key_sealed: box.seal(box.open(row.dkim_private_key_sealed)),
        next_dkim_private_key_sealed: row.next_dkim_private_key_sealed === null ? null : box.seal(box.open(row.next_dkim_private_key_sealed)),
      };
    } catch (err) {
      log.error({ err, domain: row.id }, 'a DKIM key cannot be opened with SECRET_KEYS: put its key back, or rotate the key (POST /domains/{id}/dkim/rotate)');
      continue;
    }
    if (await resealKeys(db, row.id, row, sealed)) resealed++;
  }
  if (resealed) log.info({ resealed }, 'sealed DKIM keys again under the first key of SECRET_KEYS');
  return resealed;
}
