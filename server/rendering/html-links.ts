import { QuoteType, Tokenizer } from 'htmlparser2';

/** Where a campaign's HTML gets its tracked links, preheader, footer and pixel. */
export interface HtmlDecorations {
  /** The new `href` of an `http(s)` link (its value decoded), or null to leave it as it is. */
  link(url: string): string | null;
  /** Inserted after the first `<body …>`, or at the start. */
  afterBodyStart: string;
  /** Inserted before the first `</body>`, or at the end. */
  beforeBodyEnd: string;
}

export const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;');

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';

/**
 * One pass of htmlparser2's tokenizer over the HTML, in linear time whatever the markup (a
 * regular expression over `<a <a <a …` backtracks quadratically). Links inside comments,
 * `<script>` or `<style>` are left alone, as a browser would.
 */
export function decorateHtml(html: string, decorations: HtmlDecorations): string {
  const edits: { start: number; end: number; text: string }[] = [];
  let bodyStart = -1;
  let bodyEnd = -1;
  let tag = '';
  let attribute = '';
  let attributeNameEnd = 0;
  let value = '';
  let hrefSeen = false;

  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        tag = html.slice(start, end).toLowerCase();
        hrefSeen = false;
      },
      onattribname(start, end) {
        attribute = html.slice(start, end).toLowerCase();
        attributeNameEnd = end;
        value = '';
      },
      onattribdata(start, end) {
        value += html.slice(start, end);
      },
      onattribentity(codepoint) {
        value += String.fromCodePoint(codepoint);
      },
      onattribend(quote, end) {
        // The first href counts, as in a browser.
        if (tag !== 'a' || attribute !== 'href' || hrefSeen || quote === QuoteType.NoValue) return;
        hrefSeen = true;
        const url = value.trim();
        if (!/^https?:\/\//i.test(url)) return;
        const replacement = decorations.link(url);
        if (replacement === null) return;
        // The value starts after `=`, spaces and the opening quote.
        let start = html.indexOf('=', attributeNameEnd) + 1;
        while (isSpace(html[start])) start++;
        const quoted = quote === QuoteType.Double || quote === QuoteType.Single;
        const text = escapeAttribute(replacement);
        edits.push(quoted ? { start: start + 1, end: end - 1, text } : { start, end, text: `"${text}"` });
      },
      onopentagend(end) {
        if (tag === 'body' && bodyStart < 0) bodyStart = end + 1;
      },
      onselfclosingtag(end) {
        if (tag === 'body' && bodyStart < 0) bodyStart = end + 1;
      },
      onclosetag(start, end) {
        // `start` is the name's; the tag begins at its `</`.
        if (bodyEnd < 0 && html.slice(start, end).toLowerCase() === 'body') bodyEnd = html.lastIndexOf('<', start);
      },
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onend() {},
      onprocessinginstruction() {},
      ontext() {},
      ontextentity() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();

  if (decorations.afterBodyStart) edits.push({ start: Math.max(bodyStart, 0), end: Math.max(bodyStart, 0), text: decorations.afterBodyStart });
  if (decorations.beforeBodyEnd)
    edits.push({ start: bodyEnd < 0 ? html.length : bodyEnd, end: bodyEnd < 0 ? html.length : bodyEnd, text: decorations.beforeBodyEnd });
  edits.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const edit of edits) {
    parts.push(html.slice(at, edit.start), edit.text);
    at = edit.end;
  }
  parts.push(html.slice(at));
  return parts.join('');
}
