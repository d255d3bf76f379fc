/** The template thread: checks, compiles and renders campaign templates off the thread that answers requests. */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { prepareCampaign, renderArchived, renderWebVersion, testMessage } from './campaign-message.ts';
import { TokenSigner } from '../tracked-links/tokens.ts';
import { VerpTokens } from '../tracked-links/verp.ts';
import type { Addressing } from './addressing.ts';
import { templateErrors } from './campaign-template.ts';
import { checkTemplate, compileBundle, renderCompiled, TemplateError, type CompiledTemplate } from './liquid.ts';
import { THREAD_READY, type TemplateAnswer, type TemplateJob, type TemplateThreadData, type TestMessageOrFailure } from './template-thread.ts';

// On Linux a nice value belongs to a thread, and 0 names the calling one: this thread gives way
// to the one answering requests when they compete for a core. (Elsewhere it would be the process's.)
if (process.platform === 'linux') setPriority(0, 10);

const data = workerData as TemplateThreadData;
const addressing: Addressing = { publicUrl: data.publicUrl, signer: new TokenSigner(data.secretKeys), verp: new VerpTokens(data.secretKeys) };
const port = parentPort!;

/** Published versions compiled lately, by version id: a version never changes. */
const compiledVersions = new Map<string, CompiledTemplate>();
const COMPILED_VERSIONS = 64;

function compiledFor(job: Extract<TemplateJob, { kind: 'template-render' }>): CompiledTemplate {
  const cached = job.cacheKey === null ? undefined : compiledVersions.get(job.cacheKey);
  if (cached) return cached;
  const compiled = compileBundle(job.bundle);
  if (job.cacheKey !== null) {
    if (compiledVersions.size >= COMPILED_VERSIONS) compiledVersions.delete(compiledVersions.keys().next().value!);
    compiledVersions.set(job.cacheKey, compiled);
  }
  return compiled;
}

/** Template errors come back as an answer with their positions; anything else fails the job. */
function outcome<T>(work: () => T): { ok: T } | { errors: TemplateError['errors'] } {
  try {
    return { ok: work() };
  } catch (error) {
    if (error instanceof TemplateError) return { errors: error.errors };
    throw error;
  }
}

function run(job: TemplateJob): unknown {
  if (job.kind === 'errors') return templateErrors(job.fields);
  if (job.kind === 'template-check') return checkTemplate(job.sources);
  if (job.kind === 'template-freeze') return outcome(() => compileBundle(job.bundle).frozen);
  if (job.kind === 'template-render') return outcome(() => renderCompiled(compiledFor(job), job.scope));
  if (job.kind === 'compile') {
    try {
      prepareCampaign(job.campaign);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }
  if (job.kind === 'web-version') return renderWebVersion(prepareCampaign(job.campaign), job.recipient, addressing);
  if (job.kind === 'archived') return renderArchived(prepareCampaign(job.campaign), job.meta);
  const campaign = prepareCampaign(job.campaign);
  return job.recipients.map((recipient): TestMessageOrFailure => {
    try {
      return testMessage(campaign, recipient, addressing, job.sender);
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
