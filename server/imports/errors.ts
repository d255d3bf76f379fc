/** The file itself cannot be read on: the import fails with this code at this row. */
export class ImportFileError extends Error {
  readonly code: string;
  readonly row: number | null;

  constructor(code: string, detail: string, row: number | null) {
    super(detail);
    this.code = code;
    this.row = row;
  }
}

export interface RowError {
  row: number;
  email: string | null;
  code: string;
  detail: string;
}
