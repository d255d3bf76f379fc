import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';

export type SuppressionReason = components['schemas']['SuppressionReason'];
export const SUPPRESSION_REASONS = ['unsubscribed', 'bounced', 'complained', 'manual'] as const satisfies readonly SuppressionReason[];

/** An address the account never sends to, contact or not; written by `server/suppressions/store.ts`. */
export const Suppression = defineEntity({
  name: 'Suppression',
  tableName: 'suppressions',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    /** Null once the person was erased: only `emailHash` stays. */
    email: p.string().nullable(),
    emailHash: p.blob(),
    reason: p.enum([...SUPPRESSION_REASONS]),
    source: p.string(),
    detail: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});

export type SuppressionRow = InferEntity<typeof Suppression>;
