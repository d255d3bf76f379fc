import { Resolver } from 'node:dns/promises';
import { spfMechanism, type RecordStatus, type WantedRecord } from './records.ts';

export interface RecordCheck {
  status: Exclude<RecordStatus, 'pending'>;
  found: string[] | null;
}

/** Answers that say the name or the record type does not exist: the record is missing, not unknown. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);
/** Values kept from a mismatching answer, and their length: what the caller needs to see what is there. */
const MAX_FOUND = 10;
const MAX_FOUND_LENGTH = 1024;

const normalHost = (host: string) => host.toLowerCase().replace(/\.$/, '');
const found = (values: string[]) => values.slice(0, MAX_FOUND).map((v) => v.slice(0, MAX_FOUND_LENGTH));

/** The tags of a DKIM or DMARC record (`v=DKIM1; k=rsa; p=…`), whitespace inside values dropped as RFC 6376 allows. */
function tags(value: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) map.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return map;
}

/** Whether a published TXT value is what the record asks for. */
function txtMatches(record: WantedRecord, published: string, bounceDomain: string): boolean {
  switch (record.purpose) {
    case 'dkim':
      return tags(published).get('p') === tags(record.value).get('p');
    case 'dmarc':
      return /^v=DMARC1\s*(;|$)/i.test(published);
    case 'spf': {
      const mechanism = spfMechanism(bounceDomain).slice(2);
      return published
        .toLowerCase()
        .split(/\s+/)
        .some((term) => [`a:${mechanism}`, `include:${mechanism}`].includes(term.replace(/^[+~?]/, '')));
    }
    default:
      return published === record.value;
  }
}

/** The TXT values at a name that are of the record's kind: an SPF record among others, a DKIM key, a DMARC policy. */
function candidates(record: WantedRecord, values: string[]): string[] {
  if (record.purpose === 'spf') return values.filter((v) => /^v=spf1(\s|$)/i.test(v));
  return values;
}

/**
 * Looks records up with the resolvers in `DNS_SERVERS` (the system's when empty). A failed
 * lookup (timeout, SERVFAIL, refused) is `lookup_failed`, never `missing`, so a resolver's bad
 * minute does not fail a domain.
 */
export class DnsChecker {
  private readonly resolver: Resolver;
  private readonly bounceDomain: string;

  constructor(servers: string[], bounceDomain: string) {
    this.resolver = new Resolver({ timeout: 2000, tries: 2 });
    if (servers.length) this.resolver.setServers(servers);
    this.bounceDomain = bounceDomain;
  }

  check(records: WantedRecord[]): Promise<RecordCheck[]> {
    return Promise.all(records.map((record) => this.checkOne(record)));
  }

  private async checkOne(record: WantedRecord): Promise<RecordCheck> {
    let values: string[];
    try {
      values =
        record.type === 'TXT'
          ? (await this.resolver.resolveTxt(record.name)).map((chunks) => chunks.join(''))
          : (await this.resolver.resolveCname(record.name)).map(normalHost);
    } catch (error) {
      return { status: ABSENT.has((error as { code?: string }).code ?? '') ? 'missing' : 'lookup_failed', found: null };
    }
    if (record.type === 'CNAME') {
      if (!values.length) return { status: 'missing', found: null };
      return values.includes(normalHost(record.value)) ? { status: 'verified', found: null } : { status: 'mismatch', found: found(values) };
    }
    const relevant = candidates(record, values);
    if (!relevant.length) return { status: 'missing', found: null };
    if (relevant.some((v) => txtMatches(record, v, this.bounceDomain))) return { status: 'verified', found: null };
    return { status: 'mismatch', found: found(relevant) };
  }
}
