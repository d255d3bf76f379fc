import { createHmac, randomBytes } from 'node:crypto';
import type { SecretKey } from '../secrets/key-ring.ts';
import { SecretBox } from '../secrets/secret-box.ts';

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` per
 * secret, space-separated (two during a rotation).
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

/** The box webhook secrets are sealed in. */
export const webhookSecretBox = (ring: readonly SecretKey[]): SecretBox =>
  new SecretBox(ring, { what: 'a webhook secret', label: 'sendline webhook secrets v2', legacyLabel: 'sendline webhook secrets v1' });
