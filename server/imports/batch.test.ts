import { describe, expect, it } from 'vitest';
import { StagingBatch } from './batch.ts';
import type { ImportRow } from './rows.ts';

const row = (n: number, values: Partial<ImportRow>): ImportRow => ({
  row: n,
  id: `ct_${n}`,
  email: `p${n}@example.com`,
  firstName: null,
  lastName: null,
  tags: [],
  status: null,
  timezone: null,
  attributes: '{}',
  ...values,
});

const lines = (batch: StagingBatch) => batch.lines().toString('utf8').split('\n').slice(0, -1);

describe('StagingBatch', () => {
  it('writes each row as a line of COPY text, escaping what COPY reads specially', () => {
    const batch = new StagingBatch();
    batch.add(row(1, { firstName: 'Tab\there', lastName: 'Back\\slash', tags: ['a"b', 'c\\d'], status: 'bounced', attributes: '{"note":"two\\nlines"}' }));
    expect(lines(batch)).toEqual(['1\tct_1\tp1@example.com\tTab\\there\tBack\\\\slash\t{"a\\\\"b","c\\\\\\\\d"}\tbounced\t{"note":"two\\\\nlines"}\t\\N']);
  });

  it('merges a repeated address into one line: later values win, tags and attributes add up', () => {
    const batch = new StagingBatch();
    batch.add(
      row(1, {
        email: 'Ann@Example.com',
        firstName: 'Ä\tnn',
        lastName: 'Lee',
        tags: ['x"1', 'shared'],
        timezone: 'Europe/Paris',
        attributes: '{"a":"1\\n","b":"1"}',
      }),
    );
    batch.add(row(2, {}));
    batch.add(row(3, { email: 'ann@example.com', lastName: 'Li\\', tags: ['shared', 'new'], status: 'unsubscribed', attributes: '{"b":"3"}' }));
    expect(batch.rows).toBe(3);
    expect(lines(batch)).toEqual([
      '2\tct_2\tp2@example.com\t\\N\t\\N\t{}\t\\N\t{}\t\\N',
      // The first row's id stays; the name it gave stays where the later row gives none.
      '3\tct_1\tann@example.com\tÄ\\tnn\tLi\\\\\t{"x\\\\"1","shared","new"}\tunsubscribed\t{"a":"1\\\\n","b":"3"}\tEurope/Paris',
    ]);
  });

  it('keeps bad rows apart and counts them in its size', () => {
    const batch = new StagingBatch();
    batch.add({ row: 1, email: 'nope', code: 'invalid_email', detail: 'x' });
    batch.add(row(2, {}));
    expect(batch.size).toBe(2);
    expect(batch.errors).toEqual([{ row: 1, email: 'nope', code: 'invalid_email', detail: 'x' }]);
    expect(lines(batch)).toHaveLength(1);
  });

  it('grows past the memory it was given and can be given memory already used', () => {
    const first = new StagingBatch(Buffer.alloc(16));
    for (let i = 0; i < 2_000; i++) first.add(row(i, { attributes: JSON.stringify({ n: 'é'.repeat(i % 50) }) }));
    expect(lines(first)).toHaveLength(2_000);
    expect(first.byteLength).toBe(first.lines().length);
    const second = new StagingBatch(first.memory);
    second.add(row(7, {}));
    expect(lines(second)).toEqual(['7\tct_7\tp7@example.com\t\\N\t\\N\t{}\t\\N\t{}\t\\N']);
  });
});
