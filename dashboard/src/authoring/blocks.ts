/**
 * The visual editor's document: @usewaypoint/email-builder's (the builder listmonk uses), an
 * `EmailLayout` root whose children are the blocks, each by id. Its HTML, table-based with
 * inline styles as email clients want, is what the campaign sends. Loaded with the editor only.
 */
import { renderToStaticMarkup, type TReaderDocument } from '@usewaypoint/email-builder';
import { keepLiquid } from './liquid.ts';

export type BlockDocument = TReaderDocument;
export const BLOCK_TYPES = ['Heading', 'Text', 'Button', 'Image', 'Divider', 'Spacer', 'Html'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];
export type BlockProps = Record<string, string | number | null | undefined>;

const padding = { top: 12, bottom: 12, left: 24, right: 24 };

const STARTERS: Record<BlockType, () => { props: BlockProps; style?: Record<string, unknown> }> = {
  Heading: () => ({ props: { text: 'A heading', level: 'h2' }, style: { padding } }),
  Text: () => ({ props: { text: 'Hello {{ first_name | default: "there" }},' }, style: { padding } }),
  Button: () => ({ props: { text: 'Read more', url: 'https://example.com/' }, style: { padding } }),
  Image: () => ({ props: { url: 'https://example.com/image.png', alt: '', linkHref: null }, style: { padding } }),
  Divider: () => ({ props: {}, style: { padding } }),
  Spacer: () => ({ props: { height: 16 } }),
  Html: () => ({ props: { contents: '<p></p>' }, style: { padding } }),
};

const rootOf = (document: BlockDocument) => document.root as { type: 'EmailLayout'; data: { childrenIds?: string[] | null } & Record<string, unknown> };

/** The blocks' ids, in order. */
export const blockIds = (document: BlockDocument): string[] => rootOf(document).data.childrenIds ?? [];

/** A document of the blocks given (an HTML block holding earlier content, when switching to blocks). */
export function newDocument(html?: string): BlockDocument {
  const document: BlockDocument = {
    root: { type: 'EmailLayout', data: { backdropColor: '#F5F5F5', canvasColor: '#FFFFFF', textColor: '#262626', fontFamily: 'MODERN_SANS', childrenIds: [] } },
  };
  return html?.trim() ? addBlock(document, 'Html', { contents: html }) : document;
}

const withChildren = (document: BlockDocument, childrenIds: string[]): BlockDocument => ({
  ...document,
  root: { ...rootOf(document), data: { ...rootOf(document).data, childrenIds } },
});

export function addBlock(document: BlockDocument, type: BlockType, props?: BlockProps): BlockDocument {
  const starter = STARTERS[type]();
  const id = `block-${crypto.randomUUID()}`;
  const block = { type, data: { ...starter, props: { ...starter.props, ...props } } } as BlockDocument[string];
  return withChildren({ ...document, [id]: block }, [...blockIds(document), id]);
}

export function updateBlock(document: BlockDocument, id: string, props: BlockProps): BlockDocument {
  const block = document[id] as { type: BlockType; data: { props?: BlockProps } };
  const updated: BlockDocument[string] = { ...block, data: { ...block.data, props: { ...block.data.props, ...props } } };
  return { ...document, [id]: updated };
}

export function removeBlock(document: BlockDocument, id: string): BlockDocument {
  const { [id]: _removed, ...rest } = document;
  return withChildren(
    rest,
    blockIds(document).filter((child) => child !== id),
  );
}

export function moveBlock(document: BlockDocument, id: string, by: -1 | 1): BlockDocument {
  const ids = [...blockIds(document)];
  const from = ids.indexOf(id);
  const to = from + by;
  if (to < 0 || to >= ids.length) return document;
  [ids[from], ids[to]] = [ids[to], ids[from]];
  return withChildren(document, ids);
}

/** The email the blocks make, Liquid kept as written. */
export const renderBlocks = (document: BlockDocument): string => keepLiquid(renderToStaticMarkup(document, { rootBlockId: 'root' }));
