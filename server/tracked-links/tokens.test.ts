import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { legacyKey, type SecretKey } from '../secrets/key-ring.ts';
import { TokenSigner } from './tokens.ts';

const JWT_SECRET = 'a-secret-that-is-long-enough-for-tests-000000';
const key = (id: string): SecretKey => ({ id, key: randomBytes(32).toString('base64') });

describe('tracking tokens', () => {
  const k1 = key('k1');
  const signer = new TokenSigner([k1]);

  it('round-trips each kind', () => {
    for (const token of [
      { kind: 'open', messageId: 'msg_1' },
      { kind: 'unsubscribe', messageId: 'msg_1' },
      { kind: 'click', messageId: 'msg_1', link: 3, url: 'https://shop.example/a?b=c&d=e' },
    ] as const) {
      expect(signer.verify(signer.sign(token))).toEqual(token);
    }
  });

  it('is a standard HMAC-SHA256 over the key id and payload, under an HKDF-SHA256 key of its own', () => {
    const token = signer.sign({ kind: 'open', messageId: 'msg_x' });
    const [id, payload, mac] = token.split('.');
    expect(id).toBe('k1');
    const derived = Buffer.from(hkdfSync('sha256', Buffer.from(k1.key, 'base64'), Buffer.alloc(0), 'sendline tracking tokens v2', 32));
    expect(mac).toBe(createHmac('sha256', derived).update(`k1.${payload}`).digest().subarray(0, 16).toString('base64url'));
  });

  it('signs under the legacy key as releases before key rings did, with no id', () => {
    const token = new TokenSigner([legacyKey(JWT_SECRET)]).sign({ kind: 'open', messageId: 'msg_x' });
    const [payload, mac, ...rest] = token.split('.');
    expect(rest).toEqual([]);
    const old = createHmac('sha256', JWT_SECRET).update('sendline tracking tokens v1').digest();
    expect(mac).toBe(createHmac('sha256', old).update(payload).digest().subarray(0, 16).toString('base64url'));
  });

  it('verifies tokens of every key in the ring after a rotation, and signs with the first', () => {
    const legacy = new TokenSigner([legacyKey(JWT_SECRET)]).sign({ kind: 'unsubscribe', messageId: 'msg_1' });
    const before = signer.sign({ kind: 'unsubscribe', messageId: 'msg_1' });
    const rotated = new TokenSigner([key('k2'), k1, legacyKey(JWT_SECRET)]);
    expect(rotated.verify(legacy)).toEqual({ kind: 'unsubscribe', messageId: 'msg_1' });
    expect(rotated.verify(before)).toEqual({ kind: 'unsubscribe', messageId: 'msg_1' });
    expect(rotated.sign({ kind: 'open', messageId: 'msg_1' }).split('.')[0]).toBe('k2');
    // A key removed from the ring verifies nothing any more.
    expect(new TokenSigner([key('k2')]).verify(before)).toBeNull();
    expect(new TokenSigner([key('k2')]).verify(legacy)).toBeNull();
  });

  it('refuses altered, foreign and malformed tokens', () => {
    const token = signer.sign({ kind: 'click', messageId: 'msg_1', link: 0, url: 'https://shop.example/' });
    const [id, payload, mac] = token.split('.');
    const evil = Buffer.from(JSON.stringify(['c', 'msg_1', '0', 'https://evil.example/'])).toString('base64url');
    expect(signer.verify(`${id}.${evil}.${mac}`)).toBeNull();
    expect(signer.verify(`${id}.${payload}.${mac.slice(0, -2)}AA`)).toBeNull();
    // The id is signed: the same key under another id, or the MAC without the id, is refused.
    expect(new TokenSigner([{ id: 'k9', key: k1.key }, k1]).verify(`k9.${payload}.${mac}`)).toBeNull();
    expect(new TokenSigner([legacyKey(JWT_SECRET), k1]).verify(`${payload}.${mac}`)).toBeNull();
    expect(new TokenSigner([{ id: 'k1', key: key('x').key }]).verify(token)).toBeNull();
    for (const junk of [
      '',
      '.',
      'abc',
      `${payload}`,
      `${payload}.${mac}`,
      `legacy.${payload}.${mac}`,
      `${token}.x`,
      'e30.AAAAAAAAAAAAAAAAAAAAAA',
      `__proto__.${payload}.${mac}`,
    ]) {
      expect(signer.verify(junk)).toBeNull();
    }
  });
});
