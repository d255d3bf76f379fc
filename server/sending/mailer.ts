import type { TokenSigner } from '../tracked-links/tokens.ts';
import { renderMessage, type CampaignForRender, type Recipient } from '../rendering/campaign-message.ts';
import type { MailTransport, SendOutcome } from './transport.ts';

/** Renders and sends campaign messages: what the workers and test sends share. */
export class Mailer {
  readonly transport: MailTransport;
  private readonly signer: TokenSigner;
  private readonly publicUrl: string;

  constructor(transport: MailTransport, signer: TokenSigner, publicUrl: string) {
    this.transport = transport;
    this.signer = signer;
    this.publicUrl = publicUrl;
  }

  send(campaign: CampaignForRender, recipient: Recipient): Promise<SendOutcome> {
    return this.transport.send({
      from: { name: campaign.fromName, address: campaign.fromEmail },
      replyTo: campaign.replyTo,
      to: recipient.email,
      rendered: renderMessage(campaign, recipient, this.publicUrl, this.signer),
    });
  }
}
