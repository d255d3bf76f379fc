/**
 * The reference at /docs: its guides and topic pages come with the document it renders (the
 * errors guide with the whole catalogue of the contract), and its viewer is configured to offer
 * nothing of Scalar's own services.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../server/contract/document.ts';
import { docsRouter, SCALAR_CONFIGURATION } from '../../server/docs/routes.ts';
import { problemCatalogue } from '../../server/contract/problem-codes.ts';
import { GUIDE_FILES, SDK_INSTALLATION, TOPIC_FILES } from '../../server/docs/guides.ts';
import { Webhook } from '../../sdk/node/src/index.ts';

const doc = loadContract();
let server: ReturnType<ReturnType<typeof express>['listen']>;
let base = '';

beforeAll(async () => {
  server = express().use(docsRouter(doc, 'http://localhost')).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe('the reference', () => {
  it('holds the guides after the contract’s own description', async () => {
    const served = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { info: { description: string; 'x-scalar-sdk-installation': unknown } };
    expect(served.info['x-scalar-sdk-installation']).toEqual(SDK_INSTALLATION);
    const description = served.info.description;
    expect(description.startsWith(String((doc.info as { description: string }).description).trim())).toBe(true);
    expect(GUIDE_FILES).toHaveLength(7);
    for (const heading of [
      '# Quick start',
      '# Authentication and API keys',
      '# Pagination',
      '# Errors',
      '# Webhooks and signatures',
      '# Rate limits',
      '# Idempotency',
    ]) {
      expect(description).toContain(`\n${heading}\n`);
    }
    for (const language of ['## Python', '## Node.js', '## PHP', '## Ruby', '## curl']) expect(description).toContain(`\n${language}\n`);
    for (const { code, status } of problemCatalogue(doc)) expect(description).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} `));
    expect(description).not.toContain('<!-- catalogue -->');
    expect(description).toContain('[Dashboard](/app)');
    // The YAML form is the same document.
    expect(await (await fetch(`${base}/api/v1/openapi.yaml`)).text()).toContain('# Idempotency');
  });

  it('holds every page of docs/ after the guides, each under a title of its own', async () => {
    const markdown = (folder: string) => readdirSync(new URL(`../../${folder}`, import.meta.url)).filter((file) => file.endsWith('.md'));
    expect([...GUIDE_FILES].sort()).toEqual(markdown('docs/guides/').sort());
    expect([...TOPIC_FILES].sort()).toEqual(markdown('docs/').sort());
    const description = ((await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { info: { description: string } }).info.description;
    const read = (file: string) => readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8');
    for (const file of TOPIC_FILES) expect(description).toContain(read(file).trim());
    const titles = [...GUIDE_FILES.map((file) => `guides/${file}`), ...TOPIC_FILES].map((file) => /^# (.+)\n/.exec(read(file))![1]);
    expect(new Set(titles).size).toBe(titles.length);
    // The guides first, in their order, then the topics in theirs.
    const positions = titles.map((title) => description.indexOf(`\n# ${title}\n`));
    expect(positions.every((position, i) => position > (positions[i - 1] ?? 0))).toBe(true);
  });

  it('configures the viewer without Ask AI, MCP, developer tools, downloads or generated clients', async () => {
    // Scalar's bundle reads these options (a renamed option would silently turn a service back on).
    const bundle = readFileSync(fileURLToPath(new URL('../../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url)), 'utf8');
    for (const option of ['hideClientButton', 'hideTestRequestButton', 'documentDownloadType', 'showDeveloperTools', 'hiddenClients', 'withDefaultFonts']) {
      expect(bundle, option).toContain(`${option}:`);
    }
    expect(bundle).toContain('agent?.disabled');
    expect(bundle).toContain('mcp?.disabled');
    const page = await (await fetch(`${base}/docs`)).text();
    const configuration = JSON.parse(/data-configuration='([^']*)'/.exec(page)![1]) as Record<string, unknown>;
    expect(configuration).toEqual(SCALAR_CONFIGURATION);
    expect(configuration).toMatchObject({
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
      documentDownloadType: 'none',
      hideClientButton: true,
      hideTestRequestButton: true,
      hiddenClients: true,
      withDefaultFonts: false,
    });
  });

  it('names every tag of the sidebar in words, keeping the tags the SDKs name their classes by', async () => {
    const served = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { tags: { name: string; 'x-displayName'?: string }[] };
    // Scalar titles a tag by its `x-displayName`, else its name.
    const titles = Object.fromEntries(served.tags.map((tag) => [tag.name, tag['x-displayName'] ?? tag.name]));
    expect(titles).toMatchObject({ ApiKeys: 'API keys', ContactImports: 'Contact imports', ContactLists: 'Contact lists', Campaigns: 'Campaigns' });
    for (const title of Object.values(titles)) expect(title).not.toMatch(/[a-z][A-Z]/);
  });

  it('verifies signatures, without an SDK, as the webhooks guide shows', async () => {
    const guide = readFileSync(new URL('../../docs/guides/webhooks.md', import.meta.url), 'utf8');
    const code = /```js\n([\s\S]*?)```/.exec(guide)![1];
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'sendline-guide-')), 'verify.mjs');
    writeFileSync(file, `${code}\nexport { verify };\n`);
    const { verify } = (await import(pathToFileURL(file).href)) as { verify: (secret: string, headers: Record<string, string>, body: string) => boolean };
    const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
    const body = '{"id":"evt_1","type":"webhook.test"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const signed = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': new Webhook(secret).sign('evt_1', timestamp, body) };
    expect(verify(secret, signed, body)).toBe(true);
    // After a rotation: two signatures, either one enough.
    expect(verify(secret, { ...signed, 'webhook-signature': `v1,AAAA ${signed['webhook-signature']}` }, body)).toBe(true);
    expect(verify(secret, signed, body.replace('test', 'tost'))).toBe(false);
    expect(verify(secret, { ...signed, 'webhook-timestamp': String(timestamp - 600) }, body)).toBe(false);
  });
});
