import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { Problem, validationFailed } from '../contract/problem.ts';
import type { ImportOptions } from './service.ts';

const MODES = ['upsert', 'create_only', 'update_only'] as const;

/** `E-mail:email,Vorname:first_name` → `{ "E-mail": "email", "Vorname": "first_name" }`. */
export function parseMapping(text: string | undefined, pointer: string): Record<string, string> {
  if (!text?.trim()) return {};
  const mapping: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const [from, to, ...rest] = pair.split(':').map((s) => s.trim());
    if (!from || !to || rest.length) throw validationFailed([{ pointer, detail: `"${pair}" is not a source:target pair` }]);
    mapping[from] = to;
  }
  return mapping;
}

export const parseTags = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

export function parseMode(text: string | undefined, pointer: string): ImportOptions['mode'] {
  if (text === undefined || text === '') return 'upsert';
  if (!(MODES as readonly string[]).includes(text)) throw validationFailed([{ pointer, detail: `must be one of ${MODES.join(', ')}` }]);
  return text as ImportOptions['mode'];
}

const unreadable = (error: unknown) =>
  error instanceof Problem ? error : new Problem(400, 'invalid_multipart', `The multipart body cannot be read: ${(error as Error).message}`);

/** The options the contract also takes in the query string, as sent. */
export interface ImportQuery {
  mode?: string;
  tags?: string;
  mapping?: string;
  list_ids?: string;
}

/**
 * A multipart upload: the file streams on as it arrives; the other fields may come before or
 * after it, so the options are read once the file has been consumed. An option given as a form
 * field wins over the same option in the query.
 */
export function multipartUpload(
  headers: IncomingHttpHeaders,
  body: Readable,
  maxBytes: number,
  query: ImportQuery,
): Promise<{ file: AsyncIterable<Buffer>; options: () => ImportOptions }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers, limits: { files: 1, fields: 10, fieldSize: 64 * 1024, fileSize: maxBytes } });
    } catch {
      return reject(new Problem(400, 'invalid_multipart', 'The multipart body has no boundary.'));
    }
    const fields: Record<string, string> = {};
    let sawFile = false;
    let ended = false;
    const done = new Promise<void>((resolveDone, rejectDone) => {
      parser.on('close', () => {
        ended = true;
        resolveDone();
      });
      parser.on('error', rejectDone);
    });
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== 'file' || sawFile) {
        stream.resume();
        return;
      }
      sawFile = true;
      stream.on('limit', () => stream.destroy(new Problem(413, 'payload_too_large', `An import may be at most ${maxBytes} bytes.`)));
      resolve({
        file: (async function* () {
          // A part after the file may be malformed: the body is then refused like one malformed before it.
          try {
            for await (const chunk of stream) yield chunk as Buffer;
            // Trailing fields arrive after the file: wait for the whole body.
            if (!ended) await done;
          } catch (error) {
            throw unreadable(error);
          }
        })(),
        options: () => ({
          mode: 'mode' in fields ? parseMode(fields.mode, '/mode') : parseMode(query.mode, 'query.mode'),
          tags: parseTags(fields.tags ?? query.tags),
          mapping: 'mapping' in fields ? parseMapping(fields.mapping, '/mapping') : parseMapping(query.mapping, 'query.mapping'),
          listIds: parseTags(fields.list_ids ?? query.list_ids),
        }),
      });
    });
    done.then(
      () => {
        if (!sawFile) reject(validationFailed([{ pointer: '/file', detail: 'a CSV file is required' }]));
      },
      (error) => reject(unreadable(error)),
    );
    body.pipe(parser);
  });
}
