import { keepLiquid } from './liquid.ts';

/** Markdown (GitHub's flavour, raw HTML kept) as the HTML a campaign sends; marked loads with the first conversion. */
export async function markdownToHtml(markdown: string): Promise<string> {
  const { marked } = await import('marked');
  return keepLiquid(await marked.parse(markdown, { gfm: true }));
}
