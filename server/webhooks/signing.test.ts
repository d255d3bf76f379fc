import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signatureHeader } from './signing.ts';

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
