/** A `numeric` as PostgreSQL sends it (`19.9000`), written without the scale's trailing zeros (`19.9`). */
export function decimalText(value: string): string {
  return value.includes('.') ? value.replace(/\.?0+$/, '') : value;
}
