import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { client, waitFor } from '../helpers.ts';
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

describe("the README's first steps and first campaign", () => {
  it('work as written, with curl and jq, against a server started as they start it', async () => {
    const [start, calls] = shellBlocks('First steps');
    const [campaign] = shellBlocks('A first campaign');
    const admin = Object.fromEntries([...start.matchAll(/(ADMIN_\w+)=('[^']*'|\S+)/g)].map(([, name, value]) => [name, value.replace(/^'|'$/g, '')]));
    expect(Object.keys(admin)).toEqual(['ADMIN_EMAIL', 'ADMIN_PASSWORD']);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'sendline-readme-'));
    server = await spawnServer({ ...admin, DATA_DIR: dataDir });
    const script = `${calls}\n${campaign}`.replaceAll('localhost:3000', `localhost:${new URL(server.url).port}`);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script]);
    // curl prints each answer as it came, without a line break between them.
    const answers = JSON.parse(`[${stdout.replace(/}\s*{"/g, '},{"')}]`);
    expect(answers).toHaveLength(7);
    expect(answers.slice(0, 2)).toEqual(
      [0, 1].map(() => expect.objectContaining({ auth: 'api_key', account: expect.objectContaining({ id: expect.stringMatching(/^acc_/) }) })),
    );
    const [, , contact, imported, webhook, sent, analytics] = answers;
    expect(contact).toMatchObject({ email: 'ada@example.com', tags: ['news'] });
    expect(imported).toMatchObject({ status: 'completed', created: 2, failed: 0 });
    expect(webhook.secret).toMatch(/^whsec_/);
    expect(sent).toMatchObject({ status: 'sending', stats: { recipients: 3 } });
    expect(analytics.campaign_id).toBe(sent.id);

    // Where the README says the mail went, with a tracked link that counts when opened.
    const login = await client(server.url)('POST', '/api/auth/login', { body: { email: admin.ADMIN_EMAIL, password: admin.ADMIN_PASSWORD } });
    const api = client(server.url, { authorization: `Bearer ${login.body.token}` });
    await waitFor(async () => (await api('GET', `/api/campaigns/${sent.id}`)).body.status === 'completed');
    const outbox = path.join(dataDir, 'outbox');
    const files = readdirSync(outbox).filter((name) => name.endsWith('.eml'));
    expect(files).toHaveLength(3);
    const mail = await simpleParser(readFileSync(path.join(outbox, files[0])));
    const link = /href="([^"]+\/t\/c\/[^"]+)"/.exec(String(mail.html))![1].replace(/&amp;/g, '&');
    const click = await fetch(server.url + new URL(link).pathname, { redirect: 'manual' });
    expect(click.headers.get('location')).toBe('https://example.com/');
    await waitFor(async () => (await api('GET', `/api/analytics/campaigns/${sent.id}`)).body.clicks.unique === 1);
  });

  it("shows /healthz's answer as this release gives it", async () => {
    const shown = JSON.parse(/`GET \/healthz` answers[^`]*`(\{"status":"ok"[^`]*\})`/.exec(README)![1]);
    expect(await (await fetch(`${server!.url}/healthz`)).json()).toEqual(shown);
  });
});
