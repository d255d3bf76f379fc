/**
 * Runs the reference's Node.js samples (a JSON list of {id, source}), each as an ES module of its
 * own in this one process, importing `@sendline/sdk` from sdk/node/src; prints one JSON line per
 * sample: id, ok, output, error. Run by test/docs/samples.test.ts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const sdk = pathToFileURL(path.join(import.meta.dirname, '../../../sdk/node/src/index.ts')).href;
const samples = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { id: string; source: string }[];
const dir = mkdtempSync(path.join(tmpdir(), 'sendline-node-samples-'));
const log = console.log;

for (const sample of samples) {
  const file = path.join(dir, `${sample.id}.mjs`);
  writeFileSync(file, sample.source.replaceAll("'@sendline/sdk'", `'${sdk}'`));
  let output = '';
  console.log = (...args: unknown[]) => void (output += `${args.map(String).join(' ')}\n`);
  let result: { id: string; ok: boolean; error?: string };
  const started = performance.now();
  try {
    await import(pathToFileURL(file).href);
    result = { id: sample.id, ok: true };
  } catch (error) {
    result = { id: sample.id, ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  } finally {
    console.log = log;
  }
  process.stdout.write(`${JSON.stringify({ ...result, output, ms: Math.round(performance.now() - started) })}\n`);
}
