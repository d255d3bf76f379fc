import { outgoingMime, renderMessage, type CampaignForRender, type Recipient } from '../rendering/campaign-message.ts';
import type { Addressing } from '../rendering/addressing.ts';
import { transactionalMessage, type TransactionalContent, type TransactionalMail } from '../rendering/transactional-message.ts';
import type { SigningTransport } from './dkim.ts';
import type { SendingIdentity } from './identity.ts';
import type { SendOutcome } from './transport.ts';

/** Renders, signs and sends messages as their sending identity, or as the server without one: what a sending thread does per message. */
export class Mailer {
  readonly transport: SigningTransport;
  private readonly addressing: Addressing;

  constructor(transport: SigningTransport, addressing: Addressing) {
    this.transport = transport;
    this.addressing = addressing;
  }

  send(campaign: CampaignForRender, recipient: Recipient, identity: SendingIdentity | null): Promise<SendOutcome> {
    const rendered = renderMessage(campaign, recipient, this.addressing, identity);
    const raw = outgoingMime({ from: { name: campaign.fromName, address: campaign.fromEmail }, replyTo: campaign.replyTo, to: recipient.email, rendered });
    return this.transport.sendMime({ from: rendered.returnPath, to: recipient.email }, raw, identity);
  }

  sendTransactional(content: TransactionalContent, mail: TransactionalMail, identity: SendingIdentity | null): Promise<SendOutcome> {
    const { envelope, raw } = transactionalMessage(content, mail, this.addressing, identity);
    return this.transport.sendMime(envelope, raw, identity);
  }
}
