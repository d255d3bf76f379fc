import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import YAML from 'yaml';
import type { OpenApiDocument } from './contract.ts';

// The package does not export its browser bundle, so it is found by path.
const scalarBundle = fileURLToPath(new URL('../../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url));

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

/** The contract as JSON and YAML, and an interactive reference rendered from it, served locally. */
export function docsRouter(doc: OpenApiDocument): Router {
  const router = express.Router();
  const json = JSON.stringify(doc);
  const yaml = YAML.stringify(doc);
  router.get('/api/v1/openapi.json', (_req, res) => void res.type('application/json').send(json));
  router.get('/api/v1/openapi.yaml', (_req, res) => void res.type('application/yaml').send(yaml));
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; img-src 'self' data:; font-src 'self' data:; frame-ancestors 'none'");
    res.type('html').send(page);
  });
  router.get('/docs/scalar.js', (_req, res) => res.sendFile(scalarBundle, { maxAge: '1d' }));
  return router;
}
