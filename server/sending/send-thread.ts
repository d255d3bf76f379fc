/**
 * A sending thread: renders and sends the messages the main thread hands over, on a core of its
 * own. Each thread keeps its own SMTP pool and its own compiled copy of each campaign.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TokenSigner } from '../tracking/tokens.ts';
import { Mailer } from './mailer.ts';
import type { CampaignForRender } from './render.ts';
import { rememberCampaign, type SendRequest, type SendThreadData, type ThreadOutcome } from './send-threads.ts';
import { MailTransport } from './transport.ts';

const data = workerData as SendThreadData;
const mailer = new Mailer(new MailTransport(data.smtpUrl, data.sending), new TokenSigner(data.jwtSecret), data.publicUrl);
const campaigns = new Map<string, CampaignForRender>();
const port = parentPort!;

async function handle(request: SendRequest): Promise<ThreadOutcome> {
  try {
    if (request.campaign) rememberCampaign(campaigns, request.campaignId, mailer.prepare(request.campaign));
    const campaign = campaigns.get(request.campaignId);
    if (!campaign) throw new Error('the campaign was not handed to this thread');
    return await mailer.send(campaign, request.recipient);
  } catch (error) {
    return { kind: 'render_failed', reason: (error as Error).message };
  }
}

port.on('message', (message: SendRequest | 'close') => {
  if (message === 'close') {
    mailer.transport.close();
    port.close();
    return;
  }
  void handle(message).then((outcome) => port.postMessage({ id: message.id, outcome }));
});
