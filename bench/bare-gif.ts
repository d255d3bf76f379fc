/** The baseline for the tracking benchmark: a bare node:http server answering the same 1×1 GIF. */
import { createServer } from 'node:http';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'image/gif', 'Content-Length': PIXEL.length, 'Cache-Control': 'no-store, max-age=0', Pragma: 'no-cache' });
  res.end(PIXEL);
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
