import { describe, expect, it } from 'vitest';
import { checkBulkRequest } from './bulk.ts';
import { filtersOf } from './repository.ts';

const pointerOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { errors: { pointer: string }[] }).errors[0].pointer;
  }
  return null;
};

describe('bulk requests', () => {
  it('take tags for tag and untag, a list for list actions, and nothing else', () => {
    expect(checkBulkRequest({ action: 'tag', tags: [' vip ', 'vip', ''], contact_ids: ['ct_1'] })).toEqual({ tags: ['vip'], listId: null });
    expect(checkBulkRequest({ action: 'remove_from_list', list_id: 'lst_1', filter: {} })).toEqual({ tags: [], listId: 'lst_1' });
    expect(pointerOf(() => checkBulkRequest({ action: 'untag', tags: [' '], filter: {} }))).toBe('/tags');
    expect(pointerOf(() => checkBulkRequest({ action: 'delete', tags: ['x'], filter: {} }))).toBe('/tags');
    expect(pointerOf(() => checkBulkRequest({ action: 'add_to_list', filter: {} }))).toBe('/list_id');
    expect(pointerOf(() => checkBulkRequest({ action: 'tag', tags: ['x'], list_id: 'lst_1', filter: {} }))).toBe('/list_id');
  });

  it('name their contacts one way only', () => {
    expect(pointerOf(() => checkBulkRequest({ action: 'delete' }))).toBe('/contact_ids');
    expect(pointerOf(() => checkBulkRequest({ action: 'delete', contact_ids: ['ct_1'], filter: {} }))).toBe('/filter');
  });

  it('read the filters as GET /contacts does', () => {
    expect(filtersOf({ status: 'bounced', q: 'ada', created_after: '2026-11-01T00:00:00Z' })).toEqual({
      status: 'bounced',
      tag: undefined,
      email: undefined,
      q: 'ada',
      createdAfter: new Date('2026-11-01T00:00:00Z'),
      createdBefore: undefined,
    });
  });
});
