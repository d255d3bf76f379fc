import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sendline: Sendline;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    DKIM_DOMAIN: 'shop.example',
    DKIM_SELECTOR: 's2026',
    DKIM_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

describe('DKIM', () => {
  it('signs campaign mail with List-Unsubscribe and List-Unsubscribe-Post among the signed headers', async () => {
    const account = await newAccount(sendline.url, 'dkim');
    const { body: c } = await account.api('POST', '/api/campaigns', {
      body: { name: 'd', subject: 'Signed', from_email: 'news@shop.example', content: '<p>Hi</p>' },
    });
    await account.api('POST', `/api/campaigns/${c.id}/test`, { body: { emails: ['signed@inbox.example'] } });
    const [received] = sink.to('signed@inbox.example');
    const signature = received.raw.replace(/\r?\n[ \t]+/g, ' ').match(/^DKIM-Signature: (.*)$/im)?.[1];
    expect(signature).toMatch(/d=shop\.example/);
    expect(signature).toMatch(/s=s2026/);
    const signedHeaders = /(?:^|;)\s*h=([^;]+)/.exec(signature!)![1].replace(/\s/g, '').toLowerCase().split(':');
    expect(signedHeaders).toEqual(expect.arrayContaining(['from', 'subject', 'list-unsubscribe', 'list-unsubscribe-post']));
  });
});
