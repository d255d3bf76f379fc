import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type Router } from 'express';

/** Where `npm run build:dashboard` (run by `npm install` and, when missing, by `npm start`) writes the dashboard. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

/**
 * Only this origin: no inline script or `<style>`, no other host, never framed. Style
 * attributes are allowed: a campaign's preview (a sandboxed frame without scripts, which takes
 * this policy) is email HTML, styled by them.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};
/** Asset names carry a hash of their content: a new build gets new names, so they never change. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page names the current assets: a browser asks again each time (cheap with the ETag). */
const REVALIDATE = 'no-cache';

interface Asset {
  type: string;
  etag: string;
  identity: Buffer;
  /** Compressed at build time (`.br`, `.gz` beside the file). */
  br?: Buffer;
  gzip?: Buffer;
}

const contentOf = (identity: Buffer) => ({ identity, etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"` });

function loadAssets(dist: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const dir = path.join(dist, 'assets');
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const file = path.join(dir, name);
    const read = (suffix: string) => (existsSync(file + suffix) ? readFileSync(file + suffix) : undefined);
    assets.set(name, { type, ...contentOf(readFileSync(file)), br: read('.br'), gzip: read('.gz') });
  }
  return assets;
}

function send(req: Request, res: Response, asset: Asset, cacheControl: string): void {
  res.setHeader('Content-Type', asset.type);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('ETag', asset.etag);
  if (req.headers['if-none-match'] === asset.etag) return void res.status(304).end();
  const encoding = asset.br || asset.gzip ? req.acceptsEncodings('br', 'gzip', 'identity') : 'identity';
  const body = encoding === 'br' && asset.br ? asset.br : encoding === 'gzip' && asset.gzip ? asset.gzip : asset.identity;
  if (body !== asset.identity) res.setHeader('Content-Encoding', encoding as string);
  res.setHeader('Content-Length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sendline</title></head>
<body><h1>The dashboard is not built</h1><p>Run <code>npm run build:dashboard</code> (it needs the development dependencies), then reload.</p></body></html>`;

/**
 * The dashboard: a single-page app at `/app` (its routes all answer the page), its hashed assets
 * at `/app/assets/…`, and `/` sending browsers there. Files are read once, at the first request
 * after a build, and served from memory with their precompressed forms.
 */
export function dashboardRouter(dist = DASHBOARD_DIST): Router {
  const router = express.Router();
  let loaded: { page: Asset; assets: Map<string, Asset> } | null = null;
  const load = () => {
    const index = path.join(dist, 'index.html');
    if (!loaded && existsSync(index)) {
      loaded = { page: { type: 'text/html; charset=utf-8', ...contentOf(readFileSync(index)) }, assets: loadAssets(dist) };
    }
    return loaded;
  };

  router.get('/', (_req, res) => res.redirect(302, '/app/'));
  router.use('/app', (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // Relative asset URLs and the page's routes hang below `/app/`.
    if (!req.originalUrl.startsWith('/app/')) return res.redirect(301, '/app/');
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('Referrer-Policy', 'same-origin');
    const app = load();
    if (req.path.startsWith('/assets/')) {
      const asset = app?.assets.get(req.path.slice('/assets/'.length));
      if (!asset) return next();
      return send(req, res, asset, IMMUTABLE);
    }
    if (!app) return void res.status(503).setHeader('Cache-Control', 'no-store').type('html').send(NOT_BUILT);
    send(req, res, app.page, REVALIDATE);
  });
  return router;
}
