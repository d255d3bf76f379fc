import pino from 'pino';

/** Paths that may carry secrets; pino replaces them before a line is written. */
const redact = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.token', '*.refresh_token', '*.key', '*.secret'];

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: redact, censor: '[redacted]' } });
}
