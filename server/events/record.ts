import type { EntityManager } from '../db/orm.ts';
import { newId } from '../db/ids.ts';
import { Event, type EventRow } from './entities.ts';
import type { EventData, EventType } from './outbox.ts';

/**
 * Adds an event to the unit of work of `em`: it is written by the same flush, in the same
 * transaction, as the change it describes, and so exists exactly when that change does.
 */
export function recordEvent<T extends EventType>(em: EntityManager, accountId: string, type: T, data: EventData<T>): EventRow {
  return em.create(Event, { id: newId('evt'), accountId, type, data });
}
