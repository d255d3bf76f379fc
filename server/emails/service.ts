import type { components } from '../../generated/openapi.d.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { decodeCursor, toPage, type Page } from '../contract/pagination.ts';
import { conflict, Problem, validationFailed, type FieldError } from '../contract/problem.ts';
import { checkBatchItem } from './batch-items.ts';
import { emailJson } from './json.ts';
import { checkEmail, type CheckedEmail, type EmailSendRequest } from './rules.ts';
import { Coalescer } from './coalesce.ts';
import { emails, recipientStanding, type EmailFilters, type NewContent, type NewEmail, type NewRequest, type Refusal } from './store.ts';
import { withTemplate, type RenderTemplate } from './templated.ts';
import { announceQueued } from './wake.ts';
import type { SendingPolicy } from '../sending/identity.ts';

type RecipientResult = components['schemas']['EmailRecipientResult'];
type BatchItemResult = components['schemas']['EmailBatchItemResult'];
type EmailJson = components['schemas']['Email'];

/** Rows written per statement, so that no statement grows without bound. */
const ROWS_PER_STATEMENT = 2000;
/** Single requests' writes in flight at once per process, and requests one may carry (see Coalescer). */
const SINGLE_WRITES_IN_FLIGHT = 4;
const REQUESTS_PER_WRITE = 50;

/** Per `Transactions` (one per process): single requests of every account share its writes. */
const singleWrites = new WeakMap<Transactions, Coalescer<NewRequest, Map<string, Refusal>>>();
function singleWriter(transactions: Transactions): Coalescer<NewRequest, Map<string, Refusal>> {
  let writer = singleWrites.get(transactions);
  if (!writer) {
    writer = new Coalescer((items) => emails.insertMany({ transactions }, items), SINGLE_WRITES_IN_FLIGHT, REQUESTS_PER_WRITE);
    singleWrites.set(transactions, writer);
  }
  return writer;
}

interface Accepted {
  content: NewContent;
  recipients: NewEmail[];
  email: CheckedEmail;
}

/** Transactional email: accepting requests (each recipient queued or refused with its reason), reading and cancelling them. */
export class EmailService {
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly render: RenderTemplate;
  private readonly policy: SendingPolicy;

  /** `transactions` is the process's one (see `singleWriter`): the hot statements run prepared through it. */
  constructor(db: Db, transactions: Transactions, render: RenderTemplate, policy: SendingPolicy) {
    this.db = db;
    this.transactions = transactions;
    this.render = render;
    this.policy = policy;
  }

  async send(accountId: string, body: EmailSendRequest): Promise<RecipientResult[]> {
    const { email, errors } = checkEmail(await withTemplate(this.render, accountId, body), new Date());
    if (!email) throw validationFailed(errors, 'The email cannot be sent as it is.');
    return this.sendChecked(accountId, email);
  }

  /** A request checked already (the SMTP submission listener builds its own). */
  async sendChecked(accountId: string, email: CheckedEmail): Promise<RecipientResult[]> {
    await this.policy.requireSendable(accountId, email.from.email, '/from/email');
    const [results] = await this.accept(accountId, [email]);
    return results;
  }

  /** Why each of these addresses would be refused (bounced, complained, suppressed); absent when it would not. */
  refusals(accountId: string, addresses: string[]): Promise<Map<string, Refusal>> {
    return recipientStanding(this.transactions, accountId, addresses).then(({ refused }) => refused);
  }

  /** Each item checked (contract, then rules) and accepted or refused on its own; the accepted ones written in one transaction. */
  async batch(accountId: string, items: unknown[]): Promise<BatchItemResult[]> {
    const now = new Date();
    const results = new Array<BatchItemResult>(items.length);
    const good: { index: number; email: CheckedEmail }[] = [];
    // A batch's items mostly share their From address: the policy is asked once per address.
    const refusals = new Map<string, Promise<Problem | null>>();
    const refusalOf = (from: string) => {
      let refusal = refusals.get(from);
      if (!refusal) {
        refusal = this.policy.requireSendable(accountId, from, '/from/email').then(
          () => null,
          (error: unknown) => {
            if (error instanceof Problem && error.code === 'domain_not_verified') return error;
            throw error;
          },
        );
        refusals.set(from, refusal);
      }
      return refusal;
    };
    for (const [index, item] of items.entries()) {
      const checked = checkBatchItem(item);
      let errors: FieldError[] | null = checked.errors;
      if (checked.body) {
        const ruled = await withTemplate(this.render, accountId, checked.body).then(
          (body) => checkEmail(body, now),
          (error: unknown) => {
            if (error instanceof Problem && error.errors) return { email: null, errors: error.errors };
            throw error;
          },
        );
        if (ruled.email) {
          const refusal = await refusalOf(ruled.email.from.email);
          if (refusal)
            results[index] = { index, status: 'refused', error: { code: 'domain_not_verified', detail: refusal.message, errors: refusal.errors ?? [] } };
          else good.push({ index, email: ruled.email });
        } else errors = ruled.errors;
      }
      if (errors) results[index] = { index, status: 'refused', error: { code: 'validation_failed', detail: 'The email cannot be sent as it is.', errors } };
    }
    const accepted = await this.accept(
      accountId,
      good.map((g) => g.email),
    );
    for (const [n, { index }] of good.entries()) results[index] = { index, status: 'accepted', data: accepted[n] };
    return results;
  }

  private async accept(accountId: string, list: CheckedEmail[]): Promise<RecipientResult[][]> {
    if (!list.length) return [];
    const accepted = list.map((email): Accepted => {
      const content: NewContent = {
        id: newId('emc'),
        accountId,
        fromEmail: email.from.email,
        fromName: email.from.name,
        replyTo: email.replyTo,
        toHeader: email.toHeader,
        ccHeader: email.ccHeader,
        subject: email.subject,
        html: email.html,
        text: email.text,
        headers: email.headers,
        attachments: email.attachments,
      };
      return { content, recipients: email.recipients.map((r) => ({ id: newId('em'), email: r.email, kind: r.kind })), email };
    });
    // Requests together up to a statement's worth of recipients; several statements in one transaction.
    const chunks: Accepted[][] = [];
    for (const a of accepted) {
      const last = chunks.at(-1);
      if (last && last.reduce((n, x) => n + x.recipients.length, 0) + a.recipients.length <= ROWS_PER_STATEMENT) last.push(a);
      else chunks.push([a]);
    }
    const requestsOf = (chunk: Accepted[]) => chunk.map((a): NewRequest => ({ content: a.content, recipients: a.recipients, shared: a.email }));
    const refused = new Map<string, Refusal>();
    const note = (found: Map<string, Refusal>) => found.forEach((reason, id) => refused.set(id, reason));
    // A single request shares its statement and commit with those arriving beside it.
    if (accepted.length === 1) note(await singleWriter(this.transactions).run(requestsOf(accepted)[0]));
    else if (chunks.length === 1) note(await emails.insertMany({ transactions: this.transactions }, requestsOf(chunks[0])));
    else
      await this.transactions.run(async (tx) => {
        for (const chunk of chunks) note(await emails.insertMany({ db: tx }, requestsOf(chunk)));
      });
    if (accepted.some((a) => !a.email.scheduledAt && a.recipients.some((r) => !refused.has(r.id)))) announceQueued();
    // Refused recipients answer without an id: theirs was never stored.
    return accepted.map(({ recipients, email }) =>
      recipients.map((r): RecipientResult => {
        const reason = refused.get(r.id);
        if (reason) return { id: null, email: r.email, kind: r.kind, status: 'refused', reason };
        return { id: r.id, email: r.email, kind: r.kind, status: email.scheduledAt ? 'scheduled' : 'queued', reason: null };
      }),
    );
  }

  async get(accountId: string, id: string): Promise<EmailJson> {
    const row = await emails.byId(this.db, accountId, id);
    if (!row) throw new Problem(404, 'not_found', 'No such email.');
    const timeline = await emails.timeline(this.db, accountId, id);
    return {
      ...emailJson(row),
      events: timeline.map((e) => ({ id: e.id, type: e.type, created_at: e.created_at.toISOString(), data: e.data })),
    };
  }

  async list(accountId: string, filters: EmailFilters, limit: number, cursor: string | undefined): Promise<Page<EmailJson>> {
    const rows = await emails.page(this.db, accountId, filters, decodeCursor(cursor), limit);
    return toPage(rows, limit, (r) => ({ at: r.created_at, id: r.id }), emailJson);
  }

  async cancel(accountId: string, id: string): Promise<EmailJson> {
    const cancelled = await emails.cancelScheduled(this.db, accountId, id);
    const row = await emails.byId(this.db, accountId, id);
    if (!row) throw new Problem(404, 'not_found', 'No such email.');
    if (!cancelled)
      throw conflict('invalid_state_transition', `The email is ${row.status}; only a scheduled one can be cancelled.`, { current_status: row.status });
    return emailJson(row);
  }
}
