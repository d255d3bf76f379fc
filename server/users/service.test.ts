import { describe, expect, it } from 'vitest';
import type { UserRole } from '../auth/entities.ts';
import { Problem } from '../contract/problem.ts';
import { assertCanManage } from './service.ts';

const roles: UserRole[] = ['member', 'admin', 'owner'];
const allowed = (actor: UserRole, target: UserRole | null, grant: UserRole | null) => {
  try {
    assertCanManage(actor, target, grant);
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    expect((error as Problem).code).toBe('insufficient_role');
    return false;
  }
};

describe('who may manage whom', () => {
  it('members manage nobody', () => {
    for (const target of [null, ...roles]) for (const grant of [null, ...roles]) expect(allowed('member', target, grant)).toBe(false);
  });

  it('admins manage members and admins, never owners', () => {
    expect(allowed('admin', 'member', 'admin')).toBe(true);
    expect(allowed('admin', 'admin', 'member')).toBe(true);
    expect(allowed('admin', null, 'member')).toBe(true);
    expect(allowed('admin', 'owner', null)).toBe(false);
    expect(allowed('admin', 'member', 'owner')).toBe(false);
    expect(allowed('admin', null, 'owner')).toBe(false);
  });

  it('owners manage everyone', () => {
    for (const target of [null, ...roles]) for (const grant of [null, ...roles]) expect(allowed('owner', target, grant)).toBe(true);
  });
});
