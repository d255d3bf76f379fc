import { defineEntity, p } from '@mikro-orm/core';

/** A POST's `Idempotency-Key` within its account and credential: reserved, then its answer (written only by `store.ts`). */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    accountId: p.string().primary(),
    /** `key:<api key id>` or `user:<user id>`. */
    credential: p.string().primary(),
    key: p.string().primary(),
    /** The request holding the reservation. */
    holder: p.string(),
    method: p.string(),
    path: p.string(),
    /** SHA-256 of the query, media type and body; set with the answer. */
    requestHash: p.blob().nullable(),
    /** Null while the first request runs. */
    status: p.smallint().nullable(),
    sealKeyId: p.string().nullable(),
    /** The answer's stored headers and body, sealed (AES-256-GCM). */
    sealedAnswer: p.blob().nullable(),
    /** `sendline_email_hash` of every address the answer shows, so that an erasure finds it sealed. */
    emailHashes: p.array<Buffer>().columnType('bytea[]').nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
