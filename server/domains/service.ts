import type { components } from '../../generated/openapi.d.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { decodeCursor, toPage } from '../contract/pagination.ts';
import { conflict, notFound, Problem, validationFailed } from '../contract/problem.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SendingIdentities, SendingIdentity, SendingPolicy } from '../sending/identity.ts';
import type { DnsChecker } from './dns-check.ts';
import type { DomainStatus } from './entities.ts';
import { newDkimKey, newSelector } from './keys.ts';
import { domainAndParents, domainName } from './name.ts';
import { recordKey, returnPathHost, trackingHost, wantedRecords, withChecks, type RecordChecks, type RecordSettings, type WantedRecord } from './records.ts';
import * as store from './store.ts';
import type { DomainRow, SealedKey } from './store.ts';

type Schemas = components['schemas'];

export interface DomainSettings extends RecordSettings {
  /** `SENDING_DOMAIN_POLICY`. */
  policy: 'verified' | 'any' | 'auto';
  perAccount: number;
  /** `PUBLIC_URL`'s scheme, for tracking hosts (`https:`). */
  publicScheme: string;
}

const keysOf = (row: DomainRow) => [
  { selector: row.dkim_selector, publicKey: row.dkim_public_key },
  ...(row.next_dkim_selector && row.next_dkim_public_key ? [{ selector: row.next_dkim_selector, publicKey: row.next_dkim_public_key }] : []),
];

/**
 * Each account's sending domains: their DKIM keys, the DNS records to publish and whether they
 * are, and the identity mail from them is sent with.
 */
export class DomainService implements SendingIdentities, SendingPolicy {
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly box: SecretBox;
  private readonly dns: DnsChecker;
  private readonly settings: DomainSettings;

  constructor(db: Db, transactions: Transactions, box: SecretBox, dns: DnsChecker, settings: DomainSettings) {
    this.db = db;
    this.transactions = transactions;
    this.box = box;
    this.dns = dns;
    this.settings = settings;
  }

  async create(accountId: string, input: Schemas['DomainCreate']): Promise<Schemas['Domain']> {
    const name = domainName(input.name);
    if (!name) throw validationFailed([{ pointer: '/name', detail: 'must be a domain name such as mail.example.com' }]);
    const key = await this.newKey(null);
    const result = await this.transactions.run((tx) => store.insertDomain(tx, accountId, name, key, this.settings.perAccount));
    if ('existingId' in result) throw conflict('domain_exists', 'The account has this domain already.', { existing_id: result.existingId });
    if ('overLimit' in result) throw conflict('too_many_domains', `The account has ${this.settings.perAccount} domains, as many as it may have.`);
    return this.json(result.row);
  }

  async list(accountId: string, limit: number, cursor?: string): Promise<Schemas['DomainPage']> {
    const rows = await store.listDomains(this.db, accountId, decodeCursor(cursor), limit);
    return toPage(
      rows,
      limit,
      (d) => ({ at: d.created_at, id: d.id }),
      (d) => this.json(d),
    );
  }

  async get(accountId: string, id: string): Promise<Schemas['Domain']> {
    return this.json(await this.row(accountId, id));
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await store.deleteDomain(this.db, accountId, id))) throw notFound('domain');
  }

  async verify(accountId: string, id: string): Promise<Schemas['Domain']> {
    return this.json(await this.check(await this.row(accountId, id)));
  }

  async rotateDkim(accountId: string, id: string): Promise<Schemas['Domain']> {
    const row = await this.row(accountId, id);
    if (row.next_dkim_selector) throw this.rotationInProgress(row.next_dkim_selector);
    const rotated = await store.addNextKey(this.db, accountId, id, await this.newKey(row.dkim_selector));
    if (!rotated) {
      const now = await this.row(accountId, id);
      throw this.rotationInProgress(now.next_dkim_selector ?? '');
    }
    return this.json(rotated);
  }

  async retireDkim(accountId: string, id: string): Promise<Schemas['Domain']> {
    const row = await this.row(accountId, id);
    const next = keysOf(row)[1];
    if (!next) throw conflict('dkim_no_rotation', 'The domain has no new DKIM key to retire the current one for: rotate first.');
    const [record] = withChecks(this.records(row.name, [next]).slice(0, 1), row.record_checks);
    if (record.status !== 'verified') {
      throw conflict('dkim_not_verified', `The new key's record (${record.name}) is not verified yet: publish it and verify the domain first.`);
    }
    const retired = await store.promoteNextKey(this.db, accountId, id, next.selector);
    if (!retired) throw conflict('dkim_no_rotation', 'The rotation was finished or replaced meanwhile.');
    return this.json(retired);
  }

  /** Checks verified domains whose last check is older than `ageSeconds`; answers how many were checked. */
  async recheckDue(ageSeconds: number, batch = 50): Promise<number> {
    const due = await store.domainsDue(this.db, ageSeconds, batch);
    for (const row of due) await this.check(row);
    return due.length;
  }

  async forAddress(accountId: string, email: string): Promise<SendingIdentity | null> {
    const row = await store.nearestVerified(this.db, accountId, domainAndParents(email));
    if (!row) return null;
    const records = withChecks(this.records(row.name, keysOf(row)), row.record_checks);
    const tracking = records.find((r) => r.purpose === 'tracking');
    return {
      domain: row.name,
      dkim: { selector: row.dkim_selector, privateKey: this.box.open(row.dkim_private_key_sealed) },
      returnPathDomain: returnPathHost(row.name),
      linkBaseUrl: tracking?.status === 'verified' ? `${this.settings.publicScheme}//${trackingHost(row.name)}` : null,
    };
  }

  async requireSendable(accountId: string, email: string, pointer: string): Promise<void> {
    const { policy } = this.settings;
    if (policy === 'any') return;
    if (policy === 'auto' && !(await store.accountHasDomains(this.db, accountId))) return;
    if (await store.nearestVerified(this.db, accountId, domainAndParents(email))) return;
    throw new Problem(422, 'domain_not_verified', `${email} is not from a verified domain of the account: add its domain and verify it (POST /domains).`, {
      errors: [{ pointer, detail: 'is not from a verified domain of the account' }],
    });
  }

  /** Looks the domain's records up and records what was found, with the status that follows. */
  private async check(row: DomainRow): Promise<DomainRow> {
    const records = this.records(row.name, keysOf(row));
    const results = await this.dns.check(records);
    const checks: RecordChecks = {};
    records.forEach((r, i) => (checks[recordKey(r)] = results[i]));
    const status = nextStatus(row.status, records, checks);
    const updated = await store.recordCheck(this.db, row.account_id, row.id, { current: row.dkim_selector, next: row.next_dkim_selector }, checks, status);
    // Rotated or retired meanwhile: the row as it is now, checked next time.
    return updated ?? (await this.row(row.account_id, row.id));
  }

  private async newKey(inUse: string | null): Promise<SealedKey> {
    const { publicKey, privateKey } = await newDkimKey();
    return { selector: newSelector(new Date(), inUse), publicKey, privateKeySealed: this.box.seal(privateKey) };
  }

  private rotationInProgress(selector: string): Problem {
    return conflict('dkim_rotation_in_progress', `A new DKIM key (${selector}) is waiting: retire the current one for it first.`);
  }

  private records(name: string, keys: { selector: string; publicKey: string }[]): WantedRecord[] {
    return wantedRecords(name, keys, this.settings);
  }

  private async row(accountId: string, id: string): Promise<DomainRow> {
    const row = await store.findDomain(this.db, accountId, id);
    if (!row) throw notFound('domain');
    return row;
  }

  private json(row: DomainRow): Schemas['Domain'] {
    return {
      id: row.id,
      name: row.name,
      status: row.status,
      dkim_selector: row.dkim_selector,
      next_dkim_selector: row.next_dkim_selector,
      records: withChecks(this.records(row.name, keysOf(row)), row.record_checks),
      verified_at: row.verified_at?.toISOString() ?? null,
      checked_at: row.checked_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    };
  }
}

/**
 * A domain is verified once its current DKIM key and return path are; a verified one whose DKIM
 * record is gone (missing or replaced) has failed. A lookup that failed changes nothing.
 */
export function nextStatus(current: DomainStatus, records: WantedRecord[], checks: RecordChecks): DomainStatus {
  const required = records.filter((r) => r.required && !(r.purpose === 'dkim' && r !== records[0]));
  const statuses = required.map((r) => checks[recordKey(r)]?.status);
  if (statuses.includes('lookup_failed')) return current;
  if (statuses.every((s) => s === 'verified')) return 'verified';
  const dkim = checks[recordKey(records[0])]?.status;
  if (current !== 'pending' && (dkim === 'missing' || dkim === 'mismatch')) return 'failed';
  return current;
}
