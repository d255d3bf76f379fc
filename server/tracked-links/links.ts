/**
 * A link as WHATWG URL serialisation writes it: percent-encoded, its host in ASCII. A link kept
 * as written could carry characters that no HTTP header may (`?name=Łukasz`, `/☃`). Null for
 * text that is not an absolute URL.
 */
export function normalizedUrl(url: string): string | null {
  try {
    return new URL(url).href;
  } catch {
    return null;
  }
}
