/**
 * A sending thread: renders and sends the messages the main thread hands over, on a core of its
 * own. Each thread keeps its own SMTP pool and its own compiled copy of each campaign.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TokenSigner } from '../tracking/tokens.ts';
import { Mailer } from './mailer.ts';
import { prepareCampaign, type CampaignForRender } from './render.ts';
import { CAMPAIGNS_PER_THREAD, type SendRequest, type SendThreadData, type ThreadReply } from './send-threads.ts';
import { MailTransport } from './transport.ts';

const data = workerData as SendThreadData;
const mailer = new Mailer(new MailTransport(data.smtpUrl, data.sending), new TokenSigner(data.secretKeys), data.publicUrl);
const campaigns = new Map<string, CampaignForRender>();
const port = parentPort!;

async function handle(request: SendRequest): Promise<ThreadReply> {
  let campaign = campaigns.get(request.campaignId);
  try {
    if (request.campaign) {
      if (campaigns.size >= CAMPAIGNS_PER_THREAD) campaigns.delete(campaigns.keys().next().value!);
      campaign = prepareCampaign(request.campaign);
      campaigns.set(request.campaignId, campaign);
    }
    if (!campaign) return { kind: 'campaign_needed' };
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
  void handle(message).then((reply) => port.postMessage({ id: message.id, reply }));
});
