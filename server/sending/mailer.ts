import type { CampaignRow } from '../campaigns/entities.ts';
import { compileCampaign } from '../campaigns/template.ts';
import type { TokenSigner } from '../tracking/tokens.ts';
import { renderMessage, type CampaignForRender, type Recipient } from './render.ts';
import type { MailTransport, SendOutcome } from './transport.ts';

/** Renders and sends campaign messages: what the workers and test sends share. */
export class Mailer {
  readonly transport: MailTransport;
  readonly signer: TokenSigner;
  private readonly publicUrl: string;

  constructor(transport: MailTransport, signer: TokenSigner, publicUrl: string) {
    this.transport = transport;
    this.signer = signer;
    this.publicUrl = publicUrl;
  }

  prepare(c: CampaignRow): CampaignForRender {
    return {
      id: c.id,
      name: c.name,
      fromEmail: c.fromEmail,
      fromName: c.fromName,
      replyTo: c.replyTo,
      trackOpens: c.trackOpens,
      trackClicks: c.trackClicks,
      compiled: compileCampaign(c),
    };
  }

  async send(campaign: CampaignForRender, recipient: Recipient, extraHeaders?: Record<string, string>): Promise<SendOutcome> {
    const rendered = renderMessage(campaign, recipient, this.publicUrl, this.signer);
    if (extraHeaders?.['X-Sendline-Test']) rendered.subject = `[Test] ${rendered.subject}`;
    return this.transport.send({
      from: { name: campaign.fromName, address: campaign.fromEmail },
      replyTo: campaign.replyTo,
      to: recipient.email,
      rendered,
      extraHeaders,
    });
  }
}
