import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { components } from '../../generated/openapi.d.ts';

/**
 * Addresses a webhook may not reach: loopback, private, link-local (cloud metadata at
 * 169.254.169.254 and fd00:ec2::254 included), CGNAT, multicast, reserved and documentation
 * ranges, for IPv4 and IPv6, and the IPv6 forms that carry an IPv4 address, judged by it.
 */
const blocked = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(address, prefix, 'ipv4');
// 2001::/23 covers Teredo (2001::/32), whose embedded client address is obfuscated; NAT64's
// local-use prefix (RFC 8215) may embed an IPv4 address at several prefix lengths: both whole.
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(address, prefix, 'ipv6');

const zero = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

/**
 * The IPv4 address an IPv6 address stands for: IPv4-compatible (::/96), IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), NAT64's well-known prefix (64:ff9b::/96)
 * and 6to4 (2002::/16, the IPv4 address in bits 16–47).
 */
function embeddedIpv4(ip: string): string | null {
  const bytes = ipaddr.IPv6.parse(ip).toByteArray();
  const ipv4At = (offset: number) => bytes.slice(offset, offset + 4).join('.');
  const [b8, b9, b10, b11] = bytes.slice(8, 12);
  if (zero(bytes, 0, 10) && ((b10 === 0 && b11 === 0) || (b10 === 0xff && b11 === 0xff))) return ipv4At(12);
  if (zero(bytes, 0, 8) && b8 === 0xff && b9 === 0xff && b10 === 0 && b11 === 0) return ipv4At(12);
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(bytes, 4, 12)) return ipv4At(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return ipv4At(2);
  return null;
}

export function isPublicAddress(ip: string): boolean {
  const version = isIP(ip);
  if (!version) return false;
  if (version === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4 && blocked.check(v4, 'ipv4')) return false;
  }
  return !blocked.check(ip, version === 4 ? 'ipv4' : 'ipv6');
}

export interface GuardSettings {
  allowPrivateNetworks: boolean;
  allowHttp: boolean;
}

/** Why a URL may not be a webhook target at all (checked when it is saved), or null. */
export function urlProblem(text: string, settings: GuardSettings): { code: components['schemas']['WebhookUrlRefusedResponse']['code']; detail: string } | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { code: 'invalid_url', detail: 'is not a URL' };
  }
  if (url.protocol !== 'https:' && !(settings.allowHttp && url.protocol === 'http:'))
    return { code: 'insecure_url', detail: 'must be an https URL (a server started with WEBHOOK_ALLOW_HTTP=true also takes http, for development)' };
  if (url.username || url.password) return { code: 'invalid_url', detail: 'must not carry credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!settings.allowPrivateNetworks && isIP(host) && !isPublicAddress(host)) {
    return {
      code: 'unsafe_url',
      detail: 'points to a loopback, private or reserved address (a server started with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows them, for development)',
    };
  }
  return null;
}

export class UnsafeAddressError extends Error {}

/**
 * A `lookup` for http(s).request: resolves the name, refuses when any address is not public,
 * and hands the connection the very address it checked (no second resolution to rebind).
 */
export function guardedLookup(settings: GuardSettings) {
  return (
    hostname: string,
    options: { all?: boolean },
    callback: (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void,
  ) => {
    lookup(hostname, { all: true, verbatim: true }).then(
      (addresses) => {
        const unsafe = addresses.find((a) => !isPublicAddress(a.address));
        if (unsafe && !settings.allowPrivateNetworks) {
          callback(new UnsafeAddressError(`${hostname} resolves to ${unsafe.address}, which is not a public address`), '');
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (err: Error) => callback(err, ''),
    );
  };
}
