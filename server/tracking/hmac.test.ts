import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HmacSha256 } from './hmac.ts';

describe('HMAC-SHA256', () => {
  it('gives the RFC 4231 test vectors', () => {
    const vectors = [
      { key: Buffer.alloc(20, 0x0b), data: Buffer.from('Hi There'), mac: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7' },
      { key: Buffer.from('Jefe'), data: Buffer.from('what do ya want for nothing?'), mac: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843' },
      { key: Buffer.alloc(20, 0xaa), data: Buffer.alloc(50, 0xdd), mac: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe' },
      // A key longer than a block is hashed first.
      { key: Buffer.alloc(131, 0xaa), data: Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'), mac: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54' },
      {
        key: Buffer.alloc(131, 0xaa),
        data: Buffer.from('This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.'),
        mac: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
      },
    ];
    for (const { key, data, mac } of vectors) expect(new HmacSha256(key).digest(data).toString('hex')).toBe(mac);
  });

  it('agrees with node:crypto on every length across several blocks, bytes and strings', () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(keyLength);
      const hmac = new HmacSha256(key);
      for (let length = 0; length <= 300; length++) {
        const data = randomBytes(length);
        expect(hmac.digest(data).toString('hex')).toBe(createHmac('sha256', key).update(data).digest('hex'));
      }
      const text = 'ünïcödé token ✓ '.repeat(20);
      expect(hmac.digest(text).toString('hex')).toBe(createHmac('sha256', key).update(text).digest('hex'));
    }
  });

  it('is unaffected by a longer message before it', () => {
    const hmac = new HmacSha256(Buffer.from('key'));
    hmac.digest('x'.repeat(1000));
    expect(hmac.digest('abc').toString('hex')).toBe(createHmac('sha256', 'key').update('abc').digest('hex'));
  });
});
