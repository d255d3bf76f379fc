import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Orm } from '../db/orm.ts';
import { sqlOf, type Db } from '../db/kysely.ts';
import { escapeHtml } from '../formats/html.ts';
import type { Logger } from '../logger.ts';
import type { CampaignPage, Recipient } from '../rendering/campaign-message.ts';
import type { TemplateThread } from '../rendering/template-thread.ts';
import { isTestMessageId } from '../tracked-links/test-message.ts';
import type { TokenSigner } from '../tracked-links/tokens.ts';
import { Campaign, type CampaignRow } from './entities.ts';
import { resolvedContent } from './service.ts';
import { variantContent } from './ab-test.ts';
import { archive } from './store.ts';

/** What the public pages read of contacts and accounts: their owners' functions, handed in by start.ts. */
export interface CampaignPageLookups {
  /** The contact as its message renders it; null when it is gone. */
  recipient(db: Db, accountId: string, contactId: string, messageId: string): Promise<Recipient | null>;
  accountByPublicId(db: Db, publicId: string): Promise<{ id: string; name: string } | null>;
}

export interface CampaignPageDeps {
  orm: Orm;
  signer: TokenSigner;
  templates: TemplateThread;
  publicUrl: string;
  lookups: CampaignPageLookups;
  /** Writes a plain HTML page, as the other public routes do. */
  page: (res: ServerResponse, status: number, title: string, body: string) => void;
  log: Logger;
}

/** Campaigns listed on an archive's page, and entries of its feed. */
const ARCHIVE_PAGE_SIZE = 50;
const FEED_SIZE = 20;
/** Archived campaigns rendered lately, by id and last change: a sent campaign's content no longer changes. */
const RENDERED_ARCHIVES = 200;

/**
 * An email's own HTML shown as a page: its styles and images, never a script, a form or a frame,
 * and nothing that tells the pages it links to where the reader came from.
 */
const EMAIL_PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'private, no-store',
  'Content-Security-Policy':
    "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline' https:; font-src https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Robots-Tag': 'noindex',
};

const ARCHIVE_PATH = /^\/archive\/([A-Za-z0-9]{1,64})(?:\/(feed\.xml|cmp_[A-Za-z0-9]{1,40}))?\/?$/;

/**
 * The public pages of campaigns on PUBLIC_URL, answered before Express as the unsubscribe pages
 * are: a message's web version (`/v/{token}`, signed for the message, so that it shows that
 * recipient's message and no other), and an account's archive of the campaigns it published
 * (`/archive/{public_id}`, each campaign under it, an Atom feed at `feed.xml`), rendered with
 * their `archive_meta` and never a contact's fields. Returns false for every other path.
 */
export function campaignPages(deps: CampaignPageDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { orm, signer, templates, lookups, page, log } = deps;
  const base = deps.publicUrl.replace(/\/$/, '');
  const rendered = new Map<string, CampaignPage>();

  const emailPage = (req: IncomingMessage, res: ServerResponse, html: string) => {
    res.writeHead(200, EMAIL_PAGE_HEADERS);
    res.end(req.method === 'HEAD' ? undefined : html);
  };
  const gone = (res: ServerResponse) => page(res, 404, 'Not found', '<p>This page is not available.</p>');

  const campaignOf = (accountId: string, id: string): Promise<CampaignRow | null> => orm.em.fork().findOne(Campaign, { id, accountId });

  const webVersion = async (req: IncomingMessage, res: ServerResponse, token: string) => {
    const parsed = signer.verify(token);
    if (parsed?.kind !== 'view') return page(res, 404, 'Link not found', '<p>This link is not valid.</p>');
    if (isTestMessageId(parsed.messageId))
      return page(res, 200, 'Test message', '<p>This is the web version link of a test message: a message sent to contacts shows here.</p>');
    const db = sqlOf(orm.em.fork());
    const message = await archive.messageOf(db, parsed.messageId);
    // A message erased with its contact shows nothing of it.
    const recipient = message?.contact_id ? await lookups.recipient(db, message.account_id, message.contact_id, message.id) : null;
    const campaign = message && recipient ? await campaignOf(message.account_id, message.campaign_id) : null;
    if (!campaign || !recipient) return page(res, 404, 'Message not available', '<p>This message is no longer available.</p>');
    // An A/B test's message shows the variant it carried.
    const content = await resolvedContent(db, campaign);
    const variant = campaign.variants?.find((v) => v.name === message!.variant);
    const shown = await templates.webVersion(variant ? variantContent(content, variant) : content, recipient);
    emailPage(req, res, shown.html);
  };

  /** A published campaign rendered with its archive fields, kept for the next reader. */
  const archived = async (db: Db, campaign: CampaignRow): Promise<CampaignPage> => {
    const key = `${campaign.id}:${campaign.updatedAt.getTime()}`;
    const cached = rendered.get(key);
    if (cached) return cached;
    // An A/B test is archived as its winner (the campaign's own content until there is one).
    const content = await resolvedContent(db, campaign);
    const winner = campaign.variants?.find((v) => v.name === campaign.winner?.variant);
    const shown = await templates.archived(winner ? variantContent(content, winner) : content, campaign.archiveMeta ?? {});
    if (rendered.size >= RENDERED_ARCHIVES) rendered.delete(rendered.keys().next().value!);
    rendered.set(key, shown);
    return shown;
  };

  const archivePages = async (req: IncomingMessage, res: ServerResponse, publicId: string, rest: string | undefined) => {
    const db = sqlOf(orm.em.fork());
    const account = await lookups.accountByPublicId(db, publicId);
    if (!account) return gone(res);
    const home = `${base}/archive/${publicId}`;
    if (rest?.startsWith('cmp_')) {
      const campaign = await campaignOf(account.id, rest);
      if (!campaign || !campaign.archive || !campaign.startedAt) return gone(res);
      return emailPage(req, res, (await archived(db, campaign)).html);
    }
    const entries = [];
    for (const campaign of await archive.published(orm.em.fork(), account.id, rest === 'feed.xml' ? FEED_SIZE : ARCHIVE_PAGE_SIZE))
      entries.push({ campaign, shown: await archived(db, campaign) });
    if (rest === 'feed.xml') {
      res.writeHead(200, {
        'Content-Type': 'application/atom+xml; charset=utf-8',
        'Cache-Control': 'public, max-age=300',
        'X-Content-Type-Options': 'nosniff',
      });
      return res.end(req.method === 'HEAD' ? undefined : atomFeed(account.name, home, entries));
    }
    page(
      res,
      200,
      `${escapeHtml(account.name)}: past campaigns`,
      entries.length
        ? `<p><a href="${escapeHtml(home)}/feed.xml">Atom feed</a></p><ul>${entries
            .map(
              ({ campaign, shown }) =>
                `<li><a href="${escapeHtml(`${home}/${campaign.id}`)}">${escapeHtml(shown.subject)}</a> <small>${campaign.startedAt!.toISOString().slice(0, 10)}</small></li>`,
            )
            .join('')}</ul>`
        : '<p>No campaigns yet.</p>',
    );
  };

  const failed = (res: ServerResponse, err: unknown) => {
    log.error({ err }, 'a campaign page failed');
    if (!res.headersSent) page(res, 500, 'Something went wrong', '<p>Please try again in a moment.</p>');
    else res.destroy();
  };

  return (req, res) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const view = path.startsWith('/v/');
    const match = view ? null : ARCHIVE_PATH.exec(path);
    if (!view && !match && !path.startsWith('/archive/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' });
      res.end();
      return true;
    }
    const answer = view ? webVersion(req, res, path.slice(3)) : match ? archivePages(req, res, match[1], match[2]) : Promise.resolve(gone(res));
    answer.catch((err: unknown) => failed(res, err));
    return true;
  };
}

const xml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** RFC 4287: each entry's content is the campaign's HTML as the archive shows it. */
function atomFeed(title: string, home: string, entries: { campaign: CampaignRow; shown: CampaignPage }[]): string {
  const updated = entries[0]?.campaign.startedAt ?? new Date(0);
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>${xml(title)}</title>
<id>${xml(home)}</id>
<link rel="alternate" type="text/html" href="${xml(home)}"/>
<link rel="self" type="application/atom+xml" href="${xml(home)}/feed.xml"/>
<updated>${updated.toISOString()}</updated>
${entries
  .map(
    ({ campaign, shown }) => `<entry>
<title>${xml(shown.subject)}</title>
<id>${xml(`${home}/${campaign.id}`)}</id>
<link rel="alternate" type="text/html" href="${xml(`${home}/${campaign.id}`)}"/>
<author><name>${xml(campaign.fromName ?? title)}</name></author>
<updated>${campaign.startedAt!.toISOString()}</updated>
<content type="html">${xml(shown.html)}</content>
</entry>`,
  )
  .join('\n')}
</feed>
`;
}
