import { isUtf8 } from 'node:buffer';
import { CsvParser, MAX_RECORD_CHARS } from '../formats/csv-parser.ts';
import { ImportFileError } from './errors.ts';

export interface CsvFile {
  /** Column names from the header: mapped, trimmed, lower-cased. */
  columns: string[];
  /** Data records in file order, a piece of the file at a time; row n is the n-th record after the header. */
  records: AsyncGenerator<string[][], void, undefined>;
}

/** `;` when the header uses it more than `,` (as spreadsheets in many locales write CSV). */
export function detectDelimiter(headerLine: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === ',') commas++;
    else if (!quoted && char === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** Bytes at the end of `chunk` that start a character it does not finish (0 to 3). */
function incompleteTail(chunk: Buffer): number {
  for (let back = 1; back <= Math.min(3, chunk.length); back++) {
    const byte = chunk[chunk.length - back];
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) {
      const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return needs > back ? back : 0;
    }
  }
  return 0;
}

/** How much text the parser gets at a time: the records cut from it die young. */
const PIECE_BYTES = 16 * 1024;

/**
 * Decodes chunks as strict UTF-8 (failing on the first invalid byte) and strips a BOM, in
 * pieces of at most PIECE_BYTES. Checked by isUtf8 and decoded by toString, not by TextDecoder:
 * V8 then keeps text within Latin-1 at one byte a character, as are the fields cut from it.
 */
async function* utf8(chunks: AsyncIterable<Buffer>, rowSoFar: () => number): AsyncGenerator<string> {
  const invalid = () => new ImportFileError('invalid_encoding', 'The file is not valid UTF-8; save it as UTF-8 and import again.', rowSoFar() + 1);
  let carried: Buffer = Buffer.alloc(0);
  let atStart = true;
  for await (const chunk of chunks) {
    for (let offset = 0; offset < chunk.length; offset += PIECE_BYTES) {
      const piece = chunk.subarray(offset, offset + PIECE_BYTES);
      const bytes = carried.length ? Buffer.concat([carried, piece]) : piece;
      const whole = bytes.length - incompleteTail(bytes);
      carried = bytes.subarray(whole);
      let text = bytes.subarray(0, whole);
      if (!isUtf8(text)) throw invalid();
      if (atStart && text.length) {
        if (text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf) text = text.subarray(3);
        atStart = false;
      }
      yield text.toString('utf8');
    }
  }
  if (carried.length) throw invalid();
}

const FAILURES = {
  unterminated_quote: { code: 'unterminated_quote', detail: 'A quoted field is never closed.' },
  invalid_closing_quote: { code: 'malformed_csv', detail: 'A quoted field is followed by text: a closing quote must end the field.' },
  record_too_large: { code: 'row_too_large', detail: `A row is longer than ${MAX_RECORD_CHARS} characters; no valid row comes near that.` },
} as const;

/** The mapping target that leaves a column out of the import. */
const IGNORED = '-';

/**
 * Reads a CSV file from raw chunks: header required, quoted fields with delimiters and line
 * breaks, CRLF, a BOM, `,` or `;` (whichever the header uses). Columns are renamed by `mapping`
 * (source → target, compared without case; the target `-` leaves the column out). Records parsed before a malformed one are all
 * delivered before the error, so the import keeps them.
 */
export async function readCsv(chunks: AsyncIterable<Buffer>, mapping: Record<string, string>): Promise<CsvFile> {
  let rows = 0;
  const text = utf8(chunks, () => rows);
  let parser: CsvParser | null = null;
  let pending: string[][] = [];
  const fail = () => {
    const failure = parser!.failure!;
    const { code, detail } = FAILURES[failure.code];
    return new ImportFileError(code, detail, failure.record);
  };
  // The header: text until its first line is whole (which decides the delimiter), then until
  // its record is whole (a quoted name may hold a line break).
  let head = '';
  let ended = false;
  while (!parser) {
    const next = await text.next();
    if (next.done) ended = true;
    else head += next.value;
    const lineEnd = head.search(/\r|\n/);
    if (lineEnd === -1 && !ended) continue;
    parser = new CsvParser(detectDelimiter(lineEnd === -1 ? head : head.slice(0, lineEnd)));
    pending = parser.push(head);
  }
  while (!pending.length && !parser.failure) {
    const next = ended ? { done: true as const } : await text.next();
    if (next.done) {
      ended = true;
      pending = parser.end();
      break;
    }
    pending = parser.push(next.value);
  }
  const [header, ...first] = pending;
  if (!header) {
    if (parser.failure) throw fail();
    throw new ImportFileError('missing_header', 'The file is empty: a header row is required.', 0);
  }
  // A column renamed `-` gets no name: rows leave it out (csvRowReader reads named columns only).
  const renames = new Map(Object.entries(mapping).map(([from, to]) => [from.trim().toLowerCase(), to.trim() === IGNORED ? '' : to.trim().toLowerCase()]));
  const columns = header.map((name) => {
    const key = name.trim().toLowerCase();
    return renames.get(key) ?? key;
  });
  if (!columns.includes('email')) {
    throw new ImportFileError('missing_email_column', `The header has no email column (it has: ${columns.join(', ')}).`, 0);
  }
  const csv = parser;
  async function* records(): AsyncGenerator<string[][], void, undefined> {
    let batch = first;
    for (;;) {
      rows += batch.length;
      if (batch.length) yield batch;
      if (csv.failure) throw fail();
      if (ended) return;
      const next = await text.next();
      if (next.done) {
        ended = true;
        batch = csv.end();
      } else batch = csv.push(next.value);
    }
  }
  return { columns, records: records() };
}
