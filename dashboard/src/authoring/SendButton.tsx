/** *Send now*, behind a dialog that says how many contacts will receive the campaign, and from whom. */
import type { components } from '@sendline/sdk';
import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { api } from '../session.ts';
import { ErrorMessage, formatNumber } from '../ui.tsx';

type Campaign = components['schemas']['Campaign'];

const sender = (campaign: Campaign) => (campaign.from_name ? `${campaign.from_name} <${campaign.from_email}>` : campaign.from_email);

export function SendButton({ campaign, onSend }: { campaign: Campaign; onSend: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [open, setOpen] = useState(false);
  const audience = useQuery({
    queryKey: ['campaign-audience', campaign.id, campaign.updated_at],
    queryFn: () => api().campaigns.audience(campaign.id),
    enabled: open,
    staleTime: 0,
  });
  const close = () => {
    dialog.current?.close();
    setOpen(false);
  };
  const count = audience.data?.recipients;
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        Send now
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} onClose={() => setOpen(false)}>
        <div className="stack">
          <p id={titleId}>Send “{campaign.name}” to its audience now? This cannot be undone.</p>
          <p data-testid="send-summary">
            {count === undefined ? (
              'Counting the audience…'
            ) : (
              <>
                <strong>{formatNumber(count)}</strong> {count === 1 ? 'contact' : 'contacts'} will receive it, from <strong>{sender(campaign)}</strong>
                {campaign.reply_to && <> (replies to {campaign.reply_to})</>}.
              </>
            )}
          </p>
          <ErrorMessage error={audience.error} />
          <div className="row">
            <button type="button" autoFocus onClick={close}>
              Cancel
            </button>
            <button
              type="button"
              className="primary"
              disabled={count === 0}
              onClick={() => {
                close();
                onSend();
              }}
            >
              Send
            </button>
          </div>
        </div>
      </dialog>
    </>
  );
}
