import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import type { Request } from 'express';

/** The SHA-256 of an empty body. */
export const EMPTY_BODY = createHash('sha256').digest();

const lengthPrefixed = (text: string) => `${Buffer.byteLength(text)}:${text}`;

/**
 * What makes two requests with one key the same request, besides method and path: the query,
 * the media type (not its parameters: a multipart boundary differs on every retry) and the body.
 */
export function fingerprint(req: Request, bodyHash: Buffer): Buffer {
  const q = req.originalUrl.indexOf('?');
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return createHash('sha256')
    .update(lengthPrefixed(q < 0 ? '' : req.originalUrl.slice(q + 1)))
    .update(lengthPrefixed(mediaType))
    .update(bodyHash)
    .digest();
}

/** A hash fed chunk by chunk: the raw bytes, or a multipart body's parts. */
interface BodySink {
  write(chunk: Buffer): void;
  end(): void;
}

function rawSink(done: (hash: Buffer | null) => void): BodySink {
  const hash = createHash('sha256');
  return { write: (chunk) => void hash.update(chunk), end: () => done(hash.digest()) };
}

/**
 * A multipart body hashed by its parts in order (names, filenames, values and file bytes), so
 * the same form sent again with another boundary is the same request.
 */
function multipartSink(req: IncomingMessage, done: (hash: Buffer | null) => void): BodySink {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { fieldSize: 64 * 1024 } });
  } catch {
    // No boundary: the handler refuses it; the raw bytes stand for it meanwhile.
    return rawSink(done);
  }
  const hash = createHash('sha256');
  // A part without a name is malformed, and busboy hands it over with `name` undefined.
  parser.on('field', (name?: string, value?: string, info?: busboy.FieldInfo) =>
    hash.update(`field ${lengthPrefixed(name ?? '')} ${info?.valueTruncated} ${lengthPrefixed(value ?? '')}`),
  );
  parser.on('file', (name: string | undefined, stream, info) => {
    hash.update(`file ${lengthPrefixed(name ?? '')} ${lengthPrefixed(info.filename ?? '')} `);
    stream.on('data', (chunk: Buffer) => hash.update(chunk));
    stream.on('end', () => hash.update(' '));
  });
  parser.on('close', () => done(hash.digest()));
  parser.on('error', () => done(null));
  return { write: (chunk) => void parser.write(chunk), end: () => void parser.end() };
}

/**
 * Hashes a streamed body as it is read, whoever reads it. Resolves to the body's hash once it has
 * all been read, or null if it never is (an aborted upload) or passes `maxBytes`.
 */
export function watchBody(req: Request, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (hash: Buffer | null) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(hash);
    };
    const sink = req.is('multipart/form-data') ? multipartSink(req, done) : rawSink(done);
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) done(null);
      else sink.write(chunk);
    };
    req.on('data', onData);
    req.once('end', () => sink.end());
    req.once('error', () => done(null));
    req.once('close', () => {
      if (!req.readableEnded) done(null);
    });
  });
}
