import { describe, expect, it } from 'vitest';
import { toImportRow } from './rows.ts';

describe('toImportRow', () => {
  it('fails a row with U+0000 in any field, attributes and their keys included', () => {
    const rows = [
      { email: 'a\0@example.com' },
      { email: 'a@example.com', first_name: 'A\0' },
      { email: 'a@example.com', tags: ['x', 'y\0'] },
      { email: 'a@example.com', attributes: { nested: { list: ['ok', 'n\0'] } } },
      { email: 'a@example.com', attributes: { 'k\0': 1 } },
    ];
    for (const raw of rows) expect(toImportRow(7, raw, []), JSON.stringify(raw)).toMatchObject({ row: 7, code: 'invalid_text' });
  });

  it('keeps a backslash followed by u0000, which is text and not a NUL', () => {
    expect(toImportRow(1, { email: 'a@example.com', attributes: { path: 'C:\\u0000' } }, [])).toMatchObject({
      email: 'a@example.com',
      attributes: '{"path":"C:\\\\u0000"}',
    });
  });
});
