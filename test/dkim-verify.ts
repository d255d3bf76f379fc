import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface DkimVerdict {
  ok: boolean;
  /** The signature's `d=` and `s=`. */
  domain: string;
  selector: string;
  output: string;
}

/** Verifies a message's DKIM signature with dkimpy, an implementation independent of the signer, against the test DNS server at `dnsAddress`. */
export function verifyDkim(message: string | Buffer, dnsAddress: string): Promise<DkimVerdict> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, '.venv/bin/python'), [path.join(ROOT, 'test/dns/dkim_verify.py'), dnsAddress], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const tags = /d=(\S*) s=(\S*)/.exec(output);
      resolve({ ok: code === 0, domain: tags?.[1] ?? '', selector: tags?.[2] ?? '', output });
    });
    child.stdin.end(message);
  });
}
