/**
 * The campaign as one contact will see it: the contact searched by email or name, the content
 * rendered in the browser (inline content) or by the API (a template's version).
 */
import type { components } from '@sendline/sdk';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { renderPreview, type Preview } from '../preview.ts';
import { api } from '../session.ts';
import { errorText } from '../ui.tsx';

type Contact = components['schemas']['Contact'];
type Draft = components['schemas']['CampaignReplace'];

function ContactSearch({ chosen, onChoose }: { chosen: Contact | null; onChoose: (contact: Contact) => void }) {
  const [search, setSearch] = useState('');
  const q = search.trim();
  const found = useQuery({
    queryKey: ['contacts', 'preview-search', q],
    queryFn: () =>
      api()
        .contacts.list({ limit: 8, ...(q ? { q } : {}) })
        .firstPage(),
    placeholderData: (previous) => previous,
  });
  const first = found.data?.data[0];
  useEffect(() => {
    if (!chosen && first) onChoose(first);
  }, [chosen, first, onChoose]);
  return (
    <div className="stack">
      <label>
        Preview as <span className="muted">(search contacts by email or name)</span>
        <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} placeholder="ada@example.com" />
      </label>
      <ul className="contact-choices" aria-label="Contacts found">
        {found.data?.data.map((contact) => (
          <li key={contact.id}>
            <button type="button" className="link" aria-pressed={contact.id === chosen?.id} onClick={() => onChoose(contact)}>
              {contact.email}
            </button>
          </li>
        ))}
        {found.data?.data.length === 0 && <li className="muted">No contact matches; the preview uses a sample contact.</li>}
      </ul>
      <p className="muted" data-testid="preview-contact">
        Previewing as {chosen ? chosen.email : 'a sample contact (Ada Lovelace)'}
      </p>
    </div>
  );
}

/** The rendered preview of the draft for the contact: in the browser, or by the API for a template. */
function usePreview(draft: Draft, contact: Contact | null): Preview | null {
  const [inline, setInline] = useState<Preview | null>(null);
  const templateId = draft.template_id ?? null;
  const template = useQuery({
    queryKey: ['template-preview', templateId, draft.template_version, contact?.id],
    enabled: templateId !== null,
    queryFn: async (): Promise<Preview> => {
      const templates = api().templates;
      const version = draft.template_version ?? (await templates.get(templateId!)).published_version ?? undefined;
      const rendered = await templates.render(templateId!, { contact_id: contact?.id, version, data: draft.template_data ?? undefined });
      return { subject: rendered.subject, html: rendered.html, error: null };
    },
  });
  useEffect(() => {
    if (templateId !== null) return;
    let current = true;
    const timer = setTimeout(
      () =>
        void renderPreview(draft, contact).then((rendered) => {
          if (current) setInline(rendered);
        }),
      120,
    );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [draft, contact, templateId]);
  if (templateId === null) return inline;
  if (template.error) return { subject: '', html: '', error: errorText(template.error) };
  return template.data ?? null;
}

export function PreviewAs({ draft }: { draft: Draft }) {
  const [contact, setContact] = useState<Contact | null>(null);
  const preview = usePreview(draft, contact);
  const from = draft.from_name ? `${draft.from_name} <${draft.from_email}>` : draft.from_email;
  return (
    <section className="card stack" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <ContactSearch chosen={contact} onChoose={setContact} />
      {preview?.error ? (
        <div role="alert" className="error" data-testid="template-error">
          {preview.error}
        </div>
      ) : (
        <>
          <p>
            <strong>From:</strong> <span data-testid="preview-from">{from}</span>
            {draft.reply_to && <span className="muted"> (replies to {draft.reply_to})</span>}
            <br />
            <strong>Subject:</strong> <span data-testid="preview-subject">{preview?.subject}</span>
          </p>
          <iframe title="Email preview" className="preview" sandbox="" srcDoc={preview?.html ?? ''} />
        </>
      )}
    </section>
  );
}
