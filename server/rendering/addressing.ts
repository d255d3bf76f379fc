import { domainOf } from '../email.ts';
import type { TokenSigner } from '../tracked-links/tokens.ts';
import type { VerpTokens } from '../tracked-links/verp.ts';

/** What every message's links and return path are made with: the server's URL and keys. */
export interface Addressing {
  publicUrl: string;
  signer: TokenSigner;
  verp: VerpTokens;
}

/**
 * What a message takes of its sending identity (sending/identity.ts): where its links point and
 * where its bounces come back. Null, mail from no verified domain: `PUBLIC_URL`, and
 * `bounces+<message id>@<From domain>` as before sending domains.
 */
export type SenderDomain = { returnPathDomain: string; linkBaseUrl: string | null } | null;

/** The base URL of a message's tracked links, open pixel and unsubscribe links. */
export const linkBase = (addressing: Addressing, domain: SenderDomain) => domain?.linkBaseUrl ?? addressing.publicUrl;

/** The envelope sender: with a sending domain, its signed VERP address at `bounces.<domain>`. */
export function returnPath(addressing: Addressing, domain: SenderDomain, messageId: string, fromEmail: string): string {
  return domain ? addressing.verp.address(messageId, domain.returnPathDomain) : `bounces+${messageId}@${domainOf(fromEmail)}`;
}
