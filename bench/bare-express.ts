/** The baseline: a bare Express route answering a fixed JSON body, nothing else. */
import express from 'express';

const [route = '/', json = '{}'] = process.argv.slice(2);
const body = JSON.parse(json);
const app = express();
app.get(route, (_req, res) => void res.json(body));
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
