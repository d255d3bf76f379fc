import { Migration } from '@mikro-orm/migrations';

/** Tables that had no `account_id`, each with the parent it is taken from. */
const ADOPTED = [
  ['campaign_audience_pieces', 'campaign_id', 'campaigns'],
  ['campaign_domains', 'campaign_id', 'campaigns'],
  ['campaign_links', 'campaign_id', 'campaigns'],
  ['contact_import_chunks', 'import_id', 'contact_imports'],
  ['contact_import_errors', 'import_id', 'contact_imports'],
  ['contact_export_chunks', 'export_id', 'contact_exports'],
] as const;

/** Each table's primary key before `account_id`, which ends it. */
const PRIMARY_KEYS: Record<string, string> = {
  bounces: 'id',
  campaign_audience_pieces: 'id',
  campaign_audiences: 'campaign_id',
  campaign_domains: 'campaign_id, domain',
  campaign_hourly: 'campaign_id, bucket',
  campaign_links: 'campaign_id, url',
  campaigns: 'id',
  clicks: 'id',
  contact_export_chunks: 'export_id, seq',
  contact_exports: 'id',
  contact_fields: 'id',
  contact_import_chunks: 'import_id, seq',
  contact_import_errors: 'import_id, "row"',
  contact_imports: 'id',
  contact_topic_optouts: 'topic_id, contact_id',
  contacts: 'id',
  conversions: 'id',
  email_contents: 'id',
  emails: 'id',
  events: 'id',
  list_members: 'list_id, contact_id',
  lists: 'id',
  messages: 'id',
  opens: 'id',
  payments: 'id',
  segments: 'id',
  sending_domains: 'id',
  suppressions: 'id',
  template_versions: 'id',
  templates: 'id',
  topics: 'id',
  unsubscribes: 'id',
  webhook_deliveries: 'id',
  webhooks: 'id',
};

/** Foreign keys within an account, each deleting with its parent: table, column after `account_id`, parent. */
const FOREIGN_KEYS = [
  ['bounces', 'campaign_id', 'campaigns'],
  ['campaign_audience_pieces', 'campaign_id', 'campaign_audiences (account_id, campaign_id)'],
  ['campaign_audiences', 'campaign_id', 'campaigns'],
  ['campaign_domains', 'campaign_id', 'campaigns'],
  ['campaign_hourly', 'campaign_id', 'campaigns'],
  ['campaign_links', 'campaign_id', 'campaigns'],
  ['contact_export_chunks', 'export_id', 'contact_exports'],
  ['contact_import_chunks', 'import_id', 'contact_imports'],
  ['contact_import_errors', 'import_id', 'contact_imports'],
  ['contact_topic_optouts', 'contact_id', 'contacts'],
  ['contact_topic_optouts', 'topic_id', 'topics'],
  ['emails', 'content_id', 'email_contents'],
  ['list_members', 'contact_id', 'contacts'],
  ['template_versions', 'template_id', 'templates'],
  ['unsubscribes', 'campaign_id', 'campaigns'],
  ['webhook_deliveries', 'webhook_id', 'webhooks'],
] as const;

/**
 * Every account-scoped key carries `account_id`, as Citus needs of tables distributed by account
 * (test/citus/schema-rules.test.ts): primary keys and unique constraints end with it, foreign
 * keys between the account's tables include it, and the six tables that had no `account_id` get
 * it from their parent. Ids stay unique on their own (random, see sendline_id), so the entities
 * keep `id` as theirs, and the keys still lead with them: a lookup by id alone, or a join on it,
 * seeks the primary key as before.
 *
 * The four foreign keys that set a column null on delete cannot include the distribution column
 * under Citus; the module that deletes the parent now clears the references itself:
 * `campaigns.topic_id` (topics), `conversions.campaign_id` and `payments.campaign_id`
 * (campaigns), `emails.contact_id` (contacts). So do two of the three triggers that deleted or
 * released rows no foreign key reaches: a campaign's messages, opens and clicks, and the messages
 * of a deleted contact. The third deleted an account's contacts and events with it; Sendline
 * deletes no account, and an operator who does deletes those first.
 */
export class Migration20261203100000KeysByAccount extends Migration {
  override name = 'Migration20261203100000KeysByAccount';

  override up(): void {
    for (const [table, column, parent] of ADOPTED) {
      this.addSql(`alter table ${table} add column account_id text;
        update ${table} t set account_id = p.account_id from ${parent} p where p.id = t.${column};
        alter table ${table} alter column account_id set not null;`);
    }
    this.addSql(`drop trigger accounts_cascade on accounts; drop function cascade_account_delete();
      drop trigger campaigns_cascade on campaigns; drop function cascade_campaign_delete();
      drop trigger contacts_release_messages on contacts; drop function release_contact_messages();`);
    this.addSql(`alter table campaigns drop constraint campaigns_topic_id_fkey;
      alter table conversions drop constraint conversions_campaign_id_fkey;
      alter table payments drop constraint payments_campaign_id_fkey;
      alter table emails drop constraint emails_contact_id_fkey;`);
    for (const [table, column] of FOREIGN_KEYS) this.addSql(`alter table ${table} drop constraint ${table}_${column}_fkey;`);
    for (const [table, columns] of Object.entries(PRIMARY_KEYS)) {
      this.addSql(`alter table ${table} drop constraint ${table}_pkey, add primary key (${columns}, account_id);`);
    }
    this.addSql(`alter table lists drop constraint lists_public_id_key, add constraint lists_public_id_key unique (public_id, account_id);
      alter table template_versions drop constraint template_versions_template_id_version_key,
        add constraint template_versions_template_id_version_key unique (template_id, version, account_id);
      alter table webhook_deliveries drop constraint webhook_deliveries_webhook_id_event_id_key,
        add constraint webhook_deliveries_webhook_id_event_id_key unique (webhook_id, event_id, account_id);`);
    for (const [table, column, parent] of FOREIGN_KEYS) {
      const references = parent.includes('(') ? parent : `${parent} (account_id, id)`;
      this.addSql(`alter table ${table} add constraint ${table}_${column}_fkey
        foreign key (account_id, ${column}) references ${references} on delete cascade;`);
    }
  }
}
