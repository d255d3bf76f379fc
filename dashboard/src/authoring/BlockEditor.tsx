/** The visual editor: blocks added, edited, moved and removed; each change renders the email's HTML. Loaded lazily. */
import { useEffect } from 'react';
import {
  BLOCK_TYPES,
  addBlock,
  blockIds,
  moveBlock,
  newDocument,
  removeBlock,
  renderBlocks,
  updateBlock,
  type BlockDocument,
  type BlockProps,
  type BlockType,
} from './blocks.ts';

type Change = (document: BlockDocument, html: string) => void;

const LABELS: Record<BlockType, string> = {
  Heading: 'Heading',
  Text: 'Text',
  Button: 'Button',
  Image: 'Image',
  Divider: 'Divider',
  Spacer: 'Spacer',
  Html: 'HTML',
};

/** The fields of one block's properties, by type. */
function BlockFields({ type, props, set }: { type: BlockType; props: BlockProps; set: (props: BlockProps) => void }) {
  const text = (name: string, label: string, multiline = false) => (
    <label>
      {label}
      {multiline ? (
        <textarea rows={4} value={props[name] ?? ''} onChange={(event) => set({ [name]: event.target.value })} spellCheck={name !== 'contents'} />
      ) : (
        <input value={props[name] ?? ''} onChange={(event) => set({ [name]: event.target.value || null })} />
      )}
    </label>
  );
  switch (type) {
    case 'Heading':
      return (
        <div className="grid">
          {text('text', 'Heading text')}
          <label>
            Level
            <select value={props.level ?? 'h2'} onChange={(event) => set({ level: event.target.value })}>
              <option value="h1">Large</option>
              <option value="h2">Medium</option>
              <option value="h3">Small</option>
            </select>
          </label>
        </div>
      );
    case 'Text':
      return text('text', 'Text', true);
    case 'Button':
      return (
        <div className="grid">
          {text('text', 'Button label')}
          {text('url', 'Button link')}
        </div>
      );
    case 'Image':
      return (
        <div className="grid">
          {text('url', 'Image address')}
          {text('alt', 'Alternative text')}
          {text('linkHref', 'Image link')}
        </div>
      );
    case 'Spacer':
      return (
        <label>
          Height (pixels)
          <input type="number" min={0} max={200} value={props.height ?? 16} onChange={(event) => set({ height: Number(event.target.value) })} />
        </label>
      );
    case 'Html':
      return text('contents', 'HTML', true);
    default:
      return null;
  }
}

export default function BlockEditor({ document, html, onChange }: { document: BlockDocument | undefined; html: string; onChange: Change }) {
  const change = (next: BlockDocument) => onChange(next, renderBlocks(next));
  // Switched to blocks: the content so far becomes an HTML block, so that nothing is lost.
  useEffect(() => {
    if (!document) change(newDocument(html));
  });
  if (!document) return null;
  const ids = blockIds(document);
  return (
    <div className="stack" data-testid="block-editor">
      {ids.length === 0 && <p className="muted">No blocks yet: add one below.</p>}
      <ol className="blocks stack plain">
        {ids.map((id, index) => {
          const block = document[id] as { type: BlockType; data: { props?: BlockProps } };
          const name = `Block ${index + 1}: ${LABELS[block.type]}`;
          return (
            <li key={id}>
              <fieldset className="stack block">
                <legend>{name}</legend>
                <BlockFields type={block.type} props={block.data.props ?? {}} set={(props) => change(updateBlock(document, id, props))} />
                <div className="row">
                  <button type="button" aria-label={`Move ${name} up`} disabled={index === 0} onClick={() => change(moveBlock(document, id, -1))}>
                    ↑
                  </button>
                  <button type="button" aria-label={`Move ${name} down`} disabled={index === ids.length - 1} onClick={() => change(moveBlock(document, id, 1))}>
                    ↓
                  </button>
                  <button type="button" className="danger" aria-label={`Remove ${name}`} onClick={() => change(removeBlock(document, id))}>
                    Remove
                  </button>
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <div className="row" role="group" aria-label="Add a block">
        {BLOCK_TYPES.map((type) => (
          <button key={type} type="button" onClick={() => change(addBlock(document, type))}>
            + {LABELS[type]}
          </button>
        ))}
      </div>
    </div>
  );
}
