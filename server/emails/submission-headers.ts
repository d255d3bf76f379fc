import { MailParser, type ParsedMail } from 'mailparser';
import type { FieldError } from '../contract/problem.ts';
import { checkSendFields, type SendFields } from './batch-items.ts';

/**
 * What a message submitted over SMTP asks of Sendline, in headers of its own that never reach
 * the recipient: `X-Sendline-Tags: receipt, order` (comma-separated; the header may repeat),
 * `X-Sendline-Metadata: {"order": "1042"}` (one JSON object of strings, as `metadata` in
 * `POST /emails`), `X-Sendline-Track: opens, clicks`. Tags and metadata are held to the limits
 * of `POST /emails`, by the same checks.
 */
export const TAGS_HEADER = 'X-Sendline-Tags';
export const METADATA_HEADER = 'X-Sendline-Metadata';
/** Far above 20 keys of 40 characters with values of 500: parsed only below this. */
const MAX_METADATA_CHARS = 32 * 1024;

export interface SubmittedFields extends SendFields {
  trackOpens: boolean;
  trackClicks: boolean;
}

/** mailparser's decoder: clients such as nodemailer write non-ASCII header values as RFC 2047 encoded words. */
const mime = (new MailParser() as unknown as { libmime: { decodeWords(text: string): string } }).libmime;

/** Every value of a header, unfolded and decoded, in order. */
function valuesOf(parsed: ParsedMail, name: string): string[] {
  const key = name.toLowerCase();
  return parsed.headerLines
    .filter((line) => line.key === key)
    .map((line) =>
      mime
        .decodeWords(line.line.slice(line.line.indexOf(':') + 1))
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim(),
    );
}

/** A header's value refused, naming the header. */
export class HeaderRefused extends Error {}

/** The header that sets the field a pointer names. */
export function headerOf(pointer: string): string | null {
  if (pointer === '/tags' || pointer.startsWith('/tags/')) return TAGS_HEADER;
  if (pointer === '/metadata' || pointer.startsWith('/metadata/')) return METADATA_HEADER;
  return null;
}

/** Problems as one SMTP reply's text, each under the header at fault when one is. */
export function describeErrors(errors: FieldError[]): string {
  return errors
    .map((e) => {
      const header = headerOf(e.pointer);
      return header ? `${header}: ${e.pointer} ${e.detail}` : `${e.pointer} ${e.detail}`;
    })
    .join('; ');
}

/** The message's tags, metadata and tracking, checked against the contract; throws HeaderRefused. */
export function submittedFields(parsed: ParsedMail): SubmittedFields {
  const given: Record<string, unknown> = {};
  const tagLines = valuesOf(parsed, TAGS_HEADER);
  if (tagLines.length)
    given.tags = tagLines.flatMap((line) =>
      line
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    );

  const metadataLines = valuesOf(parsed, METADATA_HEADER);
  if (metadataLines.length > 1) throw new HeaderRefused(`${METADATA_HEADER} appears ${metadataLines.length} times; give one JSON object`);
  if (metadataLines.length) {
    const [text] = metadataLines;
    if (text.length > MAX_METADATA_CHARS) throw new HeaderRefused(`${METADATA_HEADER} is longer than ${MAX_METADATA_CHARS} characters`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new HeaderRefused(`${METADATA_HEADER} must be a JSON object of strings, such as {"order": "1042"}`);
    }
    given.metadata = value;
  }

  const checked = checkSendFields(given);
  if (!checked.fields) throw new HeaderRefused(describeErrors(checked.errors));
  const track = valuesOf(parsed, 'X-Sendline-Track').join(',').toLowerCase();
  return { ...checked.fields, trackOpens: /\bopens\b/.test(track), trackClicks: /\bclicks\b/.test(track) };
}
