/** Cells a spreadsheet would read as a formula (OWASP's CSV injection guidance). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell of a CSV that Sendline writes (RFC 4180): text a spreadsheet would run as a formula
 * gets a leading `'` and quotes, as OWASP advises; text with quotes, commas or line breaks is
 * quoted. Numbers are written as they are.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  if (FORMULA_START.test(value)) return `"'${value.replaceAll('"', '""')}"`;
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A CSV line of cells, ended as RFC 4180 ends them. */
export const csvLine = (cells: (string | number | null)[]): string => cells.map(csvCell).join(',') + '\r\n';
