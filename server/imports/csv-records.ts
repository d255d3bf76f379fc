import { CsvParser, MAX_RECORD_CHARS } from './csv-parser.ts';
import { ImportFileError } from './errors.ts';

export interface CsvFile {
  /** Column names from the header: mapped, trimmed, lower-cased. */
  columns: string[];
  /** Data records in file order, a chunk's worth at a time; row n is the n-th record after the header. */
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

/** Decodes chunks as strict UTF-8 (failing on the first invalid byte) and strips a BOM. */
async function* utf8(chunks: AsyncIterable<Buffer>, rowSoFar: () => number): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  try {
    for await (const chunk of chunks) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
  } catch (error) {
    if (error instanceof TypeError) {
      throw new ImportFileError('invalid_encoding', 'The file is not valid UTF-8; save it as UTF-8 and import again.', rowSoFar() + 1);
    }
    throw error;
  }
}

const FAILURES = {
  unterminated_quote: { code: 'unterminated_quote', detail: 'A quoted field is never closed.' },
  invalid_closing_quote: { code: 'malformed_csv', detail: 'A quoted field is followed by text: a closing quote must end the field.' },
  record_too_large: { code: 'row_too_large', detail: `A row is longer than ${MAX_RECORD_CHARS} characters; no valid row comes near that.` },
} as const;

/**
 * Reads a CSV file from raw chunks: header required, quoted fields with delimiters and line
 * breaks, CRLF, a BOM, `,` or `;` (whichever the header uses). Columns are renamed by `mapping`
 * (source → target, compared without case). Records parsed before a malformed one are all
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
  const renames = new Map(Object.entries(mapping).map(([from, to]) => [from.trim().toLowerCase(), to.trim().toLowerCase()]));
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
