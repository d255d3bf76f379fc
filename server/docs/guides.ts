/**
 * The guides of the reference (docs/guides/*.md) and, after them, its topic pages (docs/*.md):
 * markdown after the contract's own description, which the reference at /docs renders as its
 * introduction, one section a page. The errors guide's catalogue is the contract's
 * (`ProblemCode`), so that it lists every code there is.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OpenApiDocument } from '../contract/document.ts';
import { problemCatalogue } from '../contract/problem-codes.ts';
import { titleOf } from '../contract/problem.ts';

const GUIDES = fileURLToPath(new URL('../../docs/guides/', import.meta.url));
const TOPICS = fileURLToPath(new URL('../../docs/', import.meta.url));

/** The guides, in the order a reader needs them. */
export const GUIDE_FILES = ['quickstart.md', 'authentication.md', 'pagination.md', 'errors.md', 'webhooks.md', 'rate-limits.md', 'idempotency.md'];

/** The topic pages, one topic each: the API's, then what is sent and recorded, then running the server and its code. */
export const TOPIC_FILES = [
  'api.md',
  'sdks.md',
  'reference.md',
  'contacts.md',
  'imports.md',
  'custom-fields.md',
  'segments.md',
  'tags.md',
  'lists.md',
  'suppressions.md',
  'topics.md',
  'exports.md',
  'personal-data.md',
  'campaigns.md',
  'templates.md',
  'automations.md',
  'sending.md',
  'sending-domains.md',
  'transactional-email.md',
  'smtp-submission.md',
  'tracking.md',
  'analytics.md',
  'events.md',
  'event-stream.md',
  'dashboard.md',
  'platforms.md',
  'configuration.md',
  'secrets.md',
  'processes.md',
  'operations.md',
  'scale-out.md',
  'background-work.md',
  'upgrades-and-backups.md',
  'layout.md',
  'data-ownership.md',
  'testing.md',
];

/** Where errors.md wants the catalogue. */
const CATALOGUE = '<!-- catalogue -->';

function catalogue(doc: OpenApiDocument): string {
  const rows = problemCatalogue(doc)
    .sort((x, y) => x.status - y.status || x.code.localeCompare(y.code))
    .map(({ code, status, meaning }) => `| \`${code}\` | ${status} ${titleOf(status)} | ${meaning.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  return ['| `code` | Status | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** Sendline's own pages beside the reference: the dashboard and the error catalogue. */
export const LINKS = '[Dashboard](/app) · [Error codes](/docs/errors)';

/** Every guide, then every topic page, as one markdown text, after the links. */
export function guides(doc: OpenApiDocument): string {
  const texts = GUIDE_FILES.map((file) =>
    readFileSync(GUIDES + file, 'utf8')
      .replace(CATALOGUE, () => catalogue(doc))
      .trim(),
  );
  const topics = TOPIC_FILES.map((file) => readFileSync(TOPICS + file, 'utf8').trim());
  return [LINKS, ...texts, ...topics].join('\n\n');
}

/** How each SDK installs, which the reference shows beside the language of the samples (`lang` as theirs). */
export const SDK_INSTALLATION = [
  { lang: 'python', description: 'The `sendline` package, Python 3.9 or later.', source: 'pip install sendline' },
  { lang: 'javascript', description: 'The `@sendline/sdk` package, Node.js 20 or later.', source: 'npm install @sendline/sdk' },
  { lang: 'php', description: 'The `sendline/sendline` package, PHP 8.1 or later.', source: 'composer require sendline/sendline' },
  { lang: 'ruby', description: 'The `sendline` gem, Ruby 3.1 or later.', source: 'gem install sendline' },
];

/** A copy of the document whose description goes on with the guides. */
export function withGuides(doc: OpenApiDocument): OpenApiDocument {
  const info = (doc.info ?? {}) as { description?: string };
  const description = [info.description?.trim(), guides(doc)].filter(Boolean).join('\n\n');
  return { ...doc, info: { ...info, description, 'x-scalar-sdk-installation': SDK_INSTALLATION } };
}
