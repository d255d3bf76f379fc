export type CsvFailureCode = 'unterminated_quote' | 'invalid_closing_quote' | 'record_too_large';

export interface CsvFailure {
  code: CsvFailureCode;
  /** 0-based index of the record that is malformed, counting every record before it. */
  record: number;
}

/**
 * No valid row comes near this (16 KB of custom fields, names of 200 characters, 100 tags of
 * 100); a longer record is a broken file, and refusing it bounds the memory one record takes.
 */
export const MAX_RECORD_CHARS = 1024 * 1024;

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

// Parser states (plain numbers: the server runs by type stripping, which has no enums).
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** A quote inside a quoted field: either the first of `""` or the closing one. */
const QUOTE_IN_QUOTED = 3;
/** Just after a CR that ended a record: a LF here belongs to it. */
const AFTER_CR = 4;

/**
 * RFC 4180 CSV, fed in chunks of text: quoted fields with delimiters, quotes (`""`) and line
 * breaks; CRLF, LF or CR line ends; a quote inside an unquoted field is kept as text; empty lines
 * are skipped; rows may have any number of fields. Hand-written because it is the hot loop of a
 * million-row import: csv-parse spent about 5 µs a row, mostly in Buffer and stream machinery.
 *
 * A malformed record does not throw: `push` returns the records completed before it and
 * `failure` says what went wrong, so the caller can keep what was good.
 */
export class CsvParser {
  failure: CsvFailure | null = null;
  private readonly delimiter: number;
  private state = FIELD_START;
  private fields: string[] = [];
  /** The part of the current field that lies in earlier chunks. */
  private carried = '';
  private quotedInRecord = false;
  private records = 0;
  private readonly maxRecordChars: number;
  /** Characters of the current record in earlier chunks, and where it starts in this one. */
  private recordChars = 0;
  private recordStart = 0;

  constructor(delimiter: ',' | ';', maxRecordChars = MAX_RECORD_CHARS) {
    this.delimiter = delimiter.charCodeAt(0);
    this.maxRecordChars = maxRecordChars;
  }

  /** Parses `text`; returns the records it completes. */
  push(text: string): string[][] {
    const out: string[][] = [];
    if (this.failure) return out;
    const delimiter = this.delimiter;
    const length = text.length;
    let state = this.state;
    let start = 0;
    let i = 0;
    this.recordStart = 0;
    const field = (end: number) => {
      const value = this.carried ? this.carried + text.slice(start, end) : text.slice(start, end);
      this.carried = '';
      this.fields.push(value);
    };
    /** Ends the field at `at`, where `c` (a delimiter or line break) stands; returns the next state. */
    const endField = (at: number, c: number) => {
      field(at);
      if (c === delimiter) return FIELD_START;
      this.closeRecord(out, at);
      return c === CR ? AFTER_CR : FIELD_START;
    };
    while (i < length) {
      switch (state) {
        case AFTER_CR:
          if (text.charCodeAt(i) === LF) i++;
          state = FIELD_START;
          break;
        case FIELD_START:
          if (text.charCodeAt(i) === QUOTE) {
            state = QUOTED;
            this.quotedInRecord = true;
            start = ++i;
          } else {
            state = UNQUOTED;
            start = i;
          }
          break;
        case UNQUOTED: {
          let c = text.charCodeAt(i);
          while (c !== delimiter && c !== LF && c !== CR) {
            if (++i === length) break;
            c = text.charCodeAt(i);
          }
          if (i === length) break;
          state = endField(i++, c);
          if (this.failure) return out;
          break;
        }
        case QUOTED: {
          const quote = text.indexOf('"', i);
          if (quote === -1) {
            i = length;
            break;
          }
          this.carried += text.slice(start, quote);
          i = quote + 1;
          start = i;
          state = QUOTE_IN_QUOTED;
          break;
        }
        case QUOTE_IN_QUOTED: {
          const c = text.charCodeAt(i);
          if (c === QUOTE) {
            // `""`: the second quote starts the rest of the field.
            start = i++;
            state = QUOTED;
          } else if (c === delimiter || c === LF || c === CR) {
            state = endField(i++, c);
            if (this.failure) return out;
          } else {
            this.failure = { code: 'invalid_closing_quote', record: this.records };
            return out;
          }
          break;
        }
      }
    }
    // Whatever the current field holds so far waits for the next chunk.
    if (state === UNQUOTED || state === QUOTED) this.carried += text.slice(start, length);
    this.state = state;
    this.recordChars += length - this.recordStart;
    if (this.recordChars > this.maxRecordChars) this.failure = { code: 'record_too_large', record: this.records };
    return out;
  }

  /** The end of the input: the last record when the file does not end with a line break. */
  end(): string[][] {
    const out: string[][] = [];
    if (this.failure) return out;
    if (this.state === QUOTED) {
      this.failure = { code: 'unterminated_quote', record: this.records };
      return out;
    }
    if (this.state === UNQUOTED || this.state === QUOTE_IN_QUOTED || (this.state === FIELD_START && this.fields.length)) {
      this.fields.push(this.carried);
      this.carried = '';
      // The whole record lies in earlier chunks.
      this.recordStart = 0;
      this.closeRecord(out, 0);
    }
    this.state = FIELD_START;
    return out;
  }

  /** Closes the record whose terminator stands at `end` of the current chunk. */
  private closeRecord(out: string[][], end: number): void {
    const chars = this.recordChars + end - this.recordStart;
    this.recordChars = 0;
    this.recordStart = end + 1;
    if (chars > this.maxRecordChars) {
      this.failure = { code: 'record_too_large', record: this.records };
      return;
    }
    const fields = this.fields;
    this.fields = [];
    // An empty line is one empty, unquoted field.
    if (fields.length === 1 && fields[0] === '' && !this.quotedInRecord) return;
    this.quotedInRecord = false;
    this.records++;
    out.push(fields);
  }
}
