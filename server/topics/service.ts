import type { components } from '../../generated/openapi.d.ts';
import type { Transactions } from '../db/transactions.ts';
import type { Db } from '../db/kysely.ts';
import { append } from '../events/outbox.ts';
import { contactJson, type ContactJson } from '../contacts/json.ts';
import { SHOWN_CONTACT_COLUMNS } from '../contacts/repository.ts';
import { decodeCursor, toPage, type Page } from '../contract/pagination.ts';
import { conflict, notFound, validationFailed } from '../contract/problem.ts';
import { optouts, topics, type TopicListed } from './store.ts';

type TopicJson = components['schemas']['Topic'];
type TopicCreate = components['schemas']['TopicCreate'];
type TopicUpdate = components['schemas']['TopicUpdate'];
type ContactTopicOptouts = components['schemas']['ContactTopicOptouts'];

const topicJson = (t: TopicListed): TopicJson => ({
  id: t.id,
  name: t.name,
  description: t.description,
  created_at: t.created_at.toISOString(),
  updated_at: t.updated_at.toISOString(),
});

const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;

/** A contact as its events show it, read for a change made outside the contacts service. */
export async function contactForEvent(db: Db, accountId: string, contactId: string): Promise<ContactJson | null> {
  const row = await db.selectFrom('contacts').select(SHOWN_CONTACT_COLUMNS).where('account_id', '=', accountId).where('id', '=', contactId).executeTakeFirst();
  return row ? contactJson(row) : null;
}

/** Clears, in the deleting transaction, the topic of the campaigns that name one being deleted. */
export type ClearTopic = (db: Db, accountId: string, topicId: string) => Promise<void>;

/** Unsubscribe topics and contacts' opt-outs through the API. */
export class TopicService {
  private readonly transactions: Transactions;
  private readonly db: Db;
  private readonly clearTopic: ClearTopic;

  constructor(transactions: Transactions, db: Db, clearTopic: ClearTopic) {
    this.transactions = transactions;
    this.db = db;
    this.clearTopic = clearTopic;
  }

  private async exists(accountId: string, name: string): Promise<Error> {
    const id = await topics.idByName(this.db, accountId, name);
    return conflict('topic_exists', `A topic named ${name} exists.`, { existing_id: id ?? 'unknown' });
  }

  async create(accountId: string, input: TopicCreate): Promise<TopicJson> {
    const name = input.name.trim();
    if (!name) throw validationFailed([{ pointer: '/name', detail: 'must not be blank' }]);
    const created = await topics.insert(this.db, { account_id: accountId, name, description: input.description ?? null });
    if (!created) throw await this.exists(accountId, name);
    return topicJson(created);
  }

  async list(accountId: string, limit: number, cursor?: string): Promise<Page<TopicJson>> {
    const rows = await topics.page(this.db, accountId, decodeCursor(cursor), limit);
    return toPage(rows, limit, (t) => ({ at: t.created_at, id: t.id }), topicJson);
  }

  async get(accountId: string, id: string): Promise<TopicJson> {
    const topic = await topics.byId(this.db, accountId, id);
    if (!topic) throw notFound('topic');
    return topicJson(topic);
  }

  async update(accountId: string, id: string, input: TopicUpdate): Promise<TopicJson> {
    const name = input.name?.trim();
    if (name === '') throw validationFailed([{ pointer: '/name', detail: 'must not be blank' }]);
    try {
      const updated = await topics.update(this.db, accountId, id, {
        ...(name !== undefined ? { name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
      });
      if (!updated) throw notFound('topic');
      return topicJson(updated);
    } catch (error) {
      if (name !== undefined && isUniqueViolation(error)) throw await this.exists(accountId, name);
      throw error;
    }
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.transactions.run(async (db) => {
      if (!(await topics.remove(db, accountId, id))) throw notFound('topic');
      await this.clearTopic(db, accountId, id);
    });
  }

  async contactOptouts(accountId: string, contactId: string): Promise<ContactTopicOptouts> {
    if (!(await contactForEvent(this.db, accountId, contactId))) throw notFound('contact');
    return { topic_ids: await optouts.ofContact(this.db, accountId, contactId) };
  }

  /** Replaces the topics a contact left; `contact.updated` (`changed: ["topic_optouts"]`) when they change. */
  async replaceContactOptouts(accountId: string, contactId: string, topicIds: string[]): Promise<ContactTopicOptouts> {
    const wanted = [...new Set(topicIds)];
    return this.transactions.run(async (db) => {
      const contact = await contactForEvent(db, accountId, contactId);
      if (!contact) throw notFound('contact');
      const known = wanted.length
        ? new Set((await db.selectFrom('topics').select('id').where('account_id', '=', accountId).where('id', 'in', wanted).execute()).map((r) => r.id))
        : new Set<string>();
      const unknown = topicIds.flatMap((id, i) => (known.has(id) ? [] : [{ pointer: `/topic_ids/${i}`, detail: 'is not a topic of this account' }]));
      if (unknown.length) throw validationFailed(unknown);
      if (await optouts.replace(db, accountId, contactId, wanted)) {
        await append(db, accountId, [{ type: 'contact.updated', data: { contact, changed: ['topic_optouts'] } }]);
      }
      return { topic_ids: await optouts.ofContact(db, accountId, contactId) };
    });
  }
}
