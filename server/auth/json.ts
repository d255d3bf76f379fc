import type { components } from '../../generated/openapi.d.ts';
import type { AccountRow, UserRow } from './entities.ts';

export const userJson = (u: UserRow): components['schemas']['User'] => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  account_id: u.accountId,
  created_at: u.createdAt.toISOString(),
});

export const accountJson = (a: AccountRow): components['schemas']['Account'] => ({
  id: a.id,
  public_id: a.publicId,
  name: a.name,
  timezone: a.timezone,
  created_at: a.createdAt.toISOString(),
});
