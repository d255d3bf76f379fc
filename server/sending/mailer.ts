import type { TokenSigner } from '../tracking/tokens.ts';
import { renderMessage, type CampaignForRender, type Recipient } from './render.ts';
import { outgoingMime, type MailTransport, type SendOutcome } from './transport.ts';

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

/** A test message, marked as such in its subject and headers: its envelope and MIME text. */
export function testMessage(
  campaign: CampaignForRender,
  recipient: Recipient,
  publicUrl: string,
  signer: TokenSigner,
): { envelope: { from: string; to: string }; raw: string } {
  const rendered = renderMessage(campaign, recipient, publicUrl, signer);
  rendered.subject = `[Test] ${rendered.subject}`;
  const raw = outgoingMime({
    from: { name: campaign.fromName, address: campaign.fromEmail },
    replyTo: campaign.replyTo,
    to: recipient.email,
    rendered,
    extraHeaders: { 'X-Sendline-Test': 'true' },
  });
  return { envelope: { from: rendered.returnPath, to: recipient.email }, raw };
}
