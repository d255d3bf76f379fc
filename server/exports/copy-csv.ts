import { MARK } from './csv-writer.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const APOSTROPHE = 0x27;

// Where the writer is in COPY's CSV:
/** the start of a cell; */
const CELL_START = 0;
/** after a cell's opening quote; */
const QUOTE_OPENED = 1;
/** after the mark at the start of an unquoted cell; */
const MARKED = 2;
/** after the opening quote and the mark; */
const QUOTED_MARKED = 3;
/** inside an unquoted cell; */
const PLAIN = 4;
/** inside a quoted cell; */
const QUOTED = 5;
/** after a quote inside a quoted cell: an escaped quote, or the cell's end. */
const QUOTE_IN_QUOTED = 6;

/**
 * Turns the CSV that `COPY … (format csv)` writes for `exportCopySql` into the bytes `csvLine`
 * writes: records end in CRLF (COPY ends them in LF; line breaks inside quoted cells stay as
 * they are), and a cell marked as a formula (see `guarded`) becomes `"'…"`, quoted whether or
 * not COPY quoted it; a cell whose own text starts with the mark loses the mark COPY was given.
 * The rest is already the same: COPY quotes a cell with a comma, quote, CR or LF and doubles its
 * quotes, as `csvCell` does. One pass over the bytes; state carries across COPY's chunks.
 */
export class CopyCsvWriter {
  private at: number = CELL_START;
  /** The unquoted cell being written was a formula: it gets a closing quote. */
  private closeQuote = false;
  /** The output, reused: a buffer a chunk of COPY's would leave to the garbage collector. */
  private out = Buffer.allocUnsafe(0);
  /** Where each record the last `write` finished ends in its output. */
  readonly recordEnds: number[] = [];

  /** The CSV for `input`, up to where `input` ends; valid until the next `write`. */
  write(input: Uint8Array): Buffer {
    // At most two bytes more per input byte (a record end, a guarded cell's quotes).
    if (this.out.length < input.length * 2 + 2) this.out = Buffer.allocUnsafe(input.length * 2 + 2);
    const out = this.out;
    let o = 0;
    let at = this.at;
    const ends = this.recordEnds;
    ends.length = 0;
    for (let i = 0; i < input.length; i++) {
      const b = input[i];
      switch (at) {
        case CELL_START:
          if (b === QUOTE) at = QUOTE_OPENED;
          else if (b === MARK) at = MARKED;
          else if (b === COMMA) out[o++] = COMMA;
          else if (b === LF) {
            out[o++] = CR;
            out[o++] = LF;
            ends.push(o);
          } else {
            out[o++] = b;
            at = PLAIN;
          }
          break;
        case QUOTE_OPENED:
          if (b === MARK) at = QUOTED_MARKED;
          else {
            out[o++] = QUOTE;
            if (b === QUOTE) at = QUOTE_IN_QUOTED;
            else {
              out[o++] = b;
              at = QUOTED;
            }
          }
          break;
        case MARKED:
          // The cell's own text starts with the mark, or it is a formula.
          if (b !== MARK) {
            out[o++] = QUOTE;
            out[o++] = APOSTROPHE;
            this.closeQuote = true;
          }
          out[o++] = b;
          at = PLAIN;
          break;
        case QUOTED_MARKED:
          out[o++] = QUOTE;
          if (b !== MARK) out[o++] = APOSTROPHE;
          out[o++] = b;
          at = QUOTED;
          break;
        case PLAIN:
          if (b === COMMA || b === LF) {
            if (this.closeQuote) {
              out[o++] = QUOTE;
              this.closeQuote = false;
            }
            if (b === LF) out[o++] = CR;
            at = CELL_START;
          }
          out[o++] = b;
          if (b === LF) {
            ends.push(o);
          }
          break;
        case QUOTED:
          if (b === QUOTE) at = QUOTE_IN_QUOTED;
          else out[o++] = b;
          break;
        case QUOTE_IN_QUOTED:
          out[o++] = QUOTE;
          if (b === QUOTE) {
            out[o++] = QUOTE;
            at = QUOTED;
          } else {
            // The cell ended: a comma or the record's end follows.
            if (b === LF) out[o++] = CR;
            out[o++] = b;
            if (b === LF) {
              ends.push(o);
            }
            at = CELL_START;
          }
          break;
      }
    }
    this.at = at;
    return out.subarray(0, o);
  }
}
