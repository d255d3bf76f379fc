import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../process.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The shell blocks of a README section, in order. */
function shellBlocks(section: string): string[] {
  const start = README.indexOf(`## ${section}\n`);
  const end = README.indexOf('\n## ', start + 1);
  return [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

let server: ServerProcess | undefined;
afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.exited;
});

describe("the README's first steps", () => {
  it('work as written, with curl and jq, against a server started as they start it', async () => {
    const [start, calls] = shellBlocks('First steps');
    const admin = Object.fromEntries([...start.matchAll(/(ADMIN_\w+)=('[^']*'|\S+)/g)].map(([, name, value]) => [name, value.replace(/^'|'$/g, '')]));
    expect(Object.keys(admin)).toEqual(['ADMIN_EMAIL', 'ADMIN_PASSWORD']);
    server = await spawnServer({ ...admin, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sendline-readme-')) });
    const script = calls.replaceAll('localhost:3000', `localhost:${new URL(server.url).port}`);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script]);
    // curl prints each answer as it came, without a line break between them.
    const answers = JSON.parse(`[${stdout.replace(/}\s*{"/g, '},{"')}]`);
    expect(answers).toHaveLength(2);
    expect(answers).toEqual(
      [0, 1].map(() => expect.objectContaining({ auth: 'api_key', account: expect.objectContaining({ id: expect.stringMatching(/^acc_/) }) })),
    );
  });
});
