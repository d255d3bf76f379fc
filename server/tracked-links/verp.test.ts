import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from '../db/ids.ts';
import { legacyKey, type SecretKey } from '../secrets/key-ring.ts';
import { VerpTokens } from './verp.ts';

const key = (id: string): SecretKey => ({ id, key: randomBytes(32).toString('base64') });

describe('VERP return paths', () => {
  const [k1, k2] = [key('k1'), key('k2')];
  const tokens = new VerpTokens([k1]);

  it('name their message, in lowercase, within 64 characters of local part', () => {
    for (const id of [newId('msg'), newId('em'), newId('tmsg'), 'msg_0000000000000000000000', 'msg_zzzzzzzzzzzzzzzzzzzzzz']) {
      const address = tokens.address(id, 'bounces.mail.example');
      expect(address).toMatch(/^b-[a-z]+-[0-9a-z]+-[0-9a-z]+@bounces\.mail\.example$/);
      expect(address.split('@')[0].length).toBeLessThanOrEqual(64);
      expect(tokens.messageOf(address)).toBe(id);
      // Mail systems may change a local part's case.
      expect(tokens.messageOf(address.toUpperCase())).toBe(id);
    }
  });

  it('name nothing when forged, altered or made under a key the ring does not hold', () => {
    const id = newId('msg');
    const address = tokens.address(id, 'bounces.mail.example');
    const [local, domain] = address.split('@');
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === '0' ? '1' : '0') + text.slice(at + 1);
    // Another message's id with this one's MAC, and this one's id with its MAC altered.
    const other = tokens.address(newId('msg'), domain).split('-');
    const parts = local.split('-');
    for (const forged of [
      `${other[0]}-${other[1]}-${other[2]}-${parts[3]}@${domain}`,
      `${parts[0]}-${parts[1]}-${parts[2]}-${flip(parts[3], 5)}@${domain}`,
      `${parts[0]}-${parts[1]}-${flip(parts[2], 25)}-${parts[3]}@${domain}`,
      `${parts[0]}-em-${parts[2]}-${parts[3]}@${domain}`,
      `b-${id}@${domain}`,
      `bounces+${id}@${domain}`,
      `b-msg-${'z'.repeat(26)}-${parts[3]}@${domain}`,
      local,
    ]) {
      expect(tokens.messageOf(forged), forged).toBeNull();
    }
    expect(new VerpTokens([key('k1')]).messageOf(address)).toBeNull();
    expect(new VerpTokens([legacyKey('a-secret-that-is-long-enough-for-tests-000000')]).messageOf(address)).toBeNull();
  });

  it('verify under every key of the ring, and are made under the first', () => {
    const id = newId('em');
    const before = tokens.address(id, 'bounces.a.example');
    const rotated = new VerpTokens([k2, k1]);
    expect(rotated.messageOf(before)).toBe(id);
    const after = rotated.address(id, 'bounces.a.example');
    expect(after).not.toBe(before);
    expect(tokens.messageOf(after)).toBeNull();
    expect(new VerpTokens([k2]).messageOf(after)).toBe(id);
  });
});
