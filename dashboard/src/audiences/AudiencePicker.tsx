/** The campaign editor's choice of lists and segments for its audience. */
import type { components } from '@sendline/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from '../session.ts';

type Audience = components['schemas']['Audience'];

export function Choices({
  legend,
  items,
  chosen,
  onChange,
}: {
  legend: string;
  items: { id: string; name: string }[];
  chosen: string[];
  onChange: (ids: string[]) => void;
}) {
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      {items.map((item) => (
        <label key={item.id} className="inline">
          <input
            type="checkbox"
            checked={chosen.includes(item.id)}
            onChange={(event) => onChange(event.target.checked ? [...chosen, item.id] : chosen.filter((id) => id !== item.id))}
          />
          {item.name}
        </label>
      ))}
    </fieldset>
  );
}

export function AudiencePicker({ audience, onChange }: { audience: Audience | undefined; onChange: (audience: Audience) => void }) {
  const lists = useQuery({ queryKey: ['lists', 'choices'], queryFn: () => api().lists.list({ limit: 50 }).firstPage() });
  const segments = useQuery({ queryKey: ['segments', 'choices'], queryFn: () => api().segments.list({ limit: 20 }).firstPage() });
  const current = audience ?? {};
  return (
    <>
      {!!lists.data?.data.length && (
        <Choices
          legend="Audience: lists (their subscribed members)"
          items={lists.data.data}
          chosen={current.list_ids ?? []}
          onChange={(list_ids) => onChange({ ...current, list_ids })}
        />
      )}
      {!!segments.data?.data.length && (
        <Choices
          legend="Audience: segments"
          items={segments.data.data}
          chosen={current.segment_ids ?? []}
          onChange={(segment_ids) => onChange({ ...current, segment_ids })}
        />
      )}
    </>
  );
}
