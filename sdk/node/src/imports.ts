/** CSV imports: `contacts.importCsv(source, …)` uploads a file as multipart (`contactImports.wait(id)` polls it to the end). */
import { localValidationError } from './errors.ts';
import type { components } from './schema.js';
import { RawBody, type RequestOptions, type Transport } from './transport.ts';

export type ContactImport = components['schemas']['ContactImport'];

/** CSV text, its bytes, a `Blob`, or `{ path }`: a file streamed from disk (never read whole into memory). */
export type CsvSource = string | Uint8Array | Blob | { path: string };

export interface ImportCsvParams {
  /** `upsert` (default), `create_only` or `update_only`. */
  mode?: components['schemas']['ImportMode'];
  /** Tags added to every imported contact. */
  tags?: string[];
  /** Column renames, CSV header → contact field: `{ 'E-mail': 'email' }`; `'-'` leaves a column out (`{ Notes: '-' }`). */
  mapping?: Record<string, string>;
  /** Lists (`lst_…`) every imported contact joins as a `subscribed` member. */
  list_ids?: string[];
}

async function file(source: CsvSource): Promise<{ blob: Blob; name: string }> {
  if (typeof source === 'string' || source instanceof Uint8Array) return { blob: new Blob([source as string | Uint8Array<ArrayBuffer>], { type: 'text/csv' }), name: 'contacts.csv' };
  if (source instanceof Blob) return { blob: source, name: 'contacts.csv' };
  const filePath: unknown = source && typeof source === 'object' ? source.path : undefined;
  if (typeof filePath !== 'string' || filePath === '')
    throw localValidationError('validation_failed', 'file', 'the CSV source must be a string, Uint8Array, Blob or { path: string }');
  try {
    // Loaded only for a path, so that the SDK bundles for browsers (which pass a Blob).
    const [{ openAsBlob }, { stat }, { basename }] = await Promise.all([import('node:fs'), import('node:fs/promises'), import('node:path')]);
    // openAsBlob's own error says neither the path nor why: stat first.
    if (!(await stat(filePath)).isFile()) throw new Error('not a file');
    return { blob: await openAsBlob(filePath, { type: 'text/csv' }), name: basename(filePath) };
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    throw localValidationError('validation_failed', 'file', `cannot read the CSV file ${filePath}: ${reason}`, cause);
  }
}

export async function importCsv(transport: Transport, source: CsvSource, params: ImportCsvParams = {}, options?: RequestOptions): Promise<ContactImport> {
  const { blob, name } = await file(source);
  const form = new FormData();
  // The options before the file: the server reads them as the upload streams in.
  if (params.mode) form.append('mode', params.mode);
  if (params.tags?.length) form.append('tags', params.tags.join(','));
  const mapping = Object.entries(params.mapping ?? {});
  if (mapping.length) form.append('mapping', mapping.map(([from, to]) => `${from}:${to}`).join(','));
  if (params.list_ids?.length) form.append('list_ids', params.list_ids.join(','));
  form.append('file', blob, name);
  const answer = await transport.send('ContactImports_create', { body: new RawBody(form) }, options);
  return answer.data;
}
