import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';

export type MemberStatus = components['schemas']['ListMemberStatus'];
export const MEMBER_STATUSES = ['unconfirmed', 'subscribed', 'unsubscribed'] as const satisfies readonly MemberStatus[];

/** A list of contacts; `public_id` names it in public subscription forms. */
export const MailingList = defineEntity({
  name: 'MailingList',
  tableName: 'lists',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    name: p.string(),
    description: p.string().nullable(),
    doubleOptIn: p.boolean().default(false),
    fromEmail: p.string().nullable(),
    fromName: p.string().nullable(),
    publicId: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});

/** A contact's membership of a list, with its own status; written only by `server/lists/store.ts`. */
export const ListMember = defineEntity({
  name: 'ListMember',
  tableName: 'list_members',
  properties: {
    listId: p.string().primary(),
    contactId: p.string().primary(),
    accountId: p.string(),
    status: p.enum([...MEMBER_STATUSES]),
    /** Set while a confirmation waits to be sent; once claimed, the sender's lease. */
    confirmationDueAt: p.datetime().nullable(),
    confirmationSentAt: p.datetime().nullable(),
    confirmedAt: p.datetime().nullable(),
    /** A public sign-up not confirmed by then is removed (with the contact it alone made). */
    signupExpiresAt: p.datetime().nullable(),
    /** Confirmations public sign-ups asked for since `confirmationsRequestedSince`, at most a day ago. */
    confirmationsRequested: p.integer().default(0),
    confirmationsRequestedSince: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});

export type MailingListRow = InferEntity<typeof MailingList>;
export type ListMemberRow = InferEntity<typeof ListMember>;
