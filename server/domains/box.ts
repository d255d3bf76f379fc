import type { SecretKey } from '../secrets/key-ring.ts';
import { SecretBox } from '../secrets/secret-box.ts';

/** The box domains' DKIM private keys are sealed in. */
export const domainKeyBox = (ring: readonly SecretKey[]): SecretBox =>
  new SecretBox(ring, { what: 'a DKIM private key', label: 'sendline dkim keys v1', legacyLabel: 'sendline dkim keys v1' });
