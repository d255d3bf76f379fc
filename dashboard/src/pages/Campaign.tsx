import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { AudiencePicker } from '../audiences/AudiencePicker.tsx';
import { CampaignCharts } from '../CampaignCharts.tsx';
import { ContentEditor } from '../authoring/ContentEditor.tsx';
import { PreviewAs } from '../authoring/PreviewAs.tsx';
import { SendButton } from '../authoring/SendButton.tsx';
import { TemplatePicker } from '../authoring/TemplatePicker.tsx';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { browserTimeZone } from '../TimeZoneInput.tsx';
import { TestResults } from '../ab/TestResults.tsx';
import { VariantsEditor } from '../ab/VariantsEditor.tsx';
import { ConfirmButton, ErrorMessage, Loading, PageHeader, Status, field, formatDate, formatNumber } from '../ui.tsx';

type Campaign = components['schemas']['Campaign'];
type Replace = components['schemas']['CampaignReplace'];

const tagList = (text: string) =>
  text
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);

function toReplace(campaign: Campaign): Replace {
  return {
    name: campaign.name,
    // A campaign that sends a template keeps no subject or content of its own ('' as stored).
    ...(campaign.subject ? { subject: campaign.subject } : {}),
    ...(campaign.content ? { content: campaign.content } : {}),
    content_source: campaign.content_source,
    from_email: campaign.from_email,
    from_name: campaign.from_name,
    reply_to: campaign.reply_to,
    text_content: campaign.text_content,
    preheader: campaign.preheader,
    audience: campaign.audience,
    topic_id: campaign.topic_id,
    track_opens: campaign.track_opens,
    track_clicks: campaign.track_clicks,
    web_version_link: campaign.web_version_link,
    archive: campaign.archive,
    archive_meta: campaign.archive_meta,
    variants: campaign.variants,
    ab_test: campaign.ab_test,
    template_id: campaign.template_id,
    template_version: campaign.template_version,
    template_data: campaign.template_data,
  };
}

function Editor({ campaign }: { campaign: Campaign }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState<Replace>(() => toReplace(campaign));
  const editable = campaign.status === 'draft';
  const save = useMutation({
    mutationFn: () => api().campaigns.update(campaign.id, draft),
    onSuccess: (saved) => {
      client.setQueryData(['campaign', campaign.id], saved);
      void client.invalidateQueries({ queryKey: ['campaigns'] });
    },
  });
  const patch = (changes: Partial<Replace>) => setDraft((current) => ({ ...current, ...changes }));
  const set = (name: 'name' | 'subject' | 'from_email') => (event: { target: { value: string } }) => patch({ [name]: event.target.value });
  // Optional fields: emptied, they are null (the sender's address, the derived text part).
  const setOptional = (name: 'from_name' | 'reply_to' | 'preheader' | 'text_content') => (event: { target: { value: string } }) =>
    patch({ [name]: event.target.value || null });
  const ownContent = draft.template_id == null;
  return (
    <div className="editor">
      <form
        className="card stack"
        aria-labelledby="content-title"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <h2 id="content-title">Content</h2>
        <fieldset disabled={!editable} className="stack plain">
          <label>
            Name
            <input value={draft.name} onChange={set('name')} required />
          </label>
          <TemplatePicker value={draft.template_id ?? null} onChange={(template_id) => patch({ template_id, template_version: null, template_data: null })} />
          {ownContent && (
            <label>
              Subject
              <input value={draft.subject ?? ''} onChange={set('subject')} required />
            </label>
          )}
          <div className="grid">
            <label>
              From (email)
              <input type="email" value={draft.from_email} onChange={set('from_email')} required />
            </label>
            <label>
              From (name)
              <input value={draft.from_name ?? ''} onChange={setOptional('from_name')} />
            </label>
            <label>
              Reply-to <span className="muted">(when not the sender)</span>
              <input type="email" value={draft.reply_to ?? ''} onChange={setOptional('reply_to')} />
            </label>
          </div>
          <label>
            Preheader
            <input value={draft.preheader ?? ''} onChange={setOptional('preheader')} />
          </label>
          <label>
            Audience: contacts with any of these tags <span className="muted">(comma-separated; empty: every subscribed contact)</span>
            <input
              value={(draft.audience?.tags_any ?? []).join(', ')}
              onChange={(event) => patch({ audience: { ...draft.audience, tags_any: tagList(event.target.value) } })}
            />
          </label>
          <AudiencePicker audience={draft.audience} onChange={(audience) => patch({ audience })} />
          {ownContent && (
            <>
              <ContentEditor value={{ content: draft.content ?? '', content_source: draft.content_source ?? null }} onChange={patch} />
              <label>
                Plain-text version (Liquid) <span className="muted">(empty: made from the HTML)</span>
                <textarea rows={6} value={draft.text_content ?? ''} onChange={setOptional('text_content')} />
              </label>
            </>
          )}
          <VariantsEditor variants={draft.variants ?? null} abTest={draft.ab_test ?? null} templated={!ownContent} onChange={patch} />
          <label className="inline">
            <input type="checkbox" checked={draft.web_version_link ?? true} onChange={(event) => patch({ web_version_link: event.target.checked })} />
            End each message with a “View in browser” link
          </label>
          <label className="inline">
            <input type="checkbox" checked={draft.archive ?? false} onChange={(event) => patch({ archive: event.target.checked })} />
            Publish to the public archive once sent
          </label>
          {draft.archive && (
            <label>
              In the archive, <code>{'{{ first_name }}'}</code> reads <span className="muted">(no contact's data is ever shown there)</span>
              <input
                value={typeof draft.archive_meta?.first_name === 'string' ? draft.archive_meta.first_name : ''}
                onChange={(event) => patch({ archive_meta: { ...draft.archive_meta, first_name: event.target.value } })}
              />
            </label>
          )}
        </fieldset>
        <ErrorMessage error={save.error} />
        {editable ? (
          <div className="row">
            <button type="submit" className="primary" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : 'Save'}
            </button>
            {save.isSuccess && (
              <span role="status" className="muted">
                Saved.
              </span>
            )}
          </div>
        ) : (
          <p className="muted">A campaign can be edited while it is a draft.</p>
        )}
      </form>
      <PreviewAs draft={draft} />
    </div>
  );
}

function TestSend({ campaign }: { campaign: Campaign }) {
  const send = useMutation({ mutationFn: (emails: string[]) => api().campaigns.test(campaign.id, { emails }) });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    send.mutate(tagList(field(new FormData(event.currentTarget), 'emails')));
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="test-title">
      <h2 id="test-title">Send a test</h2>
      <label>
        To <span className="muted">(up to a few addresses, comma-separated)</span>
        <input name="emails" required placeholder="you@example.com" />
      </label>
      <ErrorMessage error={send.error} />
      {send.data && (
        <p role="status">
          Sent to {send.data.accepted.join(', ') || 'nobody'}
          {send.data.rejected.length > 0 && `; refused: ${JSON.stringify(send.data.rejected)}`}.
        </p>
      )}
      <div>
        <button type="submit" disabled={send.isPending}>
          Send test
        </button>
      </div>
    </form>
  );
}

function Actions({ campaign }: { campaign: Campaign }) {
  const client = useQueryClient();
  const [when, setWhen] = useState('');
  const [zone, setZone] = useState<'browser' | 'contact'>('browser');
  const [late, setLate] = useState<'send' | 'skip'>('send');
  const act = useMutation({
    mutationFn: (action: 'send' | 'pause' | 'resume' | 'cancel' | 'schedule' | 'unschedule') => {
      const campaigns = api().campaigns;
      if (action === 'send') return campaigns.send(campaign.id, {});
      if (action === 'schedule')
        return campaigns.schedule(
          campaign.id,
          // A datetime-local input gives `YYYY-MM-DDTHH:MM`, the wall-clock time the API takes.
          zone === 'contact' ? { local_time: when.slice(0, 16), by_contact_timezone: true, late_policy: late } : { scheduled_at: new Date(when) },
        );
      return campaigns[action](campaign.id);
    },
    onSuccess: (updated) => {
      client.setQueryData(['campaign', campaign.id], updated);
      void client.invalidateQueries({ queryKey: ['campaigns'] });
    },
  });
  const status = campaign.status;
  return (
    <div className="stack">
      <div className="row">
        {status === 'draft' && <SendButton campaign={campaign} onSend={() => act.mutate('send')} />}
        {status === 'scheduled' && <button onClick={() => act.mutate('unschedule')}>Unschedule</button>}
        {status === 'sending' && (
          <ConfirmButton label="Pause" question="Pause sending? Messages not yet sent wait until you resume." onConfirm={() => act.mutate('pause')} />
        )}
        {(status === 'paused' || status === 'failed') && <button onClick={() => act.mutate('resume')}>Resume</button>}
        {['scheduled', 'sending', 'paused'].includes(status) && (
          <ConfirmButton
            label="Cancel"
            danger
            question="Cancel this campaign? Messages not yet sent are never sent; this cannot be undone."
            confirm="Cancel campaign"
            onConfirm={() => act.mutate('cancel')}
          />
        )}
      </div>
      {status === 'draft' && (
        <form
          className="row"
          onSubmit={(event) => {
            event.preventDefault();
            act.mutate('schedule');
          }}
        >
          <label>
            Send later, at
            <input type="datetime-local" value={when} onChange={(event) => setWhen(event.target.value)} required />
          </label>
          <label>
            Time zone
            <select value={zone} onChange={(event) => setZone(event.target.value as 'browser' | 'contact')}>
              <option value="browser">yours ({browserTimeZone()})</option>
              <option value="contact">each contact's</option>
            </select>
          </label>
          {zone === 'contact' && (
            <label>
              Contacts whose time has passed
              <select value={late} onChange={(event) => setLate(event.target.value as 'send' | 'skip')}>
                <option value="send">get it at once</option>
                <option value="skip">are skipped</option>
              </select>
            </label>
          )}
          <button type="submit">Schedule</button>
        </form>
      )}
      <ErrorMessage error={act.error} />
    </div>
  );
}

function Progress({ campaign }: { campaign: Campaign }) {
  const stats = campaign.stats;
  const done = stats.sent + stats.failed;
  const percent = stats.recipients ? Math.floor((done / stats.recipients) * 100) : campaign.status === 'completed' ? 100 : 0;
  return (
    <section className="card stack" aria-labelledby="progress-title">
      <h2 id="progress-title">Progress</h2>
      <label>
        <span>
          Sent <span data-testid="campaign-percent">{percent}%</span> ({formatNumber(done)} of {formatNumber(stats.recipients)})
        </span>
        <progress max={100} value={percent} aria-label="Sending progress" />
      </label>
      <div className="figures">
        {(['recipients', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'failed', 'unsubscribed', 'complained'] as const).map((name) => (
          <div key={name} className="figure">
            {name} <strong data-testid={`campaign-${name}`}>{formatNumber(stats[name])}</strong>
          </div>
        ))}
      </div>
      <p className="muted">
        Started {formatDate(campaign.started_at)}; completed {formatDate(campaign.completed_at)}.
      </p>
    </section>
  );
}

export default function CampaignPage({ params }: { params: Record<string, string> }) {
  const id = params.id;
  const campaign = useQuery({
    queryKey: ['campaign', id],
    queryFn: () => api().campaigns.get(id),
    // Live events refresh it too; polling covers a dropped socket while sending.
    refetchInterval: (query) => (query.state.data?.status === 'sending' ? 2_000 : false),
  });
  if (campaign.isPending) return <Loading />;
  if (!campaign.data)
    return (
      <>
        <PageHeader title="Campaign" />
        <ErrorMessage error={campaign.error} retry={() => void campaign.refetch()} />
        <Link to="/campaigns">Back to campaigns</Link>
      </>
    );
  const c = campaign.data;
  return (
    <>
      <PageHeader title={c.name}>
        <Status value={c.status} />
      </PageHeader>
      <p>
        <Link to="/campaigns">← Campaigns</Link>
        {c.scheduled_at && <span className="muted"> · scheduled for {formatDate(c.scheduled_at)}</span>}
        {c.send_time?.by_contact_timezone && (
          <span className="muted" data-testid="campaign-send-time">
            {' '}
            · at {c.send_time.local_time.replace('T', ' ')} in each contact's time zone
            {c.send_time.late_policy === 'skip' ? ', skipping those already past it' : ''}
          </span>
        )}
      </p>
      <Actions campaign={c} />
      {c.status !== 'draft' && <Progress campaign={c} />}
      {c.variants && c.status !== 'draft' && c.status !== 'scheduled' && <TestResults campaign={c} />}
      {c.status !== 'draft' && c.status !== 'scheduled' && <CampaignCharts id={c.id} />}
      <Editor key={c.id} campaign={c} />
      <TestSend campaign={c} />
    </>
  );
}
