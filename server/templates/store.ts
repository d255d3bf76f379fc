import { sql, type Selectable } from 'kysely';
import type { Database, Db } from '../db/kysely.ts';
import { keysetPage, NEWEST_FIRST, OLDEST_FIRST } from '../db/keyset.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { FrozenPartials } from '../rendering/liquid.ts';

/**
 * The templates aggregate's store: the only code that writes `templates` and `template_versions`.
 * Every read names the account: another account's template is not found.
 */

export type TemplateColumns = Selectable<Database['templates']>;
export type VersionColumns = Selectable<Database['template_versions']>;

/** A published version as the partial lookup needs it. */
export interface PublishedPartial {
  name: string;
  html: string;
  text: string | null;
  partial_names: string[];
}

/** The unique index on the account's names refused the write. */
export const isNameTaken = (error: unknown) => (error as { code?: unknown }).code === '23505';

export const templates = {
  byId(db: Db, accountId: string, id: string): Promise<TemplateColumns | undefined> {
    return db.selectFrom('templates').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  },

  /**
   * The template locked for the rest of `tx`'s transaction: `share` while a campaign takes it up
   * (several may at once), `update` to publish or delete it.
   */
  async lock(tx: Db, accountId: string, id: string, mode: 'share' | 'update'): Promise<TemplateColumns | undefined> {
    const query = tx.selectFrom('templates').selectAll().where('id', '=', id).where('account_id', '=', accountId);
    return (mode === 'share' ? query.forShare() : query.forUpdate()).executeTakeFirst();
  },

  /** The id of the account's template with this name, whatever the case. */
  async named(db: Db, accountId: string, name: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('templates')
      .select('id')
      .where('account_id', '=', accountId)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
      .executeTakeFirst();
    return row?.id;
  },

  page(db: Db, accountId: string, after: Cursor | null, limit: number): Promise<TemplateColumns[]> {
    const query = db.selectFrom('templates').selectAll().where('account_id', '=', accountId);
    return keysetPage(query, OLDEST_FIRST, after, limit).execute();
  },

  /** Throws the unique violation when the name is taken (`isNameTaken`). */
  create(
    db: Db,
    row: Pick<TemplateColumns, 'id' | 'account_id' | 'name' | 'description' | 'subject' | 'html' | 'text' | 'partial_names'>,
  ): Promise<TemplateColumns> {
    const now = new Date();
    return db
      .insertInto('templates')
      .values({ ...row, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  update(
    db: Db,
    accountId: string,
    id: string,
    change: Partial<Pick<TemplateColumns, 'name' | 'description' | 'subject' | 'html' | 'text' | 'partial_names'>>,
  ): Promise<TemplateColumns | undefined> {
    return db
      .updateTable('templates')
      .set({ ...change, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst();
  },

  async remove(tx: Db, accountId: string, id: string): Promise<void> {
    await tx.deleteFrom('templates').where('account_id', '=', accountId).where('id', '=', id).execute();
  },

  /** Whether a campaign that may still send (not completed or cancelled) uses the template. */
  async usedByUnfinishedCampaign(db: Db, accountId: string, id: string): Promise<boolean> {
    const row = await db
      .selectFrom('campaigns')
      .select('id')
      .where('account_id', '=', accountId)
      .where('template_id', '=', id)
      .where('status', 'not in', ['completed', 'cancelled'])
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** The latest published version of each of the account's templates named (lower-cased names). */
  publishedNamed(db: Db, accountId: string, names: string[]): Promise<PublishedPartial[]> {
    if (!names.length) return Promise.resolve([]);
    return db
      .selectFrom('templates as t')
      .innerJoin('template_versions as v', (join) =>
        join.onRef('v.account_id', '=', 't.account_id').onRef('v.template_id', '=', 't.id').onRef('v.version', '=', 't.published_version'),
      )
      .select(['t.name', 'v.html', 'v.text', 'v.partial_names'])
      .where('t.account_id', '=', accountId)
      .where((eb) => eb(eb.fn('lower', ['t.name']), 'in', names))
      .execute();
  },
};

export const versions = {
  byNumber(db: Db, accountId: string, templateId: string, version: number): Promise<VersionColumns | undefined> {
    return db
      .selectFrom('template_versions')
      .selectAll()
      .where('template_id', '=', templateId)
      .where('account_id', '=', accountId)
      .where('version', '=', version)
      .executeTakeFirst();
  },

  /** `version` of the account's template, or its latest published one when null: one query. */
  resolve(db: Db, accountId: string, templateId: string, version: number | null): Promise<VersionColumns | undefined> {
    return db
      .selectFrom('template_versions as v')
      .innerJoin('templates as t', (join) => join.onRef('t.account_id', '=', 'v.account_id').onRef('t.id', '=', 'v.template_id'))
      .selectAll('v')
      .where('t.id', '=', templateId)
      .where('t.account_id', '=', accountId)
      .where((eb) => eb('v.version', '=', version === null ? eb.ref('t.published_version') : eb.val(version)))
      .executeTakeFirst();
  },

  /** Newest first. */
  page(db: Db, accountId: string, templateId: string, after: Cursor | null, limit: number): Promise<VersionColumns[]> {
    const query = db.selectFrom('template_versions').selectAll().where('account_id', '=', accountId).where('template_id', '=', templateId);
    return keysetPage(query, NEWEST_FIRST, after, limit).execute();
  },

  /** Adds the next version of a template locked in `tx` and makes it the published one. */
  async publish(tx: Db, template: TemplateColumns, row: { id: string; partials: FrozenPartials; partial_names: string[] }): Promise<VersionColumns> {
    const version = (template.published_version ?? 0) + 1;
    const inserted = await tx
      .insertInto('template_versions')
      .values({
        id: row.id,
        account_id: template.account_id,
        template_id: template.id,
        version,
        subject: template.subject,
        html: template.html,
        text: template.text,
        partial_names: row.partial_names,
        partials: row.partials,
        created_at: new Date(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await tx.updateTable('templates').set({ published_version: version }).where('account_id', '=', template.account_id).where('id', '=', template.id).execute();
    return inserted;
  },
};
