import { BlockList, isIP } from 'node:net';
import { plainAddress } from './client-address.ts';

/** Parses `203.0.113.0/24`, `2001:db8::/32` or a bare address; null when it is not one. */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address, prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (!version || rest.length) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

export function compileAllowList(cidrs: string[]): BlockList | null {
  if (!cidrs.length) return null;
  const list = new BlockList();
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (cidr) list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return list;
}

export function ipAllowed(list: BlockList | null, ip: string): boolean {
  if (!list) return true;
  const address = plainAddress(ip);
  const version = isIP(address);
  if (!version) return false;
  return list.check(address, version === 4 ? 'ipv4' : 'ipv6');
}
