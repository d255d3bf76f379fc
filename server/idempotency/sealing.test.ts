import { describe, expect, it } from 'vitest';
import { AnswerBox } from './sealing.ts';

const k1 = { id: 'k1', key: Buffer.alloc(32, 1).toString('base64') };
const k2 = { id: 'k2', key: Buffer.alloc(32, 2).toString('base64') };
const owner = { accountId: 'acc_1', credential: 'key:key_1', key: 'retry-1' };
const answer = Buffer.from('{"content-type":"application/json"}\n{"key":"sl_live_secret"}');

describe('sealed answers', () => {
  it('open with their owner under any key of the ring, and hide their content', () => {
    const sealed = new AnswerBox([k1]).seal(answer, owner);
    expect(sealed.keyId).toBe('k1');
    expect(Buffer.from(sealed.sealed).toString('latin1')).not.toContain('sl_live_secret');
    expect(new AnswerBox([k1]).open(sealed, owner)).toEqual(answer);
    expect(new AnswerBox([k2, k1]).open(sealed, owner)).toEqual(answer);
  });

  it('do not open as another account, credential or key, nor once their key left the ring', () => {
    const sealed = new AnswerBox([k1]).seal(answer, owner);
    const box = new AnswerBox([k1]);
    expect(box.open(sealed, { ...owner, accountId: 'acc_2' })).toBeNull();
    expect(box.open(sealed, { ...owner, credential: 'key:key_2' })).toBeNull();
    expect(box.open(sealed, { ...owner, key: 'retry-2' })).toBeNull();
    expect(box.open({ ...sealed, keyId: 'k2' }, owner)).toBeNull();
    expect(new AnswerBox([k2]).open(sealed, owner)).toBeNull();
    expect(box.open({ keyId: 'k1', sealed: Buffer.alloc(10) }, owner)).toBeNull();
  });
});
