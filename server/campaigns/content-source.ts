import type { components } from '../../generated/openapi.d.ts';
import { validationFailed } from '../contract/problem.ts';

/** At most this much of a visual editor's document (as JSON), as much as `content` may be. */
const MAX_BLOCKS_BYTES = 1024 * 1024;

/** An editor's source names its format's field, only that one, and stays within its size. */
export function checkContentSource(source: components['schemas']['ContentSource'] | null | undefined): void {
  if (!source) return;
  const own = source.format === 'blocks' ? 'blocks' : 'markdown';
  const other = own === 'blocks' ? 'markdown' : 'blocks';
  if (source[own] === undefined) throw validationFailed([{ pointer: `/content_source/${own}`, detail: `is required when format is ${source.format}` }]);
  if (source[other] !== undefined) throw validationFailed([{ pointer: `/content_source/${other}`, detail: `is not allowed when format is ${source.format}` }]);
  if (source.blocks && Buffer.byteLength(JSON.stringify(source.blocks)) > MAX_BLOCKS_BYTES)
    throw validationFailed([{ pointer: '/content_source/blocks', detail: `is larger than ${MAX_BLOCKS_BYTES / 1024 / 1024} MB as JSON` }]);
}
