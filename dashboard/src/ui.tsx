/** Shared pieces: headings, errors that say what to do, empty states, confirmations, copy buttons. */
import { APIConnectionError, AuthenticationError, PermissionDeniedError, RateLimitError, SendlineError, ValidationError } from '@sendline/sdk';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Sendline`;
  }, [title]);
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children && <div className="actions">{children}</div>}
    </header>
  );
}

/** What went wrong, and what to do about it. */
export function errorText(error: unknown): string {
  if (error instanceof ValidationError) {
    const fields = error.errors?.map((field) => `${field.pointer ?? ''} ${field.detail ?? ''}`.trim()).join('; ');
    return `${error.problem?.detail ?? 'The request was refused.'}${fields ? ` (${fields})` : ''} Correct it and try again.`;
  }
  if (error instanceof AuthenticationError)
    return error.code === 'invalid_credentials' ? 'The email or password is wrong. Check both and try again.' : 'Your session has ended. Sign in again.';
  if (error instanceof PermissionDeniedError) return `${error.problem?.detail ?? 'Not allowed.'} Ask an owner or admin of the account.`;
  if (error instanceof RateLimitError) return `Too many requests; try again in ${error.retryAfter ?? 60} seconds.`;
  if (error instanceof APIConnectionError) return 'The server could not be reached. Check your connection, then try again.';
  if (error instanceof SendlineError) return error.problem?.detail ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorMessage({ error, retry }: { error: unknown; retry?: () => void }) {
  if (!error) return null;
  return (
    <div role="alert" className="error">
      <span>{errorText(error)}</span>
      {retry && (
        <button type="button" className="link" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status">
      {label}
    </p>
  );
}

/** A button that asks first, in a modal dialog (Escape cancels, focus stays inside). */
export function ConfirmButton({
  label,
  question,
  confirm,
  onConfirm,
  danger,
  disabled,
}: {
  label: string;
  question: string;
  confirm?: string;
  onConfirm: () => unknown;
  danger?: boolean;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  return (
    <>
      <button type="button" className={danger ? 'danger' : undefined} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <p id={titleId}>{question}</p>
        <div className="row">
          <button type="button" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? 'danger' : 'primary'}
            onClick={() => {
              // Closed first: confirming may unmount this button, and a dialog must not stay open behind it.
              dialog.current?.close();
              void onConfirm();
            }}
          >
            {confirm ?? label}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** Copies `text` to the clipboard, saying so to screen readers too. */
export function CopyButton({ text, label = 'Copy', className }: { text: string; label?: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <button
        type="button"
        className={className}
        onClick={() =>
          void navigator.clipboard.writeText(text).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : label}
      </button>
      <span role="status" className="sr-only">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </>
  );
}

/** A secret shown once, with a copy button. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const id = useId();
  return (
    <div className="secret" role="region" aria-labelledby={id}>
      <p id={id}>
        <strong>{label}</strong> It is shown this once: copy it now and keep it somewhere safe.
      </p>
      <div className="row">
        <code className="secret-value" data-testid="secret">
          {secret}
        </code>
        <CopyButton text={secret} className="primary" />
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** A text field of a submitted form ('' when absent). */
export function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}

export const formatDate = (value: string | null | undefined) => (value ? new Date(value).toLocaleString() : '—');
export const formatNumber = (value: number | null | undefined) => (value ?? 0).toLocaleString();
export const formatRate = (value: number | null | undefined) => `${((value ?? 0) * 100).toFixed(1)}%`;

export function Status({ value }: { value: string }) {
  return <span className={`badge badge-${value}`}>{value.replace(/_/g, ' ')}</span>;
}
