/** Where a campaign's content comes from: written here, or one of the account's templates (`template_id`). */
import { useQuery } from '@tanstack/react-query';
import { api } from '../session.ts';

export function TemplatePicker({ value, onChange, name }: { value: string | null; onChange: (templateId: string | null) => void; name?: string }) {
  const templates = useQuery({ queryKey: ['templates', 'picker'], queryFn: () => api().templates.list({ limit: 100 }).firstPage() });
  const chosen = templates.data?.data.find((template) => template.id === value);
  return (
    <label>
      Content from
      <select name={name} value={value ?? ''} onChange={(event) => onChange(event.target.value || null)}>
        <option value="">Written here</option>
        {templates.data?.data.map((template) => (
          <option key={template.id} value={template.id}>
            Template: {template.name}
            {template.published_version === null ? ' (not published yet)' : ''}
          </option>
        ))}
      </select>
      {chosen && (
        <span className="muted">
          {chosen.published_version === null
            ? 'Publish a version of the template before sending.'
            : `Sends the template’s subject and content as published (now version ${chosen.published_version}) when sending starts.`}
        </span>
      )}
    </label>
  );
}
