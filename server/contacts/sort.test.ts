import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../contract/pagination.ts';
import { decodeSortCursor, encodeSortCursor, positionOf, type ContactSort } from './sort.ts';

const contact = { createdAt: new Date('2026-11-02T09:14:27.512Z'), email: 'Ada@Example.com', id: 'ct_1' };
const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('contact sort cursors', () => {
  it('round-trip each order, email ones on the lower-cased address', () => {
    for (const sort of ['created_at', '-created_at', 'email', '-email'] as const) {
      const position = positionOf(sort, contact);
      expect(decodeSortCursor(sort, encodeSortCursor(position))).toEqual(position);
    }
    expect(positionOf('-email', contact)).toEqual({ sort: '-email', email: 'ada@example.com', id: 'ct_1' });
  });

  it('keep the cursors of before sorting, and refuse them for another order', () => {
    const old = encodeCursor({ at: contact.createdAt, id: 'ct_1' });
    expect(encodeSortCursor(positionOf('created_at', contact))).toBe(old);
    expect(() => decodeSortCursor('-created_at', old)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => decodeSortCursor('created_at', encodeSortCursor(positionOf('email', contact)))).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('refuse forged cursors with a 400 at query.cursor', () => {
    const forged: [ContactSort, string][] = [
      ['email', 'not base64 json'],
      ['email', raw({ a: 1 })],
      ['email', raw(['email', 1, 'ct_1'])],
      ['email', raw(['email', 'a', 'x'.repeat(65)])],
      ['email', raw(['email', 'a\u0000', 'ct_1'])],
      ['email', raw(['email', 'a'])],
      ['-created_at', raw(['-created_at', 'yesterday', 'ct_1'])],
    ];
    for (const [sort, cursor] of forged) {
      expect(() => decodeSortCursor(sort, cursor), cursor).toThrow(
        expect.objectContaining({ status: 400, errors: [expect.objectContaining({ pointer: 'query.cursor' })] }),
      );
    }
  });
});
