/**
 * How mail from one address is signed and where its bounces come back: from the account's
 * verified domain that is the address's domain or the nearest parent of it. The domains module
 * answers it; the senders are handed a `SendingIdentities` and know nothing of domains.
 */
export interface SendingIdentity {
  /** The verified domain: DKIM's `d=`, aligned with the From address. */
  domain: string;
  dkim: { selector: string; privateKey: string };
  /** The envelope sender's domain, `bounces.<domain>`, a CNAME to the server's bounce host. */
  returnPathDomain: string;
  /** Tracked links and the open pixel go under this base URL (`https://links.<domain>`) once its record is verified; null: `PUBLIC_URL`. */
  linkBaseUrl: string | null;
}

export interface SendingIdentities {
  /** The identity mail from this address is sent with; null when the account has no verified domain for it. */
  forAddress(accountId: string, email: string): Promise<SendingIdentity | null>;
}

/** Whether mail may be sent from an address: `SENDING_DOMAIN_POLICY` applied to the account's domains. */
export interface SendingPolicy {
  /** Throws 422 `domain_not_verified`, naming `pointer`, when the account may not send from `email`. */
  requireSendable(accountId: string, email: string, pointer: string): Promise<void>;
}
