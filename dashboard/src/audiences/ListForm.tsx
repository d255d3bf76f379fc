/** The fields of a list, for creating and editing it. */
import type { components } from '@sendline/sdk';
import { useState } from 'react';

export type ListDraft = components['schemas']['MailingListCreate'];

export function ListFields({ draft, onChange }: { draft: ListDraft; onChange: (draft: ListDraft) => void }) {
  const [doi, setDoi] = useState(Boolean(draft.double_opt_in));
  const set = (name: keyof ListDraft) => (event: { target: { value: string } }) => onChange({ ...draft, [name]: event.target.value });
  return (
    <>
      <label>
        Name
        <input value={draft.name} onChange={set('name')} required maxLength={200} />
      </label>
      <label>
        Description <span className="muted">(optional)</span>
        <input value={draft.description ?? ''} onChange={set('description')} maxLength={2000} />
      </label>
      <label className="inline">
        <input
          type="checkbox"
          checked={doi}
          onChange={(event) => {
            setDoi(event.target.checked);
            onChange({ ...draft, double_opt_in: event.target.checked });
          }}
        />
        Double opt-in: new members confirm by following a link first
      </label>
      {doi && (
        <div className="grid">
          <label>
            Confirmation sender (email)
            <input type="email" value={draft.from_email ?? ''} onChange={set('from_email')} required />
          </label>
          <label>
            Confirmation sender (name)
            <input value={draft.from_name ?? ''} onChange={set('from_name')} maxLength={200} />
          </label>
        </div>
      )}
    </>
  );
}

/** The draft as the API takes it: blanks become null. */
export function listBody(draft: ListDraft): ListDraft {
  return {
    name: draft.name.trim(),
    description: draft.description?.trim() || null,
    double_opt_in: Boolean(draft.double_opt_in),
    from_email: draft.from_email?.trim() || null,
    from_name: draft.from_name?.trim() || null,
  };
}
