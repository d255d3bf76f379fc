import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { randomToken } from '../db/ids.ts';
import type { Logger } from '../logger.ts';

/**
 * The development default: with no SMTP_URL, mail goes to this local SMTP server, which keeps
 * each message as an .eml file under DATA_DIR/outbox and delivers nothing.
 */
export async function startCaptureServer(dataDir: string, log: Logger): Promise<{ url: string; stop: () => Promise<void> }> {
  const outbox = path.join(dataDir, 'outbox');
  mkdirSync(outbox, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const file = path.join(outbox, `${Date.now()}-${randomToken(8)}.eml`);
        writeFile(file, Buffer.concat(chunks)).then(() => callback(), callback);
      });
    },
  });
  // A client dropping its connection must not take the process down.
  server.on('error', (err) => log.debug({ err }, 'capture SMTP connection failed'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  log.warn({ outbox }, 'SMTP_URL is not set: mail is CAPTURED as .eml files in the outbox, not delivered');
  return { url: `smtp://127.0.0.1:${port}`, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
