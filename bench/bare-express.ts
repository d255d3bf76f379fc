/** The baseline: a bare Express route answering a fixed JSON body, nothing else. */
import express from 'express';

const body = JSON.parse(process.argv[2] ?? '{}');
const app = express();
app.get('/api/auth/me', (_req, res) => void res.json(body));
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
