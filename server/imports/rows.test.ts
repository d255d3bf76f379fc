import { describe, expect, it } from 'vitest';
import { schemaOf } from '../fields/rules.ts';
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

  it("stores custom fields' values as their fields hold them, and fails a row whose value does not fit", () => {
    const fields = schemaOf([
      { key: 'age', type: 'number', options: [] },
      { key: 'vip', type: 'boolean', options: [] },
      { key: 'renews', type: 'date', options: [] },
      { key: 'plan', type: 'choice', options: ['free', 'pro'] },
      { key: 'note', type: 'text', options: [] },
    ]);
    const ok = toImportRow(
      1,
      { email: 'a@example.com', attributes: { age: ' 41 ', vip: 'No', renews: '2026-02-28', plan: 'pro', note: '12', free: 'x' } },
      [],
      fields,
    );
    expect(ok).toMatchObject({ attributes: '{"age":41,"vip":false,"renews":"2026-02-28","plan":"pro","note":"12","free":"x"}' });
    for (const attributes of [{ age: '4l' }, { vip: 'maybe' }, { renews: '2026-02-30' }, { plan: 'Pro' }, { age: '' }]) {
      expect(toImportRow(2, { email: 'a@example.com', attributes }, [], fields), JSON.stringify(attributes)).toMatchObject({ code: 'invalid_field' });
    }
    const untouched = { email: 'a@example.com', attributes: { other: '4l' } };
    expect(toImportRow(3, untouched, [], fields)).toMatchObject({ attributes: '{"other":"4l"}' });
  });
});
