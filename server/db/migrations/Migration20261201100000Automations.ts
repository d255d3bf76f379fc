import { Migration } from '@mikro-orm/migrations';

/**
 * Automations: journeys, their versions, each contact's enrolments with the path it took, and
 * the signals (a contact created, tagged, joining a list, an event) that enrol contacts.
 * Every table is keyed by `account_id` first, so that it distributes with the account's data.
 * Automation emails are transactional copies that name their automation, step and enrolment.
 */
export class Migration20261201100000Automations extends Migration {
  override name = 'Migration20261201100000Automations';

  override up(): void {
    this.addSql(`
      create table automations (
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        id text not null,
        name text not null,
        status text not null default 'draft' check (status in ('draft', 'active', 'paused', 'archived')),
        trigger jsonb not null,
        steps jsonb not null,
        settings jsonb not null,
        version integer not null default 0,
        webhook_secret_sealed text not null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        activated_at timestamptz(3),
        primary key (account_id, id)
      );`);
    this.addSql('create index automations_account_created on automations (account_id, created_at, id);');
    this.addSql("create index automations_active on automations (account_id) where status = 'active';");
    this.addSql(`
      create table automation_versions (
        account_id text not null,
        automation_id text not null,
        version integer not null,
        trigger jsonb not null,
        steps jsonb not null,
        settings jsonb not null,
        created_at timestamptz(3) not null default now(),
        primary key (account_id, automation_id, version),
        foreign key (account_id, automation_id) references automations (account_id, id) on delete cascade
      );`);
    this.addSql(`
      create table automation_enrollments (
        account_id text not null,
        id text not null,
        automation_id text not null,
        version integer not null,
        contact_id text not null,
        status text not null check (status in ('active', 'waiting', 'completed', 'exited', 'converted', 'failed')),
        step_id text,
        due_at timestamptz(3),
        waiting_for text,
        context jsonb not null default '{}',
        visits integer not null default 0,
        exit_reason text,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        finished_at timestamptz(3),
        primary key (account_id, id),
        foreign key (account_id, automation_id, version) references automation_versions (account_id, automation_id, version) on delete cascade
      );`);
    this.addSql('create index automation_enrollments_due on automation_enrollments (account_id, automation_id, due_at) where due_at is not null;');
    this.addSql('create index automation_enrollments_page on automation_enrollments (account_id, automation_id, created_at, id);');
    this.addSql('create index automation_enrollments_contact on automation_enrollments (account_id, contact_id, created_at, id);');
    this.addSql(
      "create index automation_enrollments_awaiting on automation_enrollments (account_id, contact_id, waiting_for) where status = 'waiting' and waiting_for is not null;",
    );
    this.addSql(`
      create table automation_path (
        account_id text not null,
        enrollment_id text not null,
        seq integer not null,
        automation_id text not null,
        step_id text not null,
        step_type text not null,
        entered_at timestamptz(3) not null default now(),
        outcome jsonb not null default '{}',
        message_id text,
        primary key (account_id, enrollment_id, seq),
        foreign key (account_id, enrollment_id) references automation_enrollments (account_id, id) on delete cascade
      );`);
    this.addSql('create index automation_path_step on automation_path (account_id, automation_id, step_id);');
    this.addSql(`
      create table automation_contacts (
        account_id text not null,
        automation_id text not null,
        contact_id text not null,
        live_enrollment_id text,
        entries integer not null default 0,
        last_occurrence date,
        in_segment boolean not null default false,
        primary key (account_id, automation_id, contact_id),
        foreign key (account_id, automation_id) references automations (account_id, id) on delete cascade
      );`);
    this.addSql(`
      create table contact_signals (
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        id text not null,
        kind text not null,
        contact_id text not null,
        key text not null default '',
        data jsonb,
        created_at timestamptz(3) not null default now(),
        primary key (account_id, id)
      );`);
    this.addSql('create index contact_signals_order on contact_signals (created_at, id);');
    this.addSql(`
      create table signal_interests (
        account_id text not null references accounts(id) on delete cascade deferrable initially deferred,
        subscriber text not null,
        kind text not null,
        key text not null default '',
        primary key (account_id, kind, key, subscriber)
      );`);
    this.addSql('create index signal_interests_subscriber on signal_interests (account_id, subscriber);');
    this.addSql(
      'alter table emails add column automation_id text, add column automation_step_id text, add column enrollment_id text, add column unsubscribed_at timestamptz(3);',
    );
  }
}
