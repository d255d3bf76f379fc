import { describe, expect, it } from 'vitest';
import { isPublicAddress, urlProblem } from './address-guard.ts';

describe('isPublicAddress', () => {
  it('refuses loopback, private, link-local, CGNAT, multicast and metadata addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '64:ff9b::10.0.0.1',
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
  });

  it('judges IPv6 forms that embed an IPv4 address by that address', () => {
    for (const ip of [
      '::127.0.0.1',
      '::7f00:1',
      '::a9fe:a9fe',
      '::ffff:0:7f00:1',
      '::ffff:0:10.0.0.1',
      '0:0:0:0:0:ffff:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::7f00:1',
      '64:ff9b:1:7f00:1::',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::',
      '2002:c0a8:101::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001::1',
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
    for (const ip of ['::ffff:0:5db8:d822', '64:ff9b::93.184.216.34', '2002:5db8:d822::1']) expect(isPublicAddress(ip), ip).toBe(true);
  });

  it('allows public addresses of both families', () => {
    for (const ip of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.216.34']) expect(isPublicAddress(ip), ip).toBe(true);
  });
});

describe('urlProblem', () => {
  const strict = { allowPrivateNetworks: false, allowHttp: false };
  it('wants https, no credentials, and no literal private address', () => {
    expect(urlProblem('http://hooks.example.com/', strict)?.code).toBe('insecure_url');
    expect(urlProblem('https://user:pw@hooks.example.com/', strict)?.code).toBe('invalid_url');
    expect(urlProblem('https://127.0.0.1/hook', strict)?.code).toBe('unsafe_url');
    expect(urlProblem('https://[::ffff:169.254.169.254]/', strict)?.code).toBe('unsafe_url');
    for (const host of ['[::127.0.0.1]', '[::ffff:0:7f00:1]', '[64:ff9b:1::7f00:1]', '[2002:7f00:1::1]']) {
      expect(urlProblem(`https://${host}/`, strict)?.code, host).toBe('unsafe_url');
    }
    expect(urlProblem('https://hooks.example.com/', strict)).toBeNull();
    expect(urlProblem('http://127.0.0.1:8080/', { allowPrivateNetworks: true, allowHttp: true })).toBeNull();
  });
});
