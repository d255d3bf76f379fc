import type { CampaignContent, Recipient } from '../rendering/campaign-message.ts';
import type { TemplateThread } from '../rendering/template-thread.ts';
import { newTestMessageId } from '../tracked-links/test-message.ts';
import type { SigningTransport } from './dkim.ts';
import type { SendingIdentities } from './identity.ts';

/** A test recipient's personal fields, when the address is one of the account's contacts. */
export interface TestContact {
  first_name: string | null;
  last_name: string | null;
  tags: string[] | null;
  attributes: Record<string, unknown> | null;
}

/** How a test send finds its recipients' contacts: the composition root hands it in. */
export interface TestContacts {
  contactByEmail(accountId: string, email: string): Promise<TestContact | undefined>;
}

/** Test sends' way out: built in the template thread, signed and sent as their From address's sending identity. */
export interface TestSending {
  templates: TemplateThread;
  transport: SigningTransport;
  identities: SendingIdentities;
}

/**
 * Renders (in the template thread) and sends a test of `content` to each address, personalised
 * when the address is a contact's; the answer says which the relay accepted.
 */
export async function sendTests(contacts: TestContacts, sending: TestSending, accountId: string, content: CampaignContent, emails: string[]) {
  const { templates, transport } = sending;
  const identity = await sending.identities.forAddress(accountId, content.fromEmail);
  const recipients: Recipient[] = [];
  for (const email of emails) {
    const contact = await contacts.contactByEmail(accountId, email);
    recipients.push({
      messageId: newTestMessageId(),
      email,
      firstName: contact?.first_name ?? null,
      lastName: contact?.last_name ?? null,
      tags: contact?.tags ?? [],
      attributes: contact?.attributes ?? {},
    });
  }
  // Rendered and built in the template thread; only the SMTP conversation happens here.
  // The template thread is handed where links and bounces go, never the key.
  const sender = identity && { returnPathDomain: identity.returnPathDomain, linkBaseUrl: identity.linkBaseUrl };
  const messages = await templates.testMessages(content, recipients, sender).catch((error: Error) => recipients.map(() => ({ failed: error.message })));
  const accepted: string[] = [];
  const rejected: { email: string; reason: string }[] = [];
  for (const [i, { email }] of recipients.entries()) {
    const message = messages[i];
    const outcome =
      'failed' in message
        ? { kind: 'render_failed' as const, reason: `rendering failed: ${message.failed}` }
        : await transport.sendMime(message.envelope, message.raw, identity);
    if (outcome.kind === 'accepted') accepted.push(email);
    else
      rejected.push({
        email,
        reason: outcome.kind === 'transport_error' ? outcome.error : outcome.kind === 'render_failed' ? outcome.reason : outcome.response,
      });
  }
  return { accepted, rejected };
}
