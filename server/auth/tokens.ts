import { createHash, timingSafeEqual } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { randomToken } from '../db/ids.ts';

const ISSUER = 'sendline';
const AUDIENCE = 'sendline-api';
export const ACCESS_TOKEN_SECONDS = 15 * 60;
export const SESSION_DAYS = 30;

export interface AccessClaims {
  sub: string;
  sid: string;
  acc: string;
}

export function signAccessToken(secret: string, claims: AccessClaims): string {
  return jwt.sign({ sid: claims.sid, acc: claims.acc }, secret, {
    algorithm: 'HS256',
    issuer: ISSUER,
    audience: AUDIENCE,
    subject: claims.sub,
    expiresIn: ACCESS_TOKEN_SECONDS,
  });
}

/** The claims of a valid token, or null (bad signature, other algorithm, wrong iss/aud, expired). */
export function verifyAccessToken(secret: string, token: string): AccessClaims | null {
  try {
    const payload = jwt.verify(token, secret, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
    if (typeof payload === 'string' || typeof payload.sub !== 'string') return null;
    if (typeof payload.sid !== 'string' || typeof payload.acc !== 'string') return null;
    return { sub: payload.sub, sid: payload.sid, acc: payload.acc };
  } catch {
    return null;
  }
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A refresh token names its session and carries a secret stored only as a hash. */
export function newRefreshSecret(): string {
  return randomToken(43);
}

export function formatRefreshToken(sessionId: string, secret: string): string {
  return `${sessionId}.${secret}`;
}

export function parseRefreshToken(token: string): { sessionId: string; secret: string } | null {
  const match = /^(ses_[0-9A-Za-z]+)\.([0-9A-Za-z]+)$/.exec(token);
  return match ? { sessionId: match[1], secret: match[2] } : null;
}

/** JWTs and API keys share the Bearer header; API keys are told apart by their prefix. */
export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith('sl_');
}
