/** The event catalogue (`GET /events/types`) as checkboxes, grouped by category, for webhooks and the live feed. */
import type { components } from '@sendline/sdk';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { api } from './session.ts';
import { ErrorMessage, Loading } from './ui.tsx';

export type EventType = components['schemas']['EventType'];

export function useEventTypes() {
  // The catalogue changes only with a new server version.
  return useQuery({ queryKey: ['event-types'], queryFn: () => api().events.types(), staleTime: Infinity });
}

/** `email.opened` → `email`. */
export const categoryOf = (type: string) => type.split('.')[0];

function byCategory(types: EventType[]): [string, EventType[]][] {
  const groups = new Map<string, EventType[]>();
  for (const type of types) {
    const category = categoryOf(type.type);
    groups.set(category, [...(groups.get(category) ?? []), type]);
  }
  return [...groups];
}

/**
 * Checkboxes of every event type, with one per category (`email.*`) and, when `allowAll`, one for
 * every event (`*`). `selected` holds the chosen types and patterns as the API takes them.
 */
export function EventTypePicker({
  legend,
  selected,
  onChange,
  allowAll,
}: {
  legend: string;
  selected: string[];
  onChange: (selected: string[]) => void;
  allowAll?: boolean;
}) {
  const types = useEventTypes();
  const hintId = useId();
  const has = (value: string) => selected.includes(value);
  // Choosing a category (or every event) replaces the types it covers.
  const covers = (pattern: string, item: string) => pattern === '*' || (pattern.endsWith('.*') && categoryOf(item) === categoryOf(pattern));
  const toggle = (value: string, on: boolean) =>
    onChange(on ? [...selected.filter((item) => item !== value && !covers(value, item)), value] : selected.filter((item) => item !== value));
  if (types.isPending) return <Loading label="Loading the event types…" />;
  if (types.error) return <ErrorMessage error={types.error} retry={() => void types.refetch()} />;
  const all = allowAll && has('*');
  return (
    <fieldset className="event-types" aria-describedby={hintId}>
      <legend>{legend}</legend>
      <p id={hintId} className="muted">
        A category includes the types it will gain later.
      </p>
      {allowAll && (
        <label className="inline">
          <input type="checkbox" checked={has('*')} onChange={(event) => toggle('*', event.target.checked)} /> Every event (<code>*</code>)
        </label>
      )}
      {byCategory(types.data?.data ?? []).map(([category, members]) => {
        const whole = all || has(`${category}.*`);
        return (
          <div key={category} className="event-group" role="group" aria-label={`${category} events`}>
            <label className="inline">
              <input type="checkbox" checked={whole} disabled={all} onChange={(event) => toggle(`${category}.*`, event.target.checked)} /> Every{' '}
              <code>{category}.*</code> event
            </label>
            {members.map((type) => (
              <label key={type.type} className="inline" title={type.description}>
                <input type="checkbox" checked={whole || has(type.type)} disabled={whole} onChange={(event) => toggle(type.type, event.target.checked)} />{' '}
                {type.type}
              </label>
            ))}
          </div>
        );
      })}
    </fieldset>
  );
}
