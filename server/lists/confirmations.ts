import { randomUUID } from 'node:crypto';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { deletePendingSignups } from '../contacts/pending-signups.ts';
import { append } from '../events/outbox.ts';
import { escapeHtml } from '../formats/html.ts';
import type { Queue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { SecretKey } from '../secrets/key-ring.ts';
import { confirmationPath } from './links.ts';
import { listStore, type DueConfirmation } from './store.ts';
import { ConfirmationSigner } from './tokens.ts';
import { buildMime, type MimeMessage } from '../rendering/mime.ts';

const JOB = 'lists.confirmations';
const TICK_MS = 1000;
const EXPIRE_JOB = 'lists.signups-expire';
const EXPIRE_EVERY_MS = 5 * 60_000;
const BATCH = 50;
/** A claimed confirmation not recorded after this long (its sender died) is claimed again. */
const LEASE_SECONDS = 300;
/** A relay that puts a confirmation off (4xx, or unreachable) gets it again after this long. */
const RETRY_SECONDS = 60;

/** How a confirmation reaches the relay: the test sends' connection, handed in by start.ts. */
export interface ConfirmationMailer {
  sendMime(envelope: { from: string; to: string }, mime: string): Promise<{ kind: 'accepted' | 'rejected' | 'refused' | 'deferred' | 'transport_error' }>;
}

/** The confirmation message: a text and an HTML part with the signed link, nothing tracked. */
export function confirmationMessage(due: DueConfirmation & { from_email: string }, link: string): MimeMessage {
  const domain = due.from_email.split('@')[1];
  const greeting = due.first_name ? `Hello ${due.first_name},` : 'Hello,';
  const text = `${greeting}\n\nPlease confirm your subscription to ${due.list_name} by following this link:\n\n${link}\n\nIf you did not ask for it, ignore this message and you will not be subscribed.\n`;
  const html = `<p>${escapeHtml(greeting)}</p><p>Please confirm your subscription to <strong>${escapeHtml(due.list_name)}</strong>.</p>
<p><a href="${escapeHtml(link)}">Confirm my subscription</a></p><p>If you did not ask for it, ignore this message and you will not be subscribed.</p>`;
  return {
    from: { name: due.from_name, address: due.from_email },
    to: due.email,
    replyTo: null,
    subject: `Confirm your subscription to ${due.list_name}`,
    messageId: `<${randomUUID()}@${domain}>`,
    date: new Date(),
    headers: { 'X-Sendline-List': due.list_id },
    text,
    html,
  };
}

/**
 * Sends every confirmation due, through the relay connection test sends use, until none is
 * left. A 5xx ends it (the address will not confirm); a 4xx or an unreachable relay retries later.
 */
export async function sendDueConfirmations(db: Db, mailer: ConfirmationMailer, signer: ConfirmationSigner, publicUrl: string, log: Logger): Promise<void> {
  for (;;) {
    const due = await listStore.claimConfirmations(db, BATCH, LEASE_SECONDS);
    if (!due.length) return;
    for (const item of due) {
      const { from_email: fromEmail } = item;
      // No sender any more, or an address that bounced or complained: nothing is mailed to it.
      if (!fromEmail || item.contact_status === 'bounced' || item.contact_status === 'complained') {
        await listStore.confirmationSent(db, item.account_id, item.list_id, item.contact_id);
        continue;
      }
      const link = `${publicUrl.replace(/\/$/, '')}${confirmationPath(signer.sign({ listId: item.list_id, contactId: item.contact_id }))}`;
      const outcome = await mailer.sendMime({ from: fromEmail, to: item.email }, buildMime(confirmationMessage({ ...item, from_email: fromEmail }, link)));
      if (outcome.kind === 'deferred' || outcome.kind === 'transport_error') {
        log.warn({ list: item.list_id, contact: item.contact_id, outcome: outcome.kind }, 'a list confirmation was put off');
        await listStore.confirmationDeferred(db, item.account_id, item.list_id, item.contact_id, RETRY_SECONDS);
      } else {
        if (outcome.kind !== 'accepted') log.info({ list: item.list_id, contact: item.contact_id, outcome: outcome.kind }, 'a list confirmation was refused');
        await listStore.confirmationSent(db, item.account_id, item.list_id, item.contact_id);
      }
    }
  }
}

/**
 * Removes public sign-ups not confirmed in time, and the contacts that only they made (with
 * `contact.deleted`, as their `contact.created` was announced), in one transaction.
 */
export async function expirePendingSignups(transactions: Transactions): Promise<void> {
  await transactions.run(async (trx) => {
    const deleted = await deletePendingSignups(trx, await listStore.expireSignups(trx));
    const byAccount = Map.groupBy(deleted, (c) => c.account_id);
    for (const [accountId, contacts] of byAccount) {
      await append(
        trx,
        accountId,
        contacts.map((c) => ({ type: 'contact.deleted' as const, data: { contact_id: c.id } })),
      );
    }
  });
}

/**
 * Every second, in one process at a time: the confirmations that members added since are due;
 * every few minutes, sign-ups whose time to confirm has passed are removed.
 */
export function startConfirmationSender(deps: {
  queue: Queue;
  db: Db;
  transactions: Transactions;
  mailer: ConfirmationMailer;
  secretKeys: readonly SecretKey[];
  publicUrl: string;
  log: Logger;
}): void {
  const { queue, db, log } = deps;
  const signer = new ConfirmationSigner(deps.secretKeys);
  queue.every(JOB, TICK_MS, () => sendDueConfirmations(db, deps.mailer, signer, deps.publicUrl, log));
  queue.every(EXPIRE_JOB, EXPIRE_EVERY_MS, () => expirePendingSignups(deps.transactions));
}
