import type { components } from '../../generated/openapi.d.ts';
import { sqlOf } from '../db/kysely.ts';
import type { EntityManager } from '../db/orm.ts';
import { toPage, decodeCursor } from '../contract/pagination.ts';
import { EVENT_DESCRIPTIONS } from './catalogue.ts';
import { EVENT_TYPES } from './types.ts';
import { eventEnvelope } from './envelope.ts';

/** The outbox, read back: recent events of an account and the catalogue. */
export class EventService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /** Newest first; `type` is a type, a category (`email.*`) or `*`. */
  async list(
    accountId: string,
    type: string | undefined,
    since: string | undefined,
    limit: number,
    cursor?: string,
  ): Promise<components['schemas']['EventPage']> {
    const after = decodeCursor(cursor);
    let query = sqlOf(this.em)
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'account_id', 'data'])
      .where('account_id', '=', accountId)
      .orderBy('seq', 'desc')
      .limit(limit + 1);
    if (type && type !== '*') query = type.endsWith('.*') ? query.where('type', 'like', `${type.slice(0, -1)}%`) : query.where('type', '=', type);
    if (since) query = query.where('created_at', '>=', new Date(since));
    if (after) {
      query = query.where('seq', '<', (eb) => eb.selectFrom('events').select('seq').where('id', '=', after.id).where('account_id', '=', accountId));
    }
    return toPage(await query.execute(), limit, (e) => ({ at: e.created_at, id: e.id }), eventEnvelope);
  }

  types(): { data: components['schemas']['EventType'][] } {
    return { data: EVENT_TYPES.map((type) => ({ type, description: EVENT_DESCRIPTIONS[type] })) };
  }
}
