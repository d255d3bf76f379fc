import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { legacyKey, type SecretKey } from '../secrets/key-ring.ts';
import { newWebhookSecret, signatureHeader, webhookSecretBox } from './signing.ts';

describe('webhook signatures', () => {
  const body = JSON.stringify({ id: 'evt_1', type: 'contact.created', data: { email: 'ü@example.com' } });
  const id = 'evt_1';
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = (signature: string) => ({ 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature });

  it('are what the Standard Webhooks reference library signs', () => {
    const secret = newWebhookSecret();
    expect(signatureHeader([secret], id, timestamp, body)).toBe(new Webhook(secret).sign(id, new Date(timestamp * 1000), body));
  });

  it('verify with the reference library under either secret during a rotation, and not otherwise', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const signature = signatureHeader([current, previous], id, timestamp, body);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers(signature))).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers(signature))).toThrow();
    expect(() => new Webhook(current).verify(body.replace('ü', 'u'), headers(signature))).toThrow();
  });
});

describe('sealed webhook secrets', () => {
  const JWT_SECRET = 'a-secret-that-is-long-enough-for-tests-000000';
  const key = (id: string): SecretKey => ({ id, key: randomBytes(32).toString('base64') });
  /** A value sealed as releases before key rings sealed it: AES-256-GCM under SHA-256 of the JWT secret, no id. */
  const sealedBeforeKeyRings = (secret: string) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(`sendline webhook secrets v1\0${JWT_SECRET}`).digest(), iv);
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
  };

  it('open what releases before key rings sealed, and what every key of the ring sealed, and seal under the first', () => {
    const [k1, k2] = [key('k1'), key('k2')];
    const secret = newWebhookSecret();
    const before = webhookSecretBox([k1]).seal(secret);
    expect(before.split('.')[0]).toBe('k1');
    const rotated = webhookSecretBox([k2, k1, legacyKey(JWT_SECRET)]);
    expect(rotated.open(before)).toBe(secret);
    expect(rotated.open(sealedBeforeKeyRings(secret))).toBe(secret);
    expect(rotated.seal(secret).split('.')[0]).toBe('k2');
    expect(
      webhookSecretBox([legacyKey(JWT_SECRET)])
        .seal(secret)
        .split('.'),
    ).toHaveLength(3);
  });

  it('refuse a value whose key left the ring, or whose key id was changed', () => {
    const [k1, k2] = [key('k1'), key('k2')];
    const sealed = webhookSecretBox([k1]).seal(newWebhookSecret());
    expect(() => webhookSecretBox([k2]).open(sealed)).toThrow(/key "k1", which SECRET_KEYS no longer holds/);
    expect(() => webhookSecretBox([{ id: 'k2', key: k1.key }, k1]).open(sealed.replace(/^k1\./, 'k2.'))).toThrow();
  });
});
