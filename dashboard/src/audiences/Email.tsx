import { useQuery } from '@tanstack/react-query';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { ErrorMessage, Loading, PageHeader, Status, formatDate } from '../ui.tsx';
import { useEmailEvents } from './Emails.tsx';

export default function EmailPage({ params }: { params: Record<string, string> }) {
  useEmailEvents();
  const email = useQuery({ queryKey: ['email', params.id], queryFn: () => api().emails.get(params.id) });
  if (email.isPending) return <Loading />;
  if (!email.data) return <ErrorMessage error={email.error} retry={() => void email.refetch()} />;
  const e = email.data;
  const rows: [string, string][] = [
    ['From', e.from_name ? `${e.from_name} <${e.from}>` : e.from],
    ['To', `${e.email} (${e.kind})`],
    ['Reason', e.reason ?? '—'],
    ['Attempts', String(e.attempts)],
    ['Tags', e.tags.join(', ') || '—'],
    [
      'Metadata',
      Object.entries(e.metadata)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ') || '—',
    ],
    ['Tracking', [e.track_opens && 'opens', e.track_clicks && 'clicks'].filter(Boolean).join(', ') || 'none'],
    ['Scheduled', formatDate(e.scheduled_at)],
    ['Sent', formatDate(e.sent_at)],
    ['Opened', formatDate(e.opened_at)],
    ['Clicked', formatDate(e.clicked_at)],
  ];
  return (
    <>
      <PageHeader title={e.subject || '(no subject)'} />
      <p className="muted">
        <Link to="/emails">All transactional emails</Link> · <Status value={e.status} />
      </p>
      <dl className="details card">
        {rows.map(([term, value]) => (
          <div className="contents" key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Events</h2>
        {!e.events?.length ? (
          <p className="muted">No event yet: it appears here as the message is sent, delivered, opened or clicked.</p>
        ) : (
          <ol className="timeline" data-testid="email-events">
            {e.events.map((event) => (
              <li key={event.id}>
                <strong>{event.type}</strong> <span className="muted">{formatDate(event.created_at)}</span>
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
