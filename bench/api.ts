/**
 * The cost of the API stack: an authenticated call (API key lookup, shared rate-limit counter,
 * contract validation) against a bare Express route answering the same JSON, in the same run.
 */
import { newAccount, newApiKey } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { load, type LoadResult, peakRssMb, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PATH = '/api/campaigns';

export async function apiBenchmark(): Promise<void> {
  const server = await spawnServer({ DATA_DIR: scratchDir('api'), ALLOW_SIGNUP: 'true', ...serverTuning() }, { keepOutput: false });
  try {
    const owner = await newAccount(server.url, 'bench');
    const { key, api } = await newApiKey(owner, server.url, { rate_limit_per_minute: 100_000 });
    for (let i = 1; i <= 3; i++) {
      await api('POST', '/api/campaigns', { body: { name: `Campaign ${i}`, subject: 'Hello {{ first_name }}', from_email: 'news@shop.example', content: '<p>Hi</p>' } });
    }
    const body = (await api('GET', PATH)).body;
    const bare = await spawnListening(['bench/bare-express.ts', PATH, JSON.stringify(body)]);
    const headers = { 'x-api-key': key.key };
    let baseline: LoadResult;
    let sendline: LoadResult;
    try {
      await load(`http://127.0.0.1:${bare.port}${PATH}`, {}, 2);
      baseline = await load(`http://127.0.0.1:${bare.port}${PATH}`, {}, SECONDS);
    } finally {
      bare.stop();
    }
    await load(server.url + PATH, headers, 2);
    sendline = await load(server.url + PATH, headers, SECONDS);
    const rss = peakRssMb(server.proc.pid!);
    if (sendline.non2xx || sendline.errors) throw new Error(`Sendline answered ${sendline.non2xx} non-2xx and ${sendline.errors} errors`);
    const ratio = (sendline.requestsPerSecond / baseline.requestsPerSecond).toFixed(2);
    const table = [
      `Run: ${runContext()}; ${SECONDS} s per target after a 2 s warm-up, 32 connections, autocannon in the harness process.`,
      '',
      '| target | requests/s | p50 ms | p99 ms |',
      '|---|---|---|---|',
      `| bare Express, same JSON | ${baseline.requestsPerSecond} | ${baseline.p50} | ${baseline.p99} |`,
      `| Sendline \`GET ${PATH}\` (API key, rate limit, validator, 3 campaigns) | ${sendline.requestsPerSecond} | ${sendline.p50} | ${sendline.p99} |`,
      '',
      `Ratio Sendline / bare: **${ratio}**. Sendline peak RSS: ${rss} MB.`,
    ].join('\n');
    recordSection('api', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
  }
}
