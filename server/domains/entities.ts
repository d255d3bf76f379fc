import { defineEntity, p } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';

export type DomainStatus = components['schemas']['DomainStatus'];
export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const satisfies readonly DomainStatus[];

export const SendingDomain = defineEntity({
  name: 'SendingDomain',
  tableName: 'sending_domains',
  uniques: [{ name: 'sending_domains_account_id_name_key', properties: ['accountId', 'name'] }],
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    name: p.text(),
    status: p.enum([...DOMAIN_STATUSES]),
    dkimSelector: p.text(),
    dkimPublicKey: p.text(),
    dkimPrivateKeySealed: p.text().hidden(),
    nextDkimSelector: p.text().nullable(),
    nextDkimPublicKey: p.text().nullable(),
    nextDkimPrivateKeySealed: p.text().nullable().hidden(),
    /** What the last lookup found, by record (`RecordChecks`). */
    recordChecks: p.json<Record<string, { status: string; found: string[] | null }>>().default('{}'),
    verifiedAt: p.datetime(3).nullable(),
    checkedAt: p.datetime(3).nullable(),
    createdAt: p.datetime(3).defaultRaw('now()'),
    updatedAt: p
      .datetime(3)
      .defaultRaw('now()')
      .onUpdate(() => new Date()),
  },
});
