import type { components } from '../../generated/openapi.d.ts';

export type DomainRecord = components['schemas']['DomainRecord'];
export type RecordStatus = components['schemas']['DomainRecordStatus'];
type Purpose = components['schemas']['DomainRecordPurpose'];

/** A record as it should be published, before any check. */
export type WantedRecord = Omit<DomainRecord, 'status' | 'found'>;

/** What a lookup found for one record, keyed by `recordKey`: a changed value starts from `pending` again. */
export type RecordChecks = Record<string, { status: string; found: string[] | null }>;

export interface DkimKeyRecord {
  selector: string;
  /** Base64 of the public key's DER (SubjectPublicKeyInfo), as DKIM's `p=` takes it. */
  publicKey: string;
}

export interface RecordSettings {
  /** `BOUNCE_DOMAIN`: where `bounces.<domain>` points. */
  bounceDomain: string;
  /** `PUBLIC_URL`'s host: where `links.<domain>` points. */
  trackingHost: string;
}

export const dkimRecordName = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;
export const dkimRecordValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;
export const returnPathHost = (domain: string) => `bounces.${domain}`;
export const trackingHost = (domain: string) => `links.${domain}`;
export const spfMechanism = (bounceDomain: string) => `a:${bounceDomain}`;

export const recordKey = (r: Pick<WantedRecord, 'purpose' | 'name' | 'value'>) => `${r.purpose} ${r.name} ${r.value}`;

/** The records a domain asks for: its DKIM keys (two during a rotation), then return path, SPF, DMARC and tracking. */
export function wantedRecords(domain: string, keys: DkimKeyRecord[], settings: RecordSettings): WantedRecord[] {
  const record = (purpose: Purpose, type: WantedRecord['type'], name: string, value: string, required: boolean): WantedRecord => ({
    purpose,
    type,
    name,
    value,
    required,
  });
  return [
    ...keys.map((key) => record('dkim', 'TXT', dkimRecordName(key.selector, domain), dkimRecordValue(key.publicKey), true)),
    record('return_path', 'CNAME', returnPathHost(domain), settings.bounceDomain, true),
    record('spf', 'TXT', domain, `v=spf1 ${spfMechanism(settings.bounceDomain)} ~all`, false),
    record('dmarc', 'TXT', `_dmarc.${domain}`, 'v=DMARC1; p=none', false),
    record('tracking', 'CNAME', trackingHost(domain), settings.trackingHost, false),
  ];
}

const STATUSES: readonly string[] = ['pending', 'verified', 'missing', 'mismatch', 'lookup_failed'] satisfies RecordStatus[];
const isStatus = (status: string): status is RecordStatus => STATUSES.includes(status);

/** The records with what the last check found for each. */
export function withChecks(records: WantedRecord[], checks: RecordChecks): DomainRecord[] {
  return records.map((r) => {
    const check = checks[recordKey(r)];
    const status = check && isStatus(check.status) ? check.status : 'pending';
    return { ...r, status, found: status === 'mismatch' ? (check?.found ?? null) : null };
  });
}
