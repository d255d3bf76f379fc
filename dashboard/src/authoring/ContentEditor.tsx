/**
 * A campaign's content, written in one of three ways: visual blocks, HTML, or Markdown. Switching
 * loses nothing: Markdown starts from the HTML so far (Markdown keeps raw HTML), blocks start with
 * an HTML block holding it, and HTML keeps what blocks or Markdown made. The editor's source is
 * kept with the campaign (`content_source`) so that it reopens the same way.
 */
import type { components } from '@sendline/sdk';
import { lazy, Suspense, useRef } from 'react';
import { Loading } from '../ui.tsx';
import type { BlockDocument } from './blocks.ts';
import { markdownToHtml } from './markdown.ts';

export type ContentSource = components['schemas']['ContentSource'];
export interface Content {
  content: string;
  content_source: ContentSource | null;
}

const BlockEditor = lazy(() => import('./BlockEditor.tsx'));

const MODES = [
  { value: 'blocks', label: 'Visual (blocks)' },
  { value: 'html', label: 'HTML' },
  { value: 'markdown', label: 'Markdown' },
] as const;
type Mode = (typeof MODES)[number]['value'];

export function ContentEditor({ value, onChange }: { value: Content; onChange: (patch: Partial<Content>) => void }) {
  const mode: Mode = value.content_source?.format ?? 'html';
  // Markdown converts asynchronously: only the latest text's HTML is kept.
  const latest = useRef(0);
  const switchTo = (next: Mode) => {
    if (next === 'html') onChange({ content_source: null });
    if (next === 'markdown') onChange({ content_source: { format: 'markdown', markdown: value.content } });
    if (next === 'blocks') onChange({ content_source: { format: 'blocks' } });
  };
  const writeMarkdown = (markdown: string) => {
    const turn = ++latest.current;
    onChange({ content_source: { format: 'markdown', markdown } });
    void markdownToHtml(markdown).then((content) => {
      if (turn === latest.current) onChange({ content });
    });
  };
  return (
    <div className="stack">
      <fieldset className="row plain" aria-label="Content format">
        <span>Write in</span>
        {MODES.map((option) => (
          <label key={option.value} className="inline">
            <input type="radio" name="content-mode" value={option.value} checked={mode === option.value} onChange={() => switchTo(option.value)} />
            {option.label}
          </label>
        ))}
      </fieldset>
      {mode === 'html' && (
        <label>
          HTML content (Liquid)
          <textarea rows={14} value={value.content} onChange={(event) => onChange({ content: event.target.value })} spellCheck={false} />
        </label>
      )}
      {mode === 'markdown' && (
        <label>
          Markdown content (Liquid; links to Liquid as {'[Unsubscribe](<{{ unsubscribe_url }}>)'})
          <textarea rows={14} value={value.content_source?.markdown ?? ''} onChange={(event) => writeMarkdown(event.target.value)} />
        </label>
      )}
      {mode === 'blocks' && (
        <Suspense fallback={<Loading label="Loading the visual editor…" />}>
          <BlockEditor
            document={value.content_source?.blocks as BlockDocument | undefined}
            html={value.content}
            onChange={(blocks, content) => onChange({ content, content_source: { format: 'blocks', blocks } })}
          />
        </Suspense>
      )}
    </div>
  );
}
