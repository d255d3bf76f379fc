import { Problem, validationFailed } from '../contract/problem.ts';
import type { RenderedTemplate } from '../rendering/liquid.ts';
import type { EmailSendRequest } from './rules.ts';

/** Renders a template of the account: the version named, else its latest published one. */
export type RenderTemplate = (
  accountId: string,
  templateId: string,
  version: number | undefined,
  data: Record<string, unknown>,
) => Promise<RenderedTemplate | Problem>;

/** At most this much `data` (as JSON), as for a campaign's `template_data`. */
const MAX_DATA_BYTES = 64 * 1024;

/**
 * The request with its template's subject, HTML and text in place of its own, rendered once for
 * every recipient. A template that cannot be used is the request's fault: a 400 naming the field.
 */
export async function withTemplate(render: RenderTemplate, accountId: string, body: EmailSendRequest): Promise<EmailSendRequest> {
  const { template_id: templateId, template_version: version, data, ...rest } = body;
  if (templateId === undefined) {
    if (version !== undefined || data !== undefined)
      throw validationFailed([{ pointer: version !== undefined ? '/template_version' : '/data', detail: 'needs template_id' }]);
    return body;
  }
  const given = (['subject', 'html', 'text'] as const).filter((field) => rest[field] !== undefined);
  if (given.length) throw validationFailed(given.map((field) => ({ pointer: `/${field}`, detail: 'must be left out when template_id is given' })));
  if (data !== undefined && Buffer.byteLength(JSON.stringify(data)) > MAX_DATA_BYTES)
    throw validationFailed([{ pointer: '/data', detail: `is larger than ${MAX_DATA_BYTES / 1024} KB as JSON` }]);
  const rendered = await render(accountId, templateId, version, data ?? {});
  if (rendered instanceof Problem) {
    if (rendered.code === 'validation_failed') throw rendered;
    throw validationFailed(rendered.errors?.length ? rendered.errors : [{ pointer: '/template_id', detail: rendered.message }], rendered.message);
  }
  return { ...rest, subject: rendered.subject, html: rendered.html || undefined, text: rendered.text || undefined };
}
