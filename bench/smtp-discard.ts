/** An SMTP server that accepts every message and throws it away: the benchmarks' relay. */
import { SMTPServer } from 'smtp-server';

let received = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  size: 0,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      received++;
      callback();
    });
  },
});
server.on('error', () => {});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => {
  console.error(JSON.stringify({ received }));
  server.close(() => process.exit(0));
});
