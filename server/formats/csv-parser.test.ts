import { describe, expect, it } from 'vitest';
import { CsvParser } from './csv-parser.ts';

function parseAll(chunks: string[], delimiter: ',' | ';' = ',') {
  const parser = new CsvParser(delimiter);
  const records = chunks.flatMap((chunk) => parser.push(chunk));
  records.push(...parser.end());
  return { records, failure: parser.failure };
}

/** The text cut at every position, and into single characters: chunk edges must not matter. */
function everySplit(text: string): string[][] {
  const splits = [[text], [...text]];
  for (let i = 1; i < text.length; i++) splits.push([text.slice(0, i), text.slice(i)]);
  return splits;
}

const TRICKY = 'email,name,notes\r\n"a@x.io","Lee, Jr.","line one\r\nline two"\r\nb@x.io,"Cat ""The Cat""",\n\nc@x.io,5"2,x\rd@x.io,,""\r\n';
const EXPECTED = [
  ['email', 'name', 'notes'],
  ['a@x.io', 'Lee, Jr.', 'line one\r\nline two'],
  ['b@x.io', 'Cat "The Cat"', ''],
  ['c@x.io', '5"2', 'x'],
  ['d@x.io', '', ''],
];

describe('CsvParser', () => {
  it('reads quotes, escaped quotes, line breaks in fields, CRLF, LF and CR, and skips empty lines', () => {
    expect(parseAll([TRICKY])).toEqual({ records: EXPECTED, failure: null });
  });

  it('gives the same records however the text is cut into chunks', () => {
    for (const chunks of everySplit(TRICKY)) expect(parseAll(chunks).records).toEqual(EXPECTED);
  });

  it('keeps the last record without a final line break, and a trailing empty field', () => {
    expect(parseAll(['a,b\nc,']).records).toEqual([
      ['a', 'b'],
      ['c', ''],
    ]);
    expect(parseAll(['a,"b"']).records).toEqual([['a', 'b']]);
    expect(parseAll(['a;b,c\n'], ';').records).toEqual([['a', 'b,c']]);
  });

  it('returns the records before an unterminated quote, then names the record', () => {
    for (const chunks of everySplit('h\nok\n"open\nnever closed\n')) {
      expect(parseAll(chunks)).toEqual({ records: [['h'], ['ok']], failure: { code: 'unterminated_quote', record: 2 } });
    }
  });

  it('refuses text after a closing quote', () => {
    for (const chunks of everySplit('h\nok\n"a"b,c\nlater\n')) {
      expect(parseAll(chunks)).toEqual({ records: [['h'], ['ok']], failure: { code: 'invalid_closing_quote', record: 2 } });
    }
  });

  it('refuses a record longer than its limit, however the text is cut', () => {
    // A limit of 7 characters, line break not counted: "a,bcdef" is just within it.
    const text = 'h\na,bcdef\nlonger,record\nlater\n';
    for (const chunks of everySplit(text)) {
      const parser = new CsvParser(',', 7);
      const records = chunks.flatMap((chunk) => parser.push(chunk));
      records.push(...parser.end());
      expect({ records, failure: parser.failure }).toEqual({ records: [['h'], ['a', 'bcdef']], failure: { code: 'record_too_large', record: 2 } });
    }
    const last = new CsvParser(',', 7);
    expect([...last.push('a,bcdef\nabcdefgh'), ...last.end()]).toEqual([['a', 'bcdef']]);
    expect(last.failure).toEqual({ code: 'record_too_large', record: 1 });
  });

  it('parses nothing from an empty text', () => {
    expect(parseAll(['', ''])).toEqual({ records: [], failure: null });
  });
});
