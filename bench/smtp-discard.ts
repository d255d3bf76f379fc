/**
 * An SMTP server that accepts every message and throws it away: the benchmarks' relay. Given a
 * file (its first argument), it writes there the time (`Date.now()`) its first message arrived,
 * so that a benchmark can time start → first message; SIGUSR2 makes the next message the first
 * again.
 */
import { writeFileSync } from 'node:fs';
import { SMTPServer } from 'smtp-server';

const firstFile = process.argv[2];
let received = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  size: 0,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      if (received++ === 0 && firstFile) writeFileSync(firstFile, String(Date.now()));
      callback();
    });
  },
});
server.on('error', () => {});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.server.address() as { port: number }).port }));
});
process.on('SIGUSR2', () => {
  received = 0;
});
process.on('SIGTERM', () => {
  console.error(JSON.stringify({ received }));
  server.close(() => process.exit(0));
});
