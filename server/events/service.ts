import type { Pool } from '../db/pool.ts';
import { toPage, decodeCursor } from '../http/pagination.ts';
import { EVENT_DESCRIPTIONS } from './catalogue.ts';
import { EVENT_TYPES } from './outbox.ts';
import { ENVELOPE_COLUMNS, eventEnvelope } from './envelope.ts';

/** The outbox, read back: recent events of an account and the catalogue. */
export class EventService {
  private readonly pool: Pool;

  constructor(pool: Pool) {
    this.pool = pool;
  }

  async list(accountId: string, type: string | undefined, since: string | undefined, limit: number, cursor?: string) {
    const after = decodeCursor(cursor);
    const params: unknown[] = [accountId];
    const where = ['account_id = $1'];
    if (type && type !== '*') {
      params.push(type.endsWith('.*') ? `${type.slice(0, -1)}%` : type);
      where.push(type.endsWith('.*') ? `type like $${params.length}` : `type = $${params.length}`);
    }
    if (since) {
      params.push(since);
      where.push(`created_at >= $${params.length}`);
    }
    if (after) {
      params.push(after.id, accountId);
      where.push(`seq < (select seq from events where id = $${params.length - 1} and account_id = $${params.length})`);
    }
    params.push(limit + 1);
    const { rows } = await this.pool.query(
      `select ${ENVELOPE_COLUMNS} from events where ${where.join(' and ')} order by seq desc limit $${params.length}`,
      params,
    );
    return toPage(rows, limit, (e) => ({ at: e.created_at, id: e.id }), eventEnvelope);
  }

  types() {
    return { data: EVENT_TYPES.map((type) => ({ type, description: EVENT_DESCRIPTIONS[type] })) };
  }
}
