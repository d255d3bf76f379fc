import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { EventTypePicker, categoryOf } from '../EventTypes.tsx';
import { useLiveConnected, useLiveEvents, type LiveEvent } from '../live.ts';
import { api } from '../session.ts';
import { Empty, ErrorMessage, PageHeader, formatDate } from '../ui.tsx';

/** Events kept in memory, newest first; older ones fall off. */
export const FEED_LIMIT = 500;
/** Recent events shown when the page opens, before any arrives live. */
const BACKLOG = 50;

/** Newest first, without duplicates (a reconnect replays what it missed), at most FEED_LIMIT. */
function merge(newer: LiveEvent[], older: LiveEvent[]): LiveEvent[] {
  const seen = new Set<string>();
  const merged: LiveEvent[] = [];
  for (const event of [...newer, ...older]) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    merged.push(event);
    if (merged.length === FEED_LIMIT) break;
  }
  return merged;
}

/** What the event is about, in a few words: the address, campaign or object it names. */
function subject(event: LiveEvent): string {
  const data = event.data as Record<string, unknown>;
  // Some payloads nest the object they are about (`data.contact`).
  const places = [data, ...Object.values(data).filter((value): value is Record<string, unknown> => typeof value === 'object' && value !== null)];
  for (const key of ['email', 'name', 'url', 'campaign_id', 'contact_id', 'import_id', 'webhook_id']) {
    for (const place of places) {
      const value = place[key];
      if (typeof value === 'string' && value) return value;
    }
  }
  return '';
}

export default function LiveEvents() {
  const connected = useLiveConnected();
  const [events, setEvents] = useState<LiveEvent[]>([]);
  const [held, setHeld] = useState<LiveEvent[]>([]);
  const [paused, setPaused] = useState(false);
  const [types, setTypes] = useState<string[]>([]);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

  // Fetched afresh each time the page opens (the feed starts empty then), never while it stays open.
  const backlog = useQuery({
    queryKey: ['events', 'backlog'],
    queryFn: () => api().events.list({ limit: BACKLOG }).firstPage(),
    staleTime: Infinity,
    gcTime: 0,
  });
  useEffect(() => {
    if (backlog.data) setEvents((current) => merge(current, backlog.data.data));
  }, [backlog.data]);

  useLiveEvents(
    useCallback((event: LiveEvent) => {
      if (pausedRef.current) setHeld((current) => merge([event], current));
      else setEvents((current) => merge([event], current));
    }, []),
  );

  const resume = () => {
    setEvents((current) => merge(held, current));
    setHeld([]);
    setPaused(false);
  };

  const shown = useMemo(() => {
    if (types.length === 0) return events;
    const wanted = new Set(types);
    return events.filter((event) => wanted.has(event.type) || wanted.has(`${categoryOf(event.type)}.*`));
  }, [events, types]);

  return (
    <>
      <PageHeader title="Live events">
        {paused ? (
          <button type="button" className="primary" onClick={resume}>
            Resume{held.length ? ` (${held.length} new)` : ''}
          </button>
        ) : (
          <button type="button" onClick={() => setPaused(true)}>
            Pause
          </button>
        )}
        <button
          type="button"
          onClick={() => {
            setEvents([]);
            setHeld([]);
          }}
        >
          Clear
        </button>
      </PageHeader>
      <p className="muted">
        The account’s events as they happen, newest first: the last {FEED_LIMIT} are kept while this page is open.{' '}
        {connected ? 'Connected.' : 'Reconnecting: events missed meanwhile are replayed.'}
      </p>
      <details className="card">
        <summary>Filter by type{types.length ? ` (${types.length} chosen)` : ': showing every type'}</summary>
        <EventTypePicker legend="Show only these types" selected={types} onChange={setTypes} />
        {types.length > 0 && (
          <button type="button" className="link" onClick={() => setTypes([])}>
            Show every type
          </button>
        )}
      </details>
      <ErrorMessage error={backlog.error} retry={() => void backlog.refetch()} />
      <p role="status" className="muted" data-testid="feed-count">
        {paused ? `Paused: ${held.length} new ${held.length === 1 ? 'event' : 'events'} held. ` : ''}
        {shown.length} of {events.length} {events.length === 1 ? 'event' : 'events'} shown.
      </p>
      {shown.length === 0 ? (
        <Empty title={events.length ? 'No event of the chosen types yet' : 'No events yet'}>
          <p>
            {events.length
              ? 'Choose more types in the filter, or wait for one to happen.'
              : 'Events appear here as they happen: import contacts, send a campaign or test a webhook to see some.'}
          </p>
        </Empty>
      ) : (
        <ol className="feed" aria-label="Events, newest first">
          {shown.map((event) => (
            <li key={event.id} data-testid="feed-event">
              <details>
                <summary>
                  <time dateTime={event.created_at}>{formatDate(event.created_at)}</time> <strong>{event.type}</strong> <span>{subject(event)}</span>
                </summary>
                <pre>{JSON.stringify(event, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
