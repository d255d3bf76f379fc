import { Readable } from 'node:stream';
import { parse, type Parser } from 'csv-parse';
import { ImportFileError } from './errors.ts';

export interface CsvRecord {
  /** 1-based data row; the header is row 0. */
  row: number;
  /** Cells by (mapped, lower-cased) column name. */
  cells: Record<string, string>;
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

/** The decoded text with its first line held back until it is whole, to pick the delimiter. */
async function headerFirst(text: AsyncGenerator<string>): Promise<{ delimiter: ',' | ';'; rest: AsyncGenerator<string> }> {
  let head = '';
  for (;;) {
    const next = await text.next();
    if (next.done) break;
    head += next.value;
    if (/\r?\n/.test(head)) break;
  }
  const delimiter = detectDelimiter(head.split(/\r?\n/)[0]);
  async function* rest() {
    if (head) yield head;
    yield* text;
  }
  return { delimiter, rest: rest() };
}

/**
 * Streams CSV records from raw chunks: header required, quoted fields with delimiters and line
 * breaks, CRLF, a BOM, `,` or `;`. Columns are renamed by `mapping` (source → target, compared
 * without case) and named in lower case.
 */
export async function* csvRecords(chunks: AsyncIterable<Buffer>, mapping: Record<string, string>): AsyncGenerator<CsvRecord, void, undefined> {
  let row = 0;
  const { delimiter, rest } = await headerFirst(utf8(chunks, () => row));
  const parser = parse({ delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: false });
  Readable.from(rest).on('error', (error) => parser.destroy(error)).pipe(parser);
  const renames = new Map(Object.entries(mapping).map(([from, to]) => [from.trim().toLowerCase(), to.trim().toLowerCase()]));
  let columns: string[] | null = null;
  try {
    for await (const fields of eagerRecords(parser)) {
      if (!columns) {
        columns = fields.map((name) => {
          const key = name.trim().toLowerCase();
          return renames.get(key) ?? key;
        });
        if (!columns.includes('email')) {
          throw new ImportFileError('missing_email_column', `The header has no email column (it has: ${columns.join(', ')}).`, 0);
        }
        continue;
      }
      row++;
      const cells: Record<string, string> = {};
      columns.forEach((name, i) => {
        if (name && fields[i] !== undefined) cells[name] = fields[i];
      });
      yield { row, cells };
    }
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'CSV_QUOTE_NOT_CLOSED') {
      throw new ImportFileError('unterminated_quote', 'A quoted field is never closed.', row + 1);
    }
    if (typeof code === 'string' && code.startsWith('CSV_')) {
      throw new ImportFileError('malformed_csv', (error as Error).message, row + 1);
    }
    throw error;
  }
  if (!columns) throw new ImportFileError('missing_header', 'The file is empty: a header row is required.', 0);
}

/**
 * Records as the parser produces them. Taken in flowing mode, so the records parsed before an
 * error (an unterminated quote is only known at the end) are all delivered before it; paused
 * while the consumer is behind.
 */
async function* eagerRecords(parser: Parser): AsyncGenerator<string[]> {
  const queue: string[][] = [];
  let failure: unknown = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  parser.on('data', (record: string[]) => {
    queue.push(record);
    if (queue.length >= 1000) parser.pause();
    notify();
  });
  parser.on('error', (error) => {
    failure = error;
    notify();
  });
  parser.on('end', () => {
    ended = true;
    notify();
  });
  for (;;) {
    if (queue.length) {
      yield queue.shift()!;
      if (queue.length < 100 && parser.isPaused()) parser.resume();
      continue;
    }
    if (failure) throw failure;
    if (ended) return;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}
