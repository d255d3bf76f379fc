import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, toPage } from './pagination.ts';
import { Problem } from './problem.ts';

describe('cursor pagination', () => {
  it('round-trips a cursor', () => {
    const cursor = { at: new Date('2026-01-02T03:04:05.678Z'), id: 'ct_abc' };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    expect(decodeCursor(undefined)).toBeNull();
  });

  it.each(['nope', Buffer.from('[1,2]').toString('base64url'), Buffer.from('["not a date","x"]').toString('base64url')])('refuses %j', (raw) => {
    expect(() => decodeCursor(raw)).toThrow(Problem);
  });

  it('uses the extra row only to tell that more exists', () => {
    const rows = [1, 2, 3].map((n) => ({ createdAt: new Date(n * 1000), id: `x${n}` }));
    const key = (r: (typeof rows)[number]) => ({ at: r.createdAt, id: r.id });
    const full = toPage(rows, 2, key, (r) => r.id);
    expect(full.data).toEqual(['x1', 'x2']);
    expect(full.has_more).toBe(true);
    expect(decodeCursor(full.next_cursor!)).toEqual({ at: rows[1].createdAt, id: 'x2' });
    const last = toPage(rows.slice(0, 2), 2, key, (r) => r.id);
    expect(last).toEqual({ data: ['x1', 'x2'], next_cursor: null, has_more: false });
  });
});
