import pino from 'pino';
import { traceFields } from './tracing/spans.ts';

/** Paths that may carry secrets; pino replaces them before a line is written. */
const redact = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.token', '*.refresh_token', '*.key', '*.secret'];

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  // A line written inside a traced request or job carries its trace's id.
  return pino({ level, redact: { paths: redact, censor: '[redacted]' }, mixin: traceFields });
}
