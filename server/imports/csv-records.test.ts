import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readCsv } from './csv-records.ts';

/** The bytes as a stream delivers them, cut at the offsets `at`. */
function chunked(bytes: Buffer, at: number[]): AsyncIterable<Buffer> {
  const ends = [...at, bytes.length];
  return Readable.from(ends.map((to, i) => bytes.subarray(i ? ends[i - 1] : 0, to)));
}

async function records(bytes: Buffer, at: number[] = []): Promise<string[][]> {
  const csv = await readCsv(chunked(bytes, at), {});
  const all = [csv.columns];
  for await (const batch of csv.records) all.push(...batch);
  return all;
}

describe('readCsv decoding', () => {
  const text = '\uFEFFemail,first_name\nzoë@example.com,Jürgen\n€uro@example.com,😀 Ann\n';
  const bytes = Buffer.from(text, 'utf8');

  it('reads the same records wherever the chunks split a character, without the BOM', async () => {
    const expected = [
      ['email', 'first_name'],
      ['zoë@example.com', 'Jürgen'],
      ['€uro@example.com', '😀 Ann'],
    ];
    for (let i = 0; i <= bytes.length; i++) expect(await records(bytes, [i])).toEqual(expected);
    expect(await records(bytes, [1, 2, 3, 20, 21, 45, 46, 47])).toEqual(expected);
  });

  it('fails on a byte that is not UTF-8, and on a character cut off at the end', async () => {
    const latin1 = Buffer.from('email\nzo\xeb@example.com\n', 'latin1');
    await expect(records(latin1)).rejects.toMatchObject({ code: 'invalid_encoding', row: 1 });
    const cut = bytes.subarray(0, bytes.indexOf(Buffer.from('😀')) + 2);
    await expect(records(cut, [cut.length - 1])).rejects.toMatchObject({ code: 'invalid_encoding' });
  });
});
