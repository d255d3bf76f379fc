/** What the audience and transactional pages share: keyset paging, pasted addresses, copying. */
import { ValidationError } from '@sendline/sdk';
import { useEffect, useState } from 'react';

/** The value after the user stopped typing for a moment. */
export function useSettled<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Keyset paging: the cursors of the pages seen so far, to step back through them; back to page 1 when `reset` changes. */
export function useCursors(reset: string) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  useEffect(() => setCursors([undefined]), [reset]);
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length,
    back: () => setCursors(cursors.slice(0, -1)),
    next: (cursor: string) => setCursors([...cursors, cursor]),
  };
}

export function Pager({
  paging,
  nextCursor,
  label = 'Pages',
}: {
  paging: ReturnType<typeof useCursors>;
  nextCursor: string | null | undefined;
  label?: string;
}) {
  return (
    <nav className="row pager" aria-label={label}>
      <button type="button" disabled={paging.page === 1} onClick={paging.back}>
        Previous
      </button>
      <span className="muted">Page {paging.page}</span>
      <button type="button" disabled={!nextCursor} onClick={() => nextCursor && paging.next(nextCursor)}>
        Next
      </button>
    </nav>
  );
}

/** Addresses pasted one a line, or separated by commas, semicolons or spaces. */
export function pastedEmails(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\s,;]+/)
        .map((email) => email.trim())
        .filter(Boolean),
    ),
  ];
}

/** Comma-separated words, trimmed, blanks left out. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean);
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <button
        type="button"
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

/** Template errors where they are: `html line 2, column 4: …`; null when the error is not one. */
export function templateErrors(error: unknown): string[] | null {
  if (!(error instanceof ValidationError) || error.code !== 'template_error') return null;
  return error.errors.map((e) => `${e.pointer.replace(/^\//, '') || 'template'}${e.line ? ` line ${e.line}, column ${e.column ?? 1}` : ''}: ${e.detail}`);
}
