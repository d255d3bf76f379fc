import type { Db } from '../db/kysely.ts';
import type { PendingEvent } from '../events/types.ts';
import { isMachineOpen } from '../tracked-links/classify.ts';
import { transactionalEventData } from './events.ts';
import { emails, type EmailRef } from './store.ts';

/** Transactional ids: the tracking routes' tokens and bounce addresses carry them as campaigns' do. */
export const isTransactionalId = (id: string) => id.startsWith('em_');

export interface EngagementHit {
  messageId: string;
  at: Date;
  userAgent: string | null;
  /** Present for clicks. */
  click?: { link: number; url: string };
}

/**
 * Opens and clicks of transactional messages, in the tracking batch's transaction: the firsts
 * on the messages and `email.opened`/`email.clicked` with their tags and metadata. Campaign
 * statistics and rollups are campaigns' only; these messages count in none. A copy whose
 * recipient was erased is left as the erasure left it.
 */
export async function recordEngagement(db: Db, hits: EngagementHit[], machineOpenSeconds: number): Promise<Map<string, PendingEvent[]>> {
  const events = new Map<string, PendingEvent[]>();
  if (!hits.length) return events;
  const refs = new Map((await emails.lockRefs(db, [...new Set(hits.map((h) => h.messageId))].sort())).map((r) => [r.id, r]));
  const changed = new Set<string>();
  const emit = (accountId: string, event: PendingEvent) => events.set(accountId, [...(events.get(accountId) ?? []), event]);
  for (const hit of hits) {
    const m = refs.get(hit.messageId);
    // A copy whose recipient was erased (no address) records no more hits, as campaign messages.
    if (!m || m.email === '') continue;
    const base = transactionalEventData(m);
    if (!hit.click || !m.opened_at) {
      const machine = isMachineOpen(hit.userAgent, hit.at.getTime(), m.sent_at?.getTime() ?? null, machineOpenSeconds);
      const first = !m.opened_at;
      if (first) m.opened_at = hit.at;
      if (!machine && !m.human_opened_at) m.human_opened_at = hit.at;
      changed.add(m.id);
      emit(m.account_id, { type: 'email.opened', data: { ...base, first_open: first, machine, user_agent: hit.userAgent } });
    }
    if (hit.click) {
      const first = !m.clicked_at;
      if (first) m.clicked_at = hit.at;
      if (!m.clicked_links.includes(hit.click.link)) m.clicked_links = [...m.clicked_links, hit.click.link];
      changed.add(m.id);
      emit(m.account_id, { type: 'email.clicked', data: { ...base, url: hit.click.url, first_click: first, user_agent: hit.userAgent } });
    }
  }
  await emails.markEngaged(
    db,
    [...changed].map((id) => {
      const m = refs.get(id)!;
      return { id, accountId: m.account_id, openedAt: m.opened_at, humanOpenedAt: m.human_opened_at, clickedAt: m.clicked_at, clickedLinks: m.clicked_links };
    }),
  );
  return events;
}

/** What a bounce or complaint report changes of a transactional copy, in the report's transaction. */
export const transactionalFeedback = {
  /** The copy, locked; undefined when there is none of that id. */
  async lock(db: Db, id: string): Promise<EmailRef | undefined> {
    const [copy] = await emails.lockRefs(db, [id]);
    return copy;
  },
  /** The copy as the unsubscribe page shows it; undefined when there is none of that id. */
  find: (db: Db, id: string): Promise<EmailRef | undefined> => emails.refs(db, [id]).then(([copy]) => copy),
  markBounced: (db: Db, accountId: string, id: string, reason: string | null, at: Date) => emails.markBounced(db, accountId, id, reason, at),
  /** True for the copy's first complaint. */
  markComplained: (db: Db, accountId: string, id: string, at: Date) => emails.markComplained(db, accountId, id, at),
  /** True for the copy's first unsubscribe (automation copies carry a link). */
  markUnsubscribed: (db: Db, accountId: string, id: string, at: Date) => emails.markUnsubscribed(db, accountId, id, at),
};
