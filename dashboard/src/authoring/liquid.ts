/**
 * Liquid as the author wrote it, in HTML a renderer made from blocks or Markdown: React and
 * marked escape quotes in text (`default: &quot;there&quot;`) and marked percent-encodes links
 * (`%7B%7B%20unsubscribe_url%20%7D%7D`), either of which would break the template when sent.
 */
const ENTITIES: Record<string, string> = { '&quot;': '"', '&#x27;': "'", '&#39;': "'", '&amp;': '&', '&lt;': '<', '&gt;': '>' };

export function keepLiquid(html: string): string {
  return html
    .replace(/%7B%7B.*?%7D%7D|%7B%25.*?%25%7D/gi, (match) => {
      try {
        return decodeURIComponent(match);
      } catch {
        return match;
      }
    })
    .replace(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g, (tag) => tag.replace(/&(quot|#x27|#39|amp|lt|gt);/g, (entity) => ENTITIES[entity]));
}
