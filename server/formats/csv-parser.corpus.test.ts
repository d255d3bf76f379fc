/**
 * The hand-written parser held to other parsers' test corpora: every csv-spectrum file, and
 * csv-parse (with the options that match this parser's rules) as an oracle on its own kinds of
 * cases and on generated files full of quotes, delimiters and line breaks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/random.ts';
import { CsvParser } from './csv-parser.ts';
import { readCsv } from '../imports/csv-records.ts';

const spectrum = path.dirname(createRequire(import.meta.url).resolve('csv-spectrum/package.json'));

function ours(text: string, delimiter: ',' | ';' = ','): string[][] {
  const parser = new CsvParser(delimiter);
  const records = parser.push(text);
  records.push(...parser.end());
  expect(parser.failure).toBeNull();
  return records;
}

/** csv-parse set to this parser's rules: CRLF, LF or CR ends a record, any field count, stray quotes kept, blank lines skipped. */
const oracle = (text: string, delimiter = ','): string[][] =>
  parse(text, { delimiter, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, relax_quotes: true, skip_empty_lines: true });

/** Its JSON has another phone number than its CSV: that file is held to csv-parse only. */
const SPECTRUM_JSON_WRONG = new Set(['location_coordinates']);

describe('the CSV parser against csv-spectrum', () => {
  for (const file of readdirSync(path.join(spectrum, 'csvs'))) {
    it(file, () => {
      const name = file.replace(/\.csv$/, '');
      const text = readFileSync(path.join(spectrum, 'csvs', file), 'utf8');
      expect(ours(text)).toEqual(oracle(text));
      if (SPECTRUM_JSON_WRONG.has(name)) return;
      const expected: Record<string, string>[] = JSON.parse(readFileSync(path.join(spectrum, 'json', `${name}.json`), 'utf8'));
      const [header, ...rows] = ours(text);
      expect(rows.map((row) => Object.fromEntries(header.map((column, i) => [column, row[i]])))).toEqual(expected);
    });
  }
});

describe("the CSV parser against csv-parse's cases", () => {
  const cases: Record<string, string> = {
    'quoted fields with delimiters': 'a,"b,c",d\n"e","f"\n',
    'escaped quotes': '"a""b","""",""""""\n',
    'line breaks in quoted fields': '"a\nb","c\r\nd","e\rf"\n',
    'a quote inside an unquoted field': 'a"b,c""d\n',
    'empty quoted and unquoted fields': ',"",\n"",,""\n',
    'CRLF line ends': 'a,b\r\nc,d\r\n',
    'CR line ends': 'a,b\rc,d\r',
    'mixed line ends': 'a\nb\r\nc\rd\n',
    'no final line break': 'a,b\nc,"d"',
    'blank lines': '\n\na,b\n\n\r\n\nc,d\n\n',
    'ragged rows': 'a,b,c\nd\ne,f\n',
    'spaces kept': ' a , b \n',
    unicode: 'é,"ü,ß",日本\n🙂,x\n',
  };
  for (const [name, text] of Object.entries(cases)) it(name, () => expect(ours(text)).toEqual(oracle(text)));

  it('semicolons', () => {
    const text = 'a;"b;c";d,e\n';
    expect(ours(text, ';')).toEqual(oracle(text, ';'));
  });

  it('a BOM before the header, and CRLF, through the file reader', async () => {
    const csv = await readCsv(Readable.from([Buffer.from('\ufeffemail,name\r\n"a@example.com","A ""1"""\r\n', 'utf8')]), {});
    const rows: string[][] = [];
    for await (const batch of csv.records) rows.push(...batch);
    expect(csv.columns).toEqual(['email', 'name']);
    expect(rows).toEqual(oracle('a@example.com,"A ""1"""\r\n'));
  });

  it('agrees on generated files full of quotes, delimiters and line breaks', () => {
    const random = seededRandom(7);
    const pieces = ['a', 'bc', ' ', ',', '"', '""', '\n', '\r\n', '\r', 'é', '🙂', ';'];
    for (let file = 0; file < 300; file++) {
      const rows = Array.from({ length: 1 + random(6) }, () =>
        Array.from({ length: 1 + random(5) }, () => {
          const text = Array.from({ length: random(6) }, () => pieces[random(pieces.length)]).join('');
          // Quoted when it must be (or at random); a bare field gets no quote or line break.
          return random(2) || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
        }).join(','),
      );
      const text = rows.map((row) => row + ['\n', '\r\n', '\r'][random(3)]).join('');
      expect(ours(text), JSON.stringify(text)).toEqual(oracle(text));
    }
  });
});
