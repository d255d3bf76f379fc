import { Migration } from '@mikro-orm/migrations';

/**
 * Templates: a draft per template, and its published versions, each frozen with the sources of
 * the partials and layouts it uses (`partials`: name → `{html, text}`) so that a version renders
 * the same forever. `partial_names` are the names a draft or version calls directly. Campaigns
 * may name a template instead of carrying their content; no foreign key: a finished campaign
 * outlives its template, and the templates store refuses to delete one an unfinished campaign uses.
 */
export class Migration20261124040000Templates extends Migration {
  override name = 'Migration20261124040000Templates';

  override up(): void {
    this.addSql(`
      create table templates (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        name text not null,
        description text,
        subject text not null default '',
        html text not null default '',
        text text,
        partial_names text[] not null default '{}',
        published_version integer,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );
      create unique index templates_account_name on templates (account_id, lower(name));
      create index templates_account_created on templates (account_id, created_at, id);

      create table template_versions (
        id text primary key,
        account_id text not null references accounts(id) on delete cascade,
        template_id text not null references templates(id) on delete cascade,
        version integer not null,
        subject text not null,
        html text not null,
        text text,
        partial_names text[] not null default '{}',
        partials jsonb not null default '{}'::jsonb,
        created_at timestamptz(3) not null default now(),
        unique (template_id, version)
      );

      alter table campaigns
        add column template_id text,
        add column template_version integer,
        add column template_data jsonb;
      create index campaigns_template on campaigns (template_id) where template_id is not null;
    `);
  }
}
