import { outgoingMime, renderMessage, type CampaignForRender, type Recipient } from '../rendering/campaign-message.ts';
import type { Addressing } from '../rendering/addressing.ts';
import { transactionalMessage, type TransactionalContent, type TransactionalMail } from '../rendering/transactional-message.ts';
import type { DkimSigners } from './dkim.ts';
import type { SendingIdentity } from './identity.ts';
import type { Stream } from './relays.ts';
import type { SendOutcome } from './transport.ts';

/** Where a thread's messages go: the relays of the route for their stream and From address. */
export interface RoutedRelays {
  sendMime(stream: Stream, fromEmail: string, envelope: { from: string; to: string }, raw: string): Promise<SendOutcome>;
}

/** Renders, signs and sends messages as their sending identity, or as the server without one: what a sending thread does per message. */
export class Mailer {
  private readonly relays: RoutedRelays;
  private readonly signers: DkimSigners;
  private readonly addressing: Addressing;

  constructor(relays: RoutedRelays, signers: DkimSigners, addressing: Addressing) {
    this.relays = relays;
    this.signers = signers;
    this.addressing = addressing;
  }

  async send(campaign: CampaignForRender, recipient: Recipient, identity: SendingIdentity | null): Promise<SendOutcome> {
    const rendered = renderMessage(campaign, recipient, this.addressing, identity);
    const raw = outgoingMime({ from: { name: campaign.fromName, address: campaign.fromEmail }, replyTo: campaign.replyTo, to: recipient.email, rendered });
    const signed = await this.signers.sign(raw, identity);
    return this.relays.sendMime('campaign', campaign.fromEmail, { from: rendered.returnPath, to: recipient.email }, signed);
  }

  async sendTransactional(content: TransactionalContent, mail: TransactionalMail, identity: SendingIdentity | null): Promise<SendOutcome> {
    const { envelope, raw } = transactionalMessage(content, mail, this.addressing, identity);
    return this.relays.sendMime(mail.stream, content.fromEmail, envelope, await this.signers.sign(raw, identity));
  }
}
