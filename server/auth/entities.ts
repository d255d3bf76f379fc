import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';
import { enumValues } from '../contract/enums.ts';

export type UserRole = components['schemas']['UserRole'];
export const USER_ROLES = enumValues<UserRole>()(['owner', 'admin', 'member']);

export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    /** Names the account's public pages (its campaign archive). */
    publicId: p.string(),
    /** Contacts without a zone of their own are in this one. */
    timezone: p.string().default('UTC'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    email: p.string(),
    name: p.string(),
    role: p.enum([...USER_ROLES]),
    passwordHash: p.string().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.string().primary(),
    userId: p.string(),
    refreshHash: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
});

export type AccountRow = InferEntity<typeof Account>;
export type UserRow = InferEntity<typeof User>;
export type SessionRow = InferEntity<typeof Session>;
