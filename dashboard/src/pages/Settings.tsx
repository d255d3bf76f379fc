import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../session.ts';
import { ErrorMessage, Loading, PageHeader, field, formatDate } from '../ui.tsx';
import { useMe } from './Users.tsx';
import { TimeZoneInput } from '../TimeZoneInput.tsx';

function AccountName({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const account = useQuery({ queryKey: ['account'], queryFn: () => api().accounts.get() });
  const rename = useMutation({
    mutationFn: (name: string) => api().accounts.update({ name }),
    onSuccess: (updated) => {
      client.setQueryData(['account'], updated);
      void client.invalidateQueries({ queryKey: ['me'] });
    },
  });
  if (account.isPending) return <Loading />;
  if (account.error) return <ErrorMessage error={account.error} retry={() => void account.refetch()} />;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    rename.mutate(field(new FormData(event.currentTarget), 'name').trim());
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="account-settings">
      <h2 id="account-settings">Account</h2>
      <p className="muted">
        <code>{account.data.id}</code>, created {formatDate(account.data.created_at)}.
      </p>
      <p>
        Public archive of the campaigns you publish: <a href={`/archive/${account.data.public_id}`}>{`/archive/${account.data.public_id}`}</a>
      </p>
      <label>
        Account name
        <input name="name" required maxLength={200} defaultValue={account.data.name} key={account.data.name} disabled={!canEdit} />
      </label>
      {!canEdit && <p className="muted">Only owners and admins rename the account.</p>}
      <ErrorMessage error={rename.error} />
      {canEdit && (
        <div className="row">
          <button type="submit" className="primary" disabled={rename.isPending}>
            Rename account
          </button>
          <span role="status">{rename.isSuccess && 'Saved.'}</span>
        </div>
      )}
    </form>
  );
}

function AccountTimeZone({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const account = useQuery({ queryKey: ['account'], queryFn: () => api().accounts.get() });
  const save = useMutation({
    mutationFn: (timezone: string) => api().accounts.update({ timezone }),
    onSuccess: (updated) => client.setQueryData(['account'], updated),
  });
  if (!account.data) return null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate(field(new FormData(event.currentTarget), 'timezone').trim());
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="account-time-zone">
      <h2 id="account-time-zone">Time zone</h2>
      <p className="muted">Contacts without a time zone of their own are in this one: for campaigns sent at a local time, and for automations.</p>
      <label>
        Default time zone
        <TimeZoneInput name="timezone" required defaultValue={account.data.timezone} key={account.data.timezone} disabled={!canEdit} />
      </label>
      <ErrorMessage error={save.error} />
      {canEdit && (
        <div className="row">
          <button type="submit" disabled={save.isPending}>
            Save time zone
          </button>
          <span role="status">{save.isSuccess && 'Saved.'}</span>
        </div>
      )}
    </form>
  );
}

function Password() {
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: (body: { current_password: string; new_password: string }) => api().auth.changePassword(body),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const next = field(data, 'new_password');
    setMismatch(next !== field(data, 'confirm_password'));
    if (next !== field(data, 'confirm_password')) return;
    change.mutate({ current_password: field(data, 'current_password'), new_password: next }, { onSuccess: () => form.reset() });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="password-settings">
      <h2 id="password-settings">Your password</h2>
      <p className="muted">Changing it signs you out everywhere else: every other browser and device has to sign in again.</p>
      <div className="grid">
        <label>
          Current password
          <input name="current_password" type="password" required maxLength={1024} autoComplete="current-password" />
        </label>
        <label>
          New password <span className="muted">(10 characters or more)</span>
          <input name="new_password" type="password" required minLength={10} maxLength={1024} autoComplete="new-password" />
        </label>
        <label>
          New password, again
          <input name="confirm_password" type="password" required minLength={10} maxLength={1024} autoComplete="new-password" />
        </label>
      </div>
      {mismatch && (
        <p role="alert" className="error">
          The two new passwords differ. Type the same one twice.
        </p>
      )}
      <ErrorMessage error={change.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={change.isPending}>
          Change password
        </button>
        <span role="status">{change.isSuccess && 'Password changed. Your other sessions have ended.'}</span>
      </div>
    </form>
  );
}

export default function Settings() {
  const me = useMe();
  const role = me.data?.user?.role;
  return (
    <>
      <PageHeader title="Settings" />
      <ErrorMessage error={me.error} retry={() => void me.refetch()} />
      {me.isPending ? (
        <Loading />
      ) : (
        <>
          <AccountName canEdit={role === 'owner' || role === 'admin'} />
          <AccountTimeZone canEdit={role === 'owner' || role === 'admin'} />
          <Password />
        </>
      )}
    </>
  );
}
