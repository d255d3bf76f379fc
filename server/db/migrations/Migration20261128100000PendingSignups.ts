import { Migration } from '@mikro-orm/migrations';

/**
 * A public double opt-in sign-up waits as a list membership, neither suppressing nor
 * unsubscribing anyone: it expires unconfirmed (`signup_expires_at`), and the confirmations it
 * asks for are counted per member over a day. Earlier releases put the address of a contact such
 * a sign-up made on the suppression list (source `contact_status`, detail "double opt-in not
 * confirmed yet"): those entries are removed where the contact still waits or is gone, and the
 * waiting memberships expire 7 days after their confirmation was asked for.
 */
export class Migration20261128100000PendingSignups extends Migration {
  override name = 'Migration20261128100000PendingSignups';

  override up(): void {
    this.addSql(`
      alter table list_members
        add column signup_expires_at timestamptz(3),
        add column confirmations_requested integer not null default 0,
        add column confirmations_requested_since timestamptz(3);
      create index list_members_signup_expires on list_members (signup_expires_at) where signup_expires_at is not null;

      delete from suppressions s
      where s.source = 'contact_status' and s.detail = 'double opt-in not confirmed yet' and s.email is not null
        and not exists (
          select 1 from contacts c
          where c.account_id = s.account_id and lower(c.email) = lower(s.email)
            and not (c.status = 'unsubscribed' and c.status_reason = 'double opt-in not confirmed yet')
        );

      update list_members m
      set signup_expires_at = coalesce(m.confirmation_sent_at, m.updated_at) + interval '7 days'
      from contacts c
      where c.id = m.contact_id and m.status = 'unconfirmed'
        and c.status = 'unsubscribed' and c.status_reason = 'double opt-in not confirmed yet';
    `);
  }
}
