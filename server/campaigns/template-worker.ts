/** The template thread: checks, compiles and renders campaign templates off the thread that answers requests. */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { testMessage } from '../sending/mailer.ts';
import { prepareCampaign } from '../sending/render.ts';
import { TokenSigner } from '../tracking/tokens.ts';
import { templateErrors } from './template.ts';
import { THREAD_READY, type TemplateAnswer, type TemplateJob, type TemplateThreadData, type TestMessageOrFailure } from './template-thread.ts';

// On Linux a nice value belongs to a thread, and 0 names the calling one: this thread gives way
// to the one answering requests when they compete for a core. (Elsewhere it would be the process's.)
if (process.platform === 'linux') setPriority(0, 10);

const data = workerData as TemplateThreadData;
const signer = new TokenSigner(data.secretKeys);
const port = parentPort!;

function run(job: TemplateJob): unknown {
  if (job.kind === 'errors') return templateErrors(job.fields);
  if (job.kind === 'compile') {
    try {
      prepareCampaign(job.campaign);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }
  const campaign = prepareCampaign(job.campaign);
  return job.recipients.map((recipient): TestMessageOrFailure => {
    try {
      return testMessage(campaign, recipient, data.publicUrl, signer);
    } catch (error) {
      return { failed: (error as Error).message };
    }
  });
}

port.on('message', ({ id, job }: { id: number; job: TemplateJob }) => {
  let answer: TemplateAnswer;
  try {
    answer = { id, result: run(job) };
  } catch (error) {
    answer = { id, error: (error as Error).message };
  }
  port.postMessage(answer);
});
port.postMessage(THREAD_READY);
