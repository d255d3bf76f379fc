/**
 * A sending thread: renders and sends the messages the main thread hands over, on a core of its
 * own. Each thread keeps its own SMTP pool, its share of the process's sending rate, and its own
 * compiled copy of each campaign.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TokenSigner } from '../tracked-links/tokens.ts';
import { VerpTokens } from '../tracked-links/verp.ts';
import { Mailer } from './mailer.ts';
import { Pacer } from './pacer.ts';
import { prepareCampaign, type CampaignForRender, type Recipient } from '../rendering/campaign-message.ts';
import {
  CAMPAIGNS_PER_THREAD,
  type SendRequest,
  type SendThreadData,
  type ThreadOutcome,
  type HaltRequest,
  type ThreadReply,
  type TransactionalRequest,
} from './send-threads.ts';
import { databaseSlots } from './relay-limits.ts';
import { RelayTransport } from './relay-transport.ts';
import { DkimSigners } from './dkim.ts';
import type { SendingIdentity } from './identity.ts';

const data = workerData as SendThreadData;
const { plan } = data;
// One connection, for rate-limited relays' claims only (one query per block of sends); pg is
// loaded only then, so a thread without them starts as fast as before.
const database =
  data.databaseUrl !== undefined && plan.relays.some((relay) => relay.ratePerSecond)
    ? new (await import('pg')).default.Pool({ connectionString: data.databaseUrl, max: 1 })
    : null;
// An idle connection's failure is the next claim's error; it must not end the thread.
database?.on('error', () => {});
const relays = new RelayTransport(plan, data.sending, data.connections, (relay, rate) => databaseSlots(database!, relay, rate));
const mailer = new Mailer(relays, new DkimSigners(data.sending.dkim), {
  publicUrl: data.publicUrl,
  signer: new TokenSigner(data.secretKeys),
  verp: new VerpTokens(data.secretKeys),
});
const pacer = new Pacer(data.sending.ratePerSecond);
const campaigns = new Map<string, CampaignForRender>();
const port = parentPort!;
/** Requests in progress, and those of them halted: their recipients not handed over yet are not sent. */
const inProgress = new Set<number>();
const halted = new Set<number>();

async function sendOne(requestId: number, campaign: CampaignForRender, recipient: Recipient, identity: SendingIdentity | null): Promise<ThreadOutcome> {
  try {
    if (halted.has(requestId)) return { kind: 'halted' };
    await pacer.wait();
    if (halted.has(requestId)) return { kind: 'halted' };
    return await mailer.send(campaign, recipient, identity);
  } catch (error) {
    return { kind: 'render_failed', reason: (error as Error).message };
  }
}

/** Every recipient of the request, as many at once as this thread's share of the pool has connections. */
async function handle(request: SendRequest): Promise<ThreadReply> {
  let campaign = campaigns.get(request.campaignId);
  if (request.campaign) {
    if (campaigns.size >= CAMPAIGNS_PER_THREAD) campaigns.delete(campaigns.keys().next().value!);
    try {
      campaign = prepareCampaign(request.campaign);
    } catch (error) {
      const reason = (error as Error).message;
      return { kind: 'outcomes', outcomes: request.recipients.map(() => ({ kind: 'render_failed', reason })) };
    }
    campaigns.set(request.campaignId, campaign);
  }
  if (!campaign) return { kind: 'campaign_needed' };
  const prepared = campaign;
  const outcomes = new Array<ThreadOutcome>(request.recipients.length);
  let next = 0;
  const worker = async () => {
    while (next < request.recipients.length) {
      const i = next++;
      outcomes[i] = await sendOne(request.id, prepared, request.recipients[i], request.identity);
    }
  };
  inProgress.add(request.id);
  try {
    await Promise.all(Array.from({ length: Math.min(data.sending.poolSize, request.recipients.length) }, worker));
  } finally {
    inProgress.delete(request.id);
    halted.delete(request.id);
  }
  return { kind: 'outcomes', outcomes };
}

/** Transactional messages: each built whole here (its content came with the request) and sent as the campaigns' are. */
async function handleTransactional(request: TransactionalRequest): Promise<ThreadReply> {
  const contents = new Map(request.contents.map((c) => [c.id, c]));
  const outcomes = new Array<ThreadOutcome>(request.mails.length);
  let next = 0;
  const worker = async () => {
    while (next < request.mails.length) {
      const i = next++;
      const mail = request.mails[i];
      try {
        await pacer.wait();
        const identity = request.identities[request.identityOf[mail.contentId]] ?? null;
        outcomes[i] = await mailer.sendTransactional(contents.get(mail.contentId)!, mail, identity);
      } catch (error) {
        outcomes[i] = { kind: 'render_failed', reason: (error as Error).message };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(data.sending.poolSize, request.mails.length) }, worker));
  return { kind: 'outcomes', outcomes };
}

port.on('message', (message: SendRequest | TransactionalRequest | HaltRequest | 'close') => {
  if (message === 'close') {
    relays.close();
    void database?.end();
    port.close();
    return;
  }
  if ('halt' in message) {
    if (inProgress.has(message.halt)) halted.add(message.halt);
    return;
  }
  const reply = 'kind' in message ? handleTransactional(message) : handle(message);
  void reply.then((r) => port.postMessage({ id: message.id, reply: r }));
});
