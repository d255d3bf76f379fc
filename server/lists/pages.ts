import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { signal } from '../signals/outbox.ts';
import { append } from '../events/outbox.ts';
import { escapeHtml } from '../formats/html.ts';
import type { Logger } from '../logger.ts';
import { CONFIRM_PREFIX, THANKS_PREFIX } from './links.ts';
import { listStore } from './store.ts';
import type { ConfirmationSigner } from './tokens.ts';
import type { ContactService } from '../contacts/service.ts';
import { subscribePendingContact } from './service.ts';

export interface ConfirmationPageDeps {
  db: Db;
  transactions: Transactions;
  signer: ConfirmationSigner;
  /** The contacts' service, for a contact that waited for its confirmation (a unit of work per call). */
  contacts: () => ContactService;
  /** Writes a plain HTML page: the public routes' (the unsubscribe pages'), handed in by start.ts, so that these look the same. */
  page: (res: ServerResponse, status: number, title: string, body: string) => void;
  log: Logger;
}

/**
 * The double opt-in link's pages on PUBLIC_URL, answered before Express as the unsubscribe pages
 * are: a GET shows a page that asks (mail scanners follow every link, so a GET never confirms), its
 * POST confirms; and the thank-you page of public forms. Returns false for every other path.
 */
export function confirmationPages(deps: ConfirmationPageDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { db, transactions, signer, contacts, page, log } = deps;
  const invalid = (res: ServerResponse) =>
    page(res, 404, 'Link not found', '<p>This confirmation link is not valid. Please use the link in the original email.</p>');

  const answer = async (req: IncomingMessage, res: ServerResponse, token: string) => {
    const confirmation = signer.verify(token);
    if (!confirmation) return invalid(res);
    const { listId, contactId } = confirmation;
    const member = await listStore.describeMember(db, listId, contactId);
    if (!member) return invalid(res);
    const list = `<strong>${escapeHtml(member.list_name)}</strong>`;
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (member.status === 'subscribed') return page(res, 200, 'Subscribed', `<p>${escapeHtml(member.email)} is subscribed to ${list}.</p>`);
      if (member.status === 'unsubscribed') return page(res, 200, 'Not subscribed', `<p>${escapeHtml(member.email)} has left ${list}.</p>`);
      return page(
        res,
        200,
        'Confirm your subscription',
        `<p>Subscribe <strong>${escapeHtml(member.email)}</strong> to ${list}?</p><form method="post"><button type="submit">Confirm</button></form>`,
      );
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'GET, HEAD, POST' });
      return res.end();
    }
    req.resume();
    const confirmed = await transactions.run(async (trx) => {
      const confirmed = await listStore.confirm(trx, member.account_id, listId, contactId);
      if (confirmed) {
        await append(trx, member.account_id, [
          { type: 'contact.subscribed', data: { contact_id: contactId, email: member.email, previous_status: member.contact_status, list_id: listId } },
        ]);
        await signal(trx, member.account_id, [{ kind: 'list_joined', contactId, key: listId }]);
      }
      return confirmed;
    });
    if (!confirmed && member.status !== 'subscribed') return page(res, 200, 'Not subscribed', `<p>${escapeHtml(member.email)} has left ${list}.</p>`);
    await subscribePendingContact(contacts(), member.account_id, contactId);
    return page(res, 200, 'Subscribed', `<p>Thank you: ${escapeHtml(member.email)} is subscribed to ${list}.</p>`);
  };

  /** Says the same whatever the address was: what it says depends on the list alone. */
  const thanks = async (res: ServerResponse, publicId: string) => {
    const list = publicId.length <= 64 && !publicId.includes('\u0000') ? await listStore.byPublicId(db, publicId) : null;
    if (!list) return page(res, 404, 'Page not found', '<p>This subscription form is no longer available.</p>');
    const name = `<strong>${escapeHtml(list.name)}</strong>`;
    if (list.double_opt_in) {
      return page(res, 200, 'Check your inbox', `<p>Please follow the link in the message we sent you to confirm your subscription to ${name}.</p>`);
    }
    return page(res, 200, 'Thank you', `<p>Your subscription to ${name} is recorded.</p>`);
  };

  return (req, res) => {
    const url = req.url ?? '';
    const confirming = url.startsWith(CONFIRM_PREFIX);
    if (!confirming && !url.startsWith(THANKS_PREFIX)) return false;
    const query = url.indexOf('?');
    const rest = url.slice(confirming ? CONFIRM_PREFIX.length : THANKS_PREFIX.length, query < 0 ? undefined : query);
    let publicId = rest;
    try {
      publicId = decodeURIComponent(rest);
    } catch {
      // Not percent-encoding a public id ever has: the lookup finds nothing.
    }
    (confirming ? answer(req, res, rest) : thanks(res, publicId)).catch((err: unknown) => {
      log.error({ err }, 'a list confirmation page failed');
      if (!res.headersSent) page(res, 500, 'Something went wrong', '<p>Please try again in a moment.</p>');
      else res.destroy();
    });
    return true;
  };
}
