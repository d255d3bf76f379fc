import type { TokenSigner } from '../tracked-links/tokens.ts';
import { renderMessage, type CampaignForRender, type OutgoingMail, type Recipient } from '../rendering/campaign-message.ts';
import type { SendOutcome } from './transport.ts';

/** Where a campaign's messages go: a relay, or the relays of the campaign stream's route. */
export interface CampaignTransport {
  send(mail: OutgoingMail): Promise<SendOutcome>;
}

/** Renders and sends campaign messages: what the workers and test sends share. */
export class Mailer {
  readonly transport: CampaignTransport;
  private readonly signer: TokenSigner;
  private readonly publicUrl: string;

  constructor(transport: CampaignTransport, signer: TokenSigner, publicUrl: string) {
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
