import { SMTPServer } from 'smtp-server';
import type { Logger } from '../logger.ts';
import type { VerpTokens } from '../tracked-links/verp.ts';
import type { FeedbackService } from './feedback.ts';
import { parseReport } from './reports.ts';

/** Reports are small; returned originals beyond this are not needed to match the message. */
const MAX_REPORT_BYTES = 2 * 1024 * 1024;
/** Connections at once; bounces arrive a few at a time even from large campaigns. */
const MAX_CLIENTS = 100;

/**
 * The inbound SMTP listener for bounces (DSNs to the VERP return path) and complaint feedback
 * loops (ARF). Point the MX of the bounce domain, or the relay's bounce forwarding, at it.
 * Anything that is not a report about one of our messages is accepted and dropped, so the
 * listener tells a prober nothing.
 */
export async function startBounceServer(
  port: number,
  host: string,
  feedback: FeedbackService,
  verp: VerpTokens,
  log: Logger,
): Promise<{ port: number; stop: () => Promise<void> }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAX_REPORT_BYTES,
    maxClients: MAX_CLIENTS,
    logger: false,
    onData(stream, session, callback) {
      // The listener faces the internet: past the limit, data is read and dropped, not kept.
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MAX_REPORT_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(Object.assign(new Error('Report too large'), { responseCode: 552 }));
          return;
        }
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        handle(Buffer.concat(chunks).toString('utf8'), recipients).then(
          () => callback(),
          (err) => {
            log.error({ err }, 'recording a bounce report failed');
            callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          },
        );
      });
    },
  });
  server.on('error', (err) => log.debug({ err }, 'bounce SMTP connection failed'));

  async function handle(raw: string, recipients: string[]): Promise<void> {
    const report = parseReport(raw, recipients);
    // A signed VERP address names the message whatever the report returns of it; a forged or
    // unknown one names nothing (the report's own headers may still).
    const messageId = recipients.map((r) => verp.messageOf(r)).find(Boolean) ?? report?.messageId;
    if (!report || !messageId) {
      log.info({ recipients, kind: report?.type ?? 'not a report' }, 'inbound mail matched no message; dropped');
      return;
    }
    const record = await feedback.recordBounce({
      messageId,
      type: report.type,
      reason: report.reason,
      diagnosticCode: report.diagnosticCode,
      feedbackType: report.feedbackType,
      occurredAt: new Date(),
      source: report.type === 'complaint' ? 'arf' : 'dsn',
    });
    log.info({ message: messageId, type: report.type, recorded: Boolean(record) }, 'bounce report received');
  }

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: actual } = server.server.address() as { port: number };
  log.info({ port: actual }, 'bounce SMTP listener ready');
  return { port: actual, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
