import { copyText } from '../db/copy.ts';
import type { RowError } from './errors.ts';
import type { ImportRow } from './rows.ts';

const arrayLiteral = (items: string[]) => `{${items.map((t) => `"${t.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;

/** The elements of a literal written by `arrayLiteral`. */
function parseArrayLiteral(literal: string): string[] {
  return [...literal.slice(1, -1).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([, item]) => item.replace(/\\(.)/g, '$1'));
}

const COPY_ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', '\\': '\\' };
const fromCopyText = (field: string): string | null => (field === '\\N' ? null : field.replace(/\\(.)/g, (_, c: string) => COPY_ESCAPES[c]));

/** A row as a line of COPY text in the contacts' `IMPORT_STAGING_COLUMNS` (contacts/import-batch.ts). */
const stagingLine = (r: ImportRow): string =>
  `${r.row}\t${r.id}\t${copyText(r.email)}\t${copyText(r.firstName)}\t${copyText(r.lastName)}\t${copyText(arrayLiteral(r.tags))}\t${copyText(r.status)}\t${copyText(r.attributes)}\t${copyText(r.timezone)}\n`;

function parseStagingLine(line: string): ImportRow {
  const [row, id, email, firstName, lastName, tags, status, attributes, timezone] = line.slice(0, -1).split('\t').map(fromCopyText);
  return {
    row: Number(row),
    id: id!,
    email: email!,
    firstName,
    lastName,
    tags: parseArrayLiteral(tags!),
    status: status as ImportRow['status'],
    attributes: attributes!,
    timezone,
  };
}

/** Two rows for one email become one: the later row's values win, tags and attributes add up. */
function mergeRows(earlier: ImportRow, later: ImportRow): ImportRow {
  return {
    row: later.row,
    id: earlier.id,
    email: later.email,
    firstName: later.firstName ?? earlier.firstName,
    lastName: later.lastName ?? earlier.lastName,
    status: later.status ?? earlier.status,
    timezone: later.timezone ?? earlier.timezone,
    tags: [...new Set([...earlier.tags, ...later.tags])],
    attributes: JSON.stringify({ ...JSON.parse(earlier.attributes), ...JSON.parse(later.attributes) }),
  };
}

/**
 * The rows of one batch, held as the bytes of their COPY text for the staging table, one line
 * per address (rows repeating an address are merged into one). Each row becomes bytes as it is
 * added, so the objects it was read into die young: a batch of thousands of rows kept as
 * objects outlived the young generation and made the import thread spend a third of its time in
 * garbage collection.
 */
export class StagingBatch {
  readonly errors: RowError[] = [];
  /** Valid rows taken in, repeats included. */
  rows = 0;
  private bytes: Buffer;
  private used = 0;
  /** Where each line starts; a line replaced by a merge is kept out of `lines` by `replaced`. */
  private readonly starts: number[] = [];
  private readonly replaced = new Set<number>();
  private readonly lineOf = new Map<string, number>();

  /** `bytes`: where to write, such as the memory of a batch already written (see `memory`). */
  constructor(bytes: Buffer = Buffer.allocUnsafeSlow(64 * 1024)) {
    this.bytes = bytes;
  }

  /** The memory the batch writes into, for another batch once this one is written. */
  get memory(): Buffer {
    return this.bytes;
  }

  get size(): number {
    return this.rows + this.errors.length;
  }

  add(checked: ImportRow | RowError): void {
    if ('code' in checked) {
      this.errors.push(checked);
      return;
    }
    this.rows++;
    const key = checked.email.toLowerCase();
    const earlier = this.lineOf.get(key);
    const row = earlier === undefined ? checked : mergeRows(this.line(earlier), checked);
    if (earlier !== undefined) this.replaced.add(earlier);
    this.lineOf.set(key, this.append(stagingLine(row)));
  }

  /** Bytes of COPY text held. */
  get byteLength(): number {
    return this.used;
  }

  /** The COPY text of the batch's lines, each address once. */
  lines(): Buffer {
    if (!this.replaced.size) return this.bytes.subarray(0, this.used);
    const kept: Buffer[] = [];
    this.starts.forEach((start, i) => {
      if (!this.replaced.has(i)) kept.push(this.bytes.subarray(start, this.end(i)));
    });
    return Buffer.concat(kept);
  }

  private end(line: number): number {
    return line + 1 < this.starts.length ? this.starts[line + 1] : this.used;
  }

  private line(line: number): ImportRow {
    return parseStagingLine(this.bytes.toString('utf8', this.starts[line], this.end(line)));
  }

  private append(text: string): number {
    // A UTF-16 code unit takes at most three bytes in UTF-8.
    if (this.used + text.length * 3 > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + text.length * 3));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.starts.push(this.used);
    this.used += this.bytes.write(text, this.used);
    return this.starts.length - 1;
  }
}
