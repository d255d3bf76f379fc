import { fileURLToPath } from 'node:url';
import express, { type Request, type Router } from 'express';
import YAML from 'yaml';
import type { OpenApiDocument } from './contract.ts';
import { titleOf } from './problem.ts';
import { problemCatalogue } from './problem-codes.ts';
import { escapeHtml } from './html.ts';

// The package does not export its browser bundle, so it is found by path.
const scalarBundle = fileURLToPath(new URL('../../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url));

const CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; img-src 'self' data:; font-src 'self' data:; frame-ancestors 'none'";

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sendline API reference</title>
</head>
<body>
  <script id="api-reference" data-url="/api/openapi.json"
    data-configuration='{"withDefaultFonts": false, "hideClientButton": true}'></script>
  <script src="/docs/scalar.js"></script>
</body>
</html>`;

/** `code` spans of the catalogue's texts, escaped. */
const inlineCode = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/** One section per problem code, anchored by the code: a problem's `type` is `/docs/errors#<code>`. */
function errorCatalogue(doc: OpenApiDocument): string {
  const sections = problemCatalogue(doc)
    .sort((x, y) => x.status - y.status || x.code.localeCompare(y.code))
    .map(
      ({ code, status, meaning }) => `<section id="${code}">
  <h2><code>${code}</code></h2>
  <p>${status} ${escapeHtml(titleOf(status))}</p>
  <p>${inlineCode(meaning)}</p>
</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sendline API errors</title>
  <style>body { font-family: system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; } section { border-top: 1px solid #ddd; } h2 { font-size: 1.1rem; }</style>
</head>
<body>
<h1>Sendline API errors</h1>
<p>Every error is an RFC 9457 problem document (<code>application/problem+json</code>) whose <code>code</code> is one of these; its <code>type</code> links here.</p>
${sections}
</body>
</html>`;
}

/** What a client may take for the server's own address, or null. */
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The contract says where the API is: at the address the request came to (so `/docs` works on
 * any port and behind a proxy with `TRUST_PROXY`), or at `PUBLIC_URL` for a Host header that is
 * no address.
 */
function serversFor(req: Request, publicUrl: string) {
  const host = req.get('host');
  const origin = host && HOST.test(host) ? `${req.protocol}://${host}` : publicUrl.replace(/\/$/, '');
  return [{ url: `${origin}/api/v1` }];
}

/** The contract as JSON and YAML, an interactive reference rendered from it and the error catalogue, served locally. */
export function docsRouter(doc: OpenApiDocument, publicUrl: string): Router {
  const router = express.Router();
  const errors = errorCatalogue(doc);
  // Serialised once, with a stand-in where each request's servers go.
  const STAND_IN = '@servers@';
  const json = JSON.stringify({ ...doc, servers: STAND_IN });
  const yaml = YAML.stringify({ ...doc, servers: STAND_IN });
  router.get('/api/v1/openapi.json', (req, res) => {
    res.type('application/json').send(json.replace(JSON.stringify(STAND_IN), () => JSON.stringify(serversFor(req, publicUrl))));
  });
  router.get('/api/v1/openapi.yaml', (req, res) => {
    res.type('application/yaml').send(yaml.replace(`servers: "${STAND_IN}"\n`, () => `servers:\n${YAML.stringify(serversFor(req, publicUrl))}`));
  });
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.type('html').send(page);
  });
  router.get('/docs/errors', (_req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.type('html').send(errors);
  });
  router.get('/docs/scalar.js', (_req, res) => res.sendFile(scalarBundle, { maxAge: '1d' }));
  return router;
}
