import type { components } from '../../generated/openapi.d.ts';
import { newId } from '../db/ids.ts';
import { sqlOf, type Db } from '../db/kysely.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Transactions } from '../db/transactions.ts';
import { decodeCursor, toPage } from '../contract/pagination.ts';
import { conflict, notFound, Problem, validationFailed } from '../contract/problem.ts';
import type { TemplateOutcome, TemplateThread } from '../rendering/template-thread.ts';
import { contactScope } from '../rendering/contact-scope.ts';
import { sendTests, type TestContacts, type TestSending } from '../sending/test-sends.ts';
import {
  MAX_PARTIAL_DEPTH,
  MAX_PARTIALS,
  type RenderedTemplate,
  type TemplateBundle,
  type TemplateFieldError,
  type TemplateSources,
} from '../rendering/liquid.ts';
import { isNameTaken, templates, versions, type TemplateColumns, type VersionColumns } from './store.ts';

type TemplateCreate = components['schemas']['TemplateCreate'];
type TemplateUpdate = components['schemas']['TemplateUpdate'];
type RenderRequest = components['schemas']['TemplateRenderRequest'];
type TestRequest = components['schemas']['TemplateTestRequest'];

export const templateJson = (t: TemplateColumns): components['schemas']['Template'] => ({
  id: t.id,
  name: t.name,
  description: t.description,
  subject: t.subject,
  html: t.html,
  text: t.text,
  published_version: t.published_version,
  created_at: t.created_at.toISOString(),
  updated_at: t.updated_at.toISOString(),
});

export const versionJson = (v: VersionColumns): components['schemas']['TemplateVersion'] => ({
  id: v.id,
  template_id: v.template_id,
  version: v.version,
  subject: v.subject,
  html: v.html,
  text: v.text,
  partials: Object.keys(v.partials).sort(),
  created_at: v.created_at.toISOString(),
});

export const templateError = (errors: TemplateFieldError[]) => new Problem(422, 'template_error', 'The template does not parse or render.', { errors });

/** The template thread's answer, or its errors as a 422. A thread that fails (a job over its time limit) is a template error too. */
async function settled<T>(job: Promise<TemplateOutcome<T>>): Promise<T> {
  const answer = await job.catch((error: Error): TemplateOutcome<T> => ({
    errors: [{ pointer: '/html', detail: `could not be processed: ${error.message}` }],
  }));
  if ('errors' in answer) throw templateError(answer.errors);
  return answer.ok;
}

/**
 * The latest published version of every partial and layout `names` call, and of those they
 * call in turn, breadth first: one query per level. Names not found are left out (compiling
 * says which); the depth and count limits bound the walk.
 */
async function publishedPartials(db: Db, accountId: string, names: string[]): Promise<TemplateBundle['partials']> {
  const found: TemplateBundle['partials'] = {};
  const asked = new Set(names);
  let level = names;
  for (let depth = 0; level.length && depth <= MAX_PARTIAL_DEPTH && asked.size <= MAX_PARTIALS + 1; depth++) {
    const next: string[] = [];
    for (const row of await templates.publishedNamed(db, accountId, level)) {
      found[row.name.toLowerCase()] = { html: row.html, text: row.text };
      for (const name of row.partial_names) {
        if (asked.has(name)) continue;
        asked.add(name);
        next.push(name);
      }
    }
    level = next;
  }
  return found;
}

/** A published version as a bundle: its partials were frozen with it. */
const versionBundle = (v: VersionColumns): TemplateBundle => ({ subject: v.subject, html: v.html, text: v.text, partials: v.partials });

/**
 * Locks the account's template `id` for the rest of `tx`'s transaction, so that it cannot be
 * deleted under a campaign taking it up; false when the account has no such template.
 */
export async function shareTemplate(tx: Db, accountId: string, id: string): Promise<boolean> {
  return (await templates.lock(tx, accountId, id, 'share')) !== undefined;
}

/**
 * What a template sends: `version`, or the latest published one when undefined, with the
 * number it resolved to. 400 when the template has no such version (the field at fault at `pointer`).
 */
export async function publishedBundle(
  db: Db,
  accountId: string,
  templateId: string,
  version: number | undefined,
  pointers: { template: string; version: string } = { template: '/template_id', version: '/template_version' },
): Promise<{ version: VersionColumns; bundle: TemplateBundle }> {
  const row = await versions.resolve(db, accountId, templateId, version ?? null);
  if (row) return { version: row, bundle: versionBundle(row) };
  // Which of the two is missing, for the answer only.
  const template = await templates.byId(db, accountId, templateId);
  if (!template) throw validationFailed([{ pointer: pointers.template, detail: 'no template of this account has this id' }]);
  if (version === undefined) throw validationFailed([{ pointer: pointers.template, detail: 'the template has no published version: publish it first' }]);
  throw validationFailed([{ pointer: pointers.version, detail: `the template has no version ${version}` }]);
}

/**
 * Renders an account's template for a transactional email: `version`, or the latest published
 * one. Answers the rendered parts, or the Problem to answer (400 for a template or version the
 * account lacks, 422 `template_error` with line and column for one that does not render).
 */
export async function renderTemplate(
  em: EntityManager,
  thread: TemplateThread,
  accountId: string,
  templateId: string,
  version: number | undefined,
  data: Record<string, unknown>,
): Promise<RenderedTemplate | Problem> {
  try {
    const { version: row, bundle } = await publishedBundle(sqlOf(em), accountId, templateId, version, {
      template: '/template_id',
      version: '/template_version',
    });
    return await settled(thread.renderTemplate(bundle, data, row.id));
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
}

/**
 * Renders a template's published `version` for one automation email, with `subject` in place of
 * the template's when given. Answers the parts, or why it cannot be rendered.
 */
export async function renderVersion(
  db: Db,
  thread: TemplateThread,
  accountId: string,
  templateId: string,
  version: number,
  subject: string | undefined,
  data: Record<string, unknown>,
): Promise<RenderedTemplate | { error: string }> {
  try {
    const { version: row, bundle } = await publishedBundle(db, accountId, templateId, version);
    return await settled(thread.renderTemplate(subject === undefined ? bundle : { ...bundle, subject }, data, subject === undefined ? row.id : null));
  } catch (error) {
    if (error instanceof Problem) return { error: error.errors?.map((e) => e.detail).join('; ') || error.message };
    throw error;
  }
}

/** The number of a template's latest published version; null when it has none (or there is no such template). */
export async function latestPublished(db: Db, accountId: string, templateId: string): Promise<number | null> {
  return (await versions.resolve(db, accountId, templateId, null))?.version ?? null;
}

/** Control characters are refused here: a pattern that says so would need escapes some SDKs' generators mangle. */
function checkName(name: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw validationFailed([{ pointer: '/name', detail: 'must not hold control characters' }]);
}

export class TemplateService {
  private readonly em: EntityManager;
  private readonly transactions: Transactions;
  private readonly thread: TemplateThread;
  private readonly testSending: TestSending;
  private readonly contacts: TestContacts;

  constructor(em: EntityManager, transactions: Transactions, thread: TemplateThread, testSending: TestSending, contacts: TestContacts) {
    this.em = em;
    this.transactions = transactions;
    this.thread = thread;
    this.testSending = testSending;
    this.contacts = contacts;
  }

  private get db(): Db {
    return sqlOf(this.em);
  }

  /** Parsed in the template thread (1 MB of hostile Liquid takes a while): 422 with positions, or the names it calls. */
  private async check(sources: TemplateSources): Promise<string[]> {
    const { errors, partialNames } = await this.thread
      .checkTemplate(sources)
      .catch((error: Error) => ({ errors: [{ pointer: '/html', detail: `could not be checked: ${error.message}` }], partialNames: [] }));
    if (errors.length) throw templateError(errors);
    return partialNames;
  }

  private async nameTaken(accountId: string, name: string): Promise<Problem> {
    const existing = await templates.named(this.db, accountId, name);
    return conflict('template_name_taken', 'Another template of the account has this name.', existing ? { existing_id: existing } : undefined);
  }

  async create(accountId: string, input: TemplateCreate): Promise<TemplateColumns> {
    checkName(input.name);
    const sources = { subject: input.subject ?? '', html: input.html ?? '', text: input.text ?? null };
    const partialNames = await this.check(sources);
    try {
      return await templates.create(this.db, {
        id: newId('tpl'),
        account_id: accountId,
        name: input.name,
        description: input.description ?? null,
        ...sources,
        partial_names: partialNames,
      });
    } catch (error) {
      if (isNameTaken(error)) throw await this.nameTaken(accountId, input.name);
      throw error;
    }
  }

  async list(accountId: string, limit: number, cursor?: string) {
    const rows = await templates.page(this.db, accountId, decodeCursor(cursor), limit);
    return toPage(rows, limit, (t) => ({ at: t.created_at, id: t.id }), templateJson);
  }

  async get(accountId: string, id: string): Promise<TemplateColumns> {
    const template = await templates.byId(this.db, accountId, id);
    if (!template) throw notFound('template');
    return template;
  }

  async update(accountId: string, id: string, input: TemplateUpdate): Promise<TemplateColumns> {
    const current = await this.get(accountId, id);
    if (input.name !== undefined) checkName(input.name);
    const sources = { subject: input.subject ?? current.subject, html: input.html ?? current.html, text: input.text === undefined ? current.text : input.text };
    const partialNames = await this.check(sources);
    try {
      const updated = await templates.update(this.db, accountId, id, {
        ...sources,
        partial_names: partialNames,
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.description === undefined ? {} : { description: input.description }),
      });
      if (!updated) throw notFound('template');
      return updated;
    } catch (error) {
      if (isNameTaken(error)) throw await this.nameTaken(accountId, input.name ?? current.name);
      throw error;
    }
  }

  /** Locked against campaigns taking it up meanwhile: one that did first keeps it. */
  async delete(accountId: string, id: string): Promise<void> {
    await this.transactions.run(async (db) => {
      const template = await templates.lock(db, accountId, id, 'update');
      if (!template) throw notFound('template');
      if (await templates.usedByUnfinishedCampaign(db, accountId, id))
        throw conflict('template_in_use', 'A campaign that has not finished uses this template.');
      await templates.remove(db, accountId, id);
    });
  }

  /** The draft's bundle: the latest published version of each partial and layout it calls. */
  private async draftBundle(template: TemplateColumns): Promise<TemplateBundle> {
    return {
      subject: template.subject,
      html: template.html,
      text: template.text,
      partials: await publishedPartials(this.db, template.account_id, template.partial_names),
    };
  }

  /** Frozen with its partials in the template thread, then numbered under the template's lock: two publishes make two versions. */
  async publish(accountId: string, id: string): Promise<VersionColumns> {
    const draft = await this.get(accountId, id);
    const frozen = await settled(this.thread.freezeTemplate(await this.draftBundle(draft)));
    return this.transactions.run(async (db) => {
      const template = await templates.lock(db, accountId, id, 'update');
      if (!template) throw notFound('template');
      // Edited meanwhile: publish what was checked, not the edit.
      const checked = { ...template, subject: draft.subject, html: draft.html, text: draft.text };
      return versions.publish(db, checked, { id: newId('tpv'), partials: frozen, partial_names: draft.partial_names });
    });
  }

  async versions(accountId: string, id: string, limit: number, cursor?: string) {
    await this.get(accountId, id);
    const rows = await versions.page(this.db, accountId, id, decodeCursor(cursor), limit);
    return toPage(rows, limit, (v) => ({ at: v.created_at, id: v.id }), versionJson);
  }

  async version(accountId: string, id: string, number: number): Promise<VersionColumns> {
    const row = await versions.byNumber(this.db, accountId, id, number);
    if (!row) throw notFound('template version');
    return row;
  }

  /** The draft's bundle, or a published version's (with its id, which keeps it compiled in the thread). */
  async bundle(accountId: string, id: string, version: number | undefined): Promise<{ bundle: TemplateBundle; cacheKey: string | null }> {
    const template = await this.get(accountId, id);
    if (version === undefined) return { bundle: await this.draftBundle(template), cacheKey: null };
    const { version: row, bundle } = await publishedBundle(this.db, accountId, id, version, { template: 'path.id', version: '/version' });
    return { bundle, cacheKey: row.id };
  }

  /** The variables of a render: `data`, then the contact's (which win). 422 `contact_not_found` for a contact the account lacks. */
  async scope(accountId: string, contactId: string | undefined, data: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    if (contactId === undefined) return { ...data };
    const contact = await this.db
      .selectFrom('contacts')
      .select(['email', 'first_name', 'last_name', 'tags', 'attributes'])
      .where('id', '=', contactId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!contact)
      throw new Problem(422, 'contact_not_found', 'No contact of the account has this id.', { errors: [{ pointer: '/contact_id', detail: 'not found' }] });
    return { ...data, ...contactScope(contact) };
  }

  async render(accountId: string, id: string, request: RenderRequest): Promise<RenderedTemplate> {
    const { bundle, cacheKey } = await this.bundle(accountId, id, request.version);
    const scope = await this.scope(accountId, request.contact_id, request.data);
    return settled(this.thread.renderTemplate(bundle, scope, cacheKey));
  }

  /**
   * A campaign's test send of the draft (or `version`): rendered once first so that a template
   * error answers 422 with its position rather than a refusal per address.
   */
  async test(accountId: string, id: string, request: TestRequest) {
    const template = await this.get(accountId, id);
    const { bundle, cacheKey } = await this.bundle(accountId, id, request.version);
    await settled(this.thread.renderTemplate(bundle, { ...request.data }, cacheKey));
    const content = {
      id: template.id,
      name: template.name,
      subject: '',
      content: '',
      textContent: null,
      preheader: null,
      fromEmail: request.from_email,
      fromName: request.from_name ?? null,
      replyTo: null,
      trackOpens: false,
      trackClicks: false,
      template: bundle,
      templateData: request.data ?? null,
    };
    return sendTests(this.contacts, this.testSending, accountId, content, request.emails);
  }
}
