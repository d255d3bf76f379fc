import { plainAddress } from '../net/client-address.ts';

/**
 * Agents that fetch images or follow links without a person: security scanners, and Apple's Mail
 * Privacy Protection, which prefetches every image with the bare agent `Mozilla/5.0`.
 * Gmail's image proxy is not here: it fetches when the reader opens the message.
 */
const MACHINE_AGENTS =
  /barracuda|mimecast|proofpoint|symantec|messagelabs|trend ?micro|zscaler|forcepoint|sophos|fireeye|\bbot\b|bot\/|crawler|spider|python-requests|python-urllib|curl\/|wget\/|go-http-client|headlesschrome|yahoomailproxy/i;

/** Whether an open came from a scanner or a privacy proxy rather than a reader (times in ms since the epoch). */
export function isMachineOpen(userAgent: string | null, openedAt: number, sentAt: number | null, machineSeconds: number): boolean {
  if (!userAgent || userAgent.trim() === 'Mozilla/5.0') return true;
  if (MACHINE_AGENTS.test(userAgent)) return true;
  return sentAt !== null && openedAt - sentAt < machineSeconds * 1000;
}

/** A client address as configured: IPv4 to its /24, IPv6 to its /48, or not at all. */
export function storedIp(address: string | undefined, mode: 'anonymized' | 'full' | 'none'): string | null {
  if (!address || mode === 'none') return null;
  const ip = plainAddress(address);
  if (mode === 'full') return ip;
  if (ip.includes('.')) return `${ip.slice(0, ip.lastIndexOf('.'))}.0`;
  const groups = expandIpv6(ip);
  return groups ? `${groups.slice(0, 3).join(':')}::` : null;
}

function expandIpv6(ip: string): string[] | null {
  const [head, tail] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  if (ip.includes('::')) return [...left, ...Array.from({ length: 8 - left.length - right.length }, () => '0'), ...right];
  return left.length === 8 ? left : null;
}
