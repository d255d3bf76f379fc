import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { canonicalApiPath } from './versioning.ts';

const rewrite = (url: string) => {
  const req = { url, originalUrl: url } as Request;
  canonicalApiPath(req, {} as Response, () => {});
  return [req.url, req.originalUrl];
};

describe('one API under /api, /api/v1 and /v1', () => {
  it.each([
    ['/api/campaigns?limit=2', '/api/v1/campaigns?limit=2'],
    ['/v1/campaigns', '/api/v1/campaigns'],
    ['/api/v1/campaigns', '/api/v1/campaigns'],
    ['/api/v10/campaigns', '/api/v1/v10/campaigns'],
    ['/api', '/api/v1'],
    ['/docs', '/docs'],
    ['/v1x/campaigns', '/v1x/campaigns'],
    ['/apix', '/apix'],
  ])('%s → %s', (url, canonical) => {
    expect(rewrite(url)).toEqual([canonical, canonical]);
  });
});
