import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TokenSigner } from './tokens.ts';

describe('tracking tokens', () => {
  const signer = new TokenSigner('a-secret-that-is-long-enough-for-tests-000000');

  it('round-trips each kind', () => {
    for (const token of [
      { kind: 'open', messageId: 'msg_1' },
      { kind: 'unsubscribe', messageId: 'msg_1' },
      { kind: 'click', messageId: 'msg_1', link: 3, url: 'https://shop.example/a?b=c&d=e' },
    ] as const) {
      expect(signer.verify(signer.sign(token))).toEqual(token);
    }
  });

  it('is a standard HMAC-SHA256 over the payload', () => {
    const token = signer.sign({ kind: 'open', messageId: 'msg_x' });
    const [payload, mac] = token.split('.');
    const key = createHmac('sha256', 'a-secret-that-is-long-enough-for-tests-000000').update('sendline tracking tokens v1').digest();
    expect(mac).toBe(createHmac('sha256', key).update(payload).digest().subarray(0, 16).toString('base64url'));
  });

  it('refuses altered, foreign and malformed tokens', () => {
    const token = signer.sign({ kind: 'click', messageId: 'msg_1', link: 0, url: 'https://shop.example/' });
    const [payload, mac] = token.split('.');
    const evil = Buffer.from(JSON.stringify(['c', 'msg_1', '0', 'https://evil.example/'])).toString('base64url');
    expect(signer.verify(`${evil}.${mac}`)).toBeNull();
    expect(signer.verify(`${payload}.${mac.slice(0, -2)}AA`)).toBeNull();
    expect(new TokenSigner('another-secret-that-is-long-enough-0000000').verify(token)).toBeNull();
    for (const junk of ['', '.', 'abc', `${payload}`, `${payload}.${mac}.x`, 'e30.AAAAAAAAAAAAAAAAAAAAAA']) expect(signer.verify(junk)).toBeNull();
  });
});
