/**
 * Every operation of the contract has its five code samples (curl, Python, Node.js, PHP, Ruby)
 * in docs/samples.yaml, and the reference's document carries them as `x-codeSamples`. A new
 * operation without samples fails here; test/docs/samples.test.ts runs them.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { docsRouter } from '../../server/docs/routes.ts';
import { listOperations, loadContract } from '../../server/contract/document.ts';
import { LANGUAGES, loadSampleSpecs, renderSamples, type CodeSample } from '../../server/docs/samples.ts';

const doc = loadContract();
const operations = listOperations(doc);
const specs = loadSampleSpecs();
const samples = renderSamples(doc, specs);

describe('code samples', () => {
  it('every operation has a sample in each of the five languages', () => {
    const missing = operations.flatMap(({ operationId }) => {
      const found = samples.get(operationId) ?? [];
      return LANGUAGES.filter(({ label }) => !found.some((s) => s.label === label && s.source.trim())).map(({ label }) => `${operationId}: ${label}`);
    });
    expect(missing, 'add them to docs/samples.yaml').toEqual([]);
  });

  it('names no operation the contract lacks, and gives every path parameter', () => {
    const ids = new Set(operations.map((o) => o.operationId));
    expect(Object.keys(specs).filter((id) => !ids.has(id))).toEqual([]);
    for (const { operationId, path } of operations) {
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(Object.keys(specs[operationId]?.path ?? {}).sort(), operationId).toEqual(params);
    }
  });

  it('calls each operation through its SDK method', () => {
    for (const { operationId } of operations) {
      const [resource, method] = operationId.split('_');
      const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^_/, '');
      const lower = resource[0].toLowerCase() + resource.slice(1);
      const by = new Map((samples.get(operationId) ?? []).map((s) => [s.label, s.source]));
      if (operationId === 'Auth_login') continue; // the SDKs log in with Sendline.login
      expect(by.get('Python'), operationId).toContain(`client.${snake(resource)}.${snake(method)}(`);
      expect(by.get('Node.js'), operationId).toContain(`sendline.${lower}.${method}(`);
      expect(by.get('PHP'), operationId).toContain(`$client->${lower}->${method}(`);
      expect(by.get('Ruby'), operationId).toContain(`client.${snake(resource)}.${snake(method)}`);
      expect(by.get('curl'), operationId).toMatch(/^curl /);
    }
  });

  it('are in the document the reference at /docs reads', async () => {
    const server = express().use(docsRouter(doc, 'http://localhost')).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      const served = (await (await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`)).json()) as typeof doc;
      for (const { operationId, path, method } of operations) {
        const found = (served.paths[path]?.[method] as { 'x-codeSamples'?: CodeSample[] } | undefined)?.['x-codeSamples'];
        expect(
          found?.map((s) => s.label),
          operationId,
        ).toEqual(LANGUAGES.map((l) => l.label));
        expect(found?.[0]).toEqual({ lang: 'shell', label: 'curl', source: expect.stringContaining('curl') });
      }
    } finally {
      server.close();
    }
  });
});
