import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A record the test server answers; `SERVFAIL` makes every query for its name fail. */
export interface DnsRecord {
  name: string;
  type: 'TXT' | 'CNAME' | 'A' | 'MX' | 'SERVFAIL';
  value: string;
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, as `DNS_SERVERS` takes it. */
  address: string;
  /** Replaces every record at once; the next query sees them. */
  setRecords(records: DnsRecord[]): Promise<void>;
  stop(): Promise<void>;
}

/** A real authoritative DNS server (dnslib, from the toolchain's virtualenv) on a free loopback port. */
export async function startDnsServer(records: DnsRecord[] = []): Promise<DnsServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-dns-'));
  const zone = path.join(dir, 'zone.json');
  const write = (list: DnsRecord[]) => {
    writeFileSync(`${zone}.new`, JSON.stringify({ records: list }));
    renameSync(`${zone}.new`, zone);
  };
  write(records);
  const child: ChildProcess = spawn(path.join(ROOT, '.venv/bin/python'), [path.join(ROOT, 'test/dns/server.py'), zone, '0'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the DNS server exited with ${code}: ${errors}`)));
  });
  return {
    address: `127.0.0.1:${port}`,
    setRecords: (list) => Promise.resolve(write(list)),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.stdin!.end();
      }),
  };
}
