import { generateKeyPairSync } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import DKIM from 'nodemailer/lib/dkim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDkim } from '../dkim-verify.ts';
import { startDnsServer, type DnsServer } from '../dns-server.ts';

let dns: DnsServer;
let resolver: Resolver;

beforeAll(async () => {
  dns = await startDnsServer();
  resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dns.address]);
});
afterAll(() => dns.stop());

const long = 'v=DKIM1; k=rsa; p=' + 'A'.repeat(400);
const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (e: { code?: string }) => e.code,
  );

describe('the test DNS server', () => {
  it('answers TXT (long ones in strings of 255, read joined), CNAME, NXDOMAIN, no data and SERVFAIL, and sees new records', async () => {
    await dns.setRecords([
      { name: 'sel._domainkey.a.example', type: 'TXT', value: long },
      { name: 'bounces.a.example', type: 'CNAME', value: 'bounces.sendline.test' },
      { name: 'broken.a.example', type: 'SERVFAIL', value: '' },
    ]);
    const txt = await resolver.resolveTxt('sel._domainkey.a.example');
    expect(txt[0].map((s) => s.length)).toEqual([255, long.length - 255]);
    expect(txt[0].join('')).toBe(long);
    expect(await resolver.resolveCname('bounces.a.example')).toEqual(['bounces.sendline.test']);
    expect(await code(resolver.resolveTxt('nothing.a.example'))).toBe('ENOTFOUND');
    expect(await code(resolver.resolveCname('sel._domainkey.a.example'))).toBe('ENODATA');
    expect(await code(resolver.resolveTxt('broken.a.example'))).toBe('ESERVFAIL');
    await dns.setRecords([{ name: 'nothing.a.example', type: 'TXT', value: 'now here' }]);
    expect(await resolver.resolveTxt('nothing.a.example')).toEqual([['now here']]);
  });
});

describe('the DKIM verifier (dkimpy)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const message = 'From: Ada <ada@signed.example>\r\nTo: bob@example.com\r\nSubject: Hello\r\nMessage-ID: <1@signed.example>\r\n\r\nHi Bob\r\n';
  const sign = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const signer = new DKIM({ domainName: 'signed.example', keySelector: 'sel', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() });
      const chunks: Buffer[] = [];
      const stream = signer.sign(text);
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve(Buffer.concat(chunks).toString()));
      stream.on('error', reject);
    });
  const keyRecord = {
    name: 'sel._domainkey.signed.example',
    type: 'TXT' as const,
    value: `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
  };

  it('passes a signed message, and fails it tampered or once the key is gone', async () => {
    await dns.setRecords([keyRecord]);
    const signed = await sign(message);
    expect(await verifyDkim(signed, dns.address)).toMatchObject({ ok: true, domain: 'signed.example', selector: 'sel' });
    expect((await verifyDkim(signed.replace('Subject: Hello', 'Subject: Hellp'), dns.address)).ok).toBe(false);
    await dns.setRecords([]);
    expect((await verifyDkim(signed, dns.address)).ok).toBe(false);
  });
});
