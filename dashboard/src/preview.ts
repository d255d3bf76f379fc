/**
 * Renders a campaign for one contact in the browser, as the server's sender does
 * (server/rendering/campaign-template.ts, server/rendering/campaign-message.ts): Liquid with HTML escaping and strict
 * filters, no file-loading tags, the same variables. liquidjs loads with the first preview.
 */
import type { components } from '@sendline/sdk';
import type { Liquid } from 'liquidjs';

type Contact = components['schemas']['Contact'];
export interface Preview {
  subject: string;
  html: string;
  error: string | null;
}

let engines: Promise<{ html: Liquid; plain: Liquid }> | null = null;

function load() {
  engines ??= import('liquidjs').then(({ Liquid }) => {
    const make = (outputEscape?: 'escape') => {
      const liquid = new Liquid({ outputEscape, strictFilters: true, cache: false, templates: {}, renderLimit: 200 });
      for (const tag of ['include', 'render', 'layout'])
        liquid.registerTag(tag, {
          parse() {
            throw new Error(`{% ${tag} %} is not available: a campaign cannot load other templates`);
          },
          render() {},
        });
      return liquid;
    };
    return { html: make('escape'), plain: make() };
  });
  return engines;
}

/** Inline content only: a campaign sending a template previews empty here. */
export async function renderPreview(campaign: { name: string; subject?: string; content?: string }, contact: Contact | null): Promise<Preview> {
  const { html, plain } = await load();
  const person = contact ?? { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', tags: [], attributes: {} };
  const attributes = person.attributes ?? {};
  const scope = {
    ...attributes,
    email: person.email,
    first_name: person.first_name,
    last_name: person.last_name,
    tags: person.tags,
    attributes,
    contact: { email: person.email, first_name: person.first_name, last_name: person.last_name, tags: person.tags, attributes },
    campaign: { id: 'cmp_preview', name: campaign.name },
    unsubscribe_url: '#unsubscribe',
  };
  let subject = campaign.subject ?? '';
  try {
    subject = ((await plain.parseAndRender(subject, scope)) as string).replace(/[\r\n]+/g, ' ').trim();
  } catch (error) {
    return { subject, html: '', error: `Subject: ${(error as Error).message}` };
  }
  try {
    return { subject, html: (await html.parseAndRender(campaign.content ?? '', scope)) as string, error: null };
  } catch (error) {
    return { subject, html: '', error: `Content: ${(error as Error).message}` };
  }
}
