import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export interface DkimKeyPair {
  /** Base64 of the DER SubjectPublicKeyInfo: DKIM's `p=`. */
  publicKey: string;
  /** PKCS #8 PEM, as nodemailer's DKIM signer takes it. */
  privateKey: string;
}

/** An RSA-2048 key, made on libuv's thread pool: the event loop keeps serving meanwhile. */
export async function newDkimKey(): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: publicKey.toString('base64'), privateKey };
}

/** `sl` and the day (`sl20261128`), with a letter after it when the selector in use has that day already. */
export function newSelector(now: Date, inUse: string | null): string {
  const day = `sl${now.toISOString().slice(0, 10).replace(/-/g, '')}`;
  for (const suffix of ['', ...'bcdefghijklmnopqrstuvwxyz']) {
    if (`${day}${suffix}` !== inUse) return `${day}${suffix}`;
  }
  return day;
}
