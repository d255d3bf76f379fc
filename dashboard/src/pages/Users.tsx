import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, field, formatDate } from '../ui.tsx';

type Role = components['schemas']['UserRole'];
type User = components['schemas']['User'];
const ROLES: Role[] = ['owner', 'admin', 'member'];
const RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1 };
const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, including granting the owner role',
  admin: 'manages users and API keys below owner',
  member: 'uses the API, manages nothing',
};

/** The caller as the API sees it now (a role may have changed since sign-in). */
export function useMe() {
  return useQuery({ queryKey: ['me'], queryFn: () => api().auth.me() });
}

/** The API's own rule: owners and admins manage users ranking at most as high as themselves. */
const canManage = (me: Role, user: Role) => me !== 'member' && RANK[me] >= RANK[user];
const grantable = (me: Role) => ROLES.filter((role) => RANK[role] <= RANK[me]);

function AddUser({ me }: { me: Role }) {
  const client = useQueryClient();
  const [added, setAdded] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: components['schemas']['UserCreate']) => api().users.create(body),
    onSuccess: (user) => {
      setAdded(user.email);
      void client.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAdded(null);
    const form = event.currentTarget;
    const data = new FormData(form);
    create.mutate(
      { email: field(data, 'email').trim(), name: field(data, 'name').trim(), password: field(data, 'password'), role: field(data, 'role') as Role },
      { onSuccess: () => form.reset() },
    );
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-user">
      <h2 id="new-user">Add a user</h2>
      <p className="muted">Give them the email and first password by a channel you trust; they can change the password in Settings.</p>
      <div className="grid">
        <label>
          Email
          <input name="email" type="email" required autoComplete="off" />
        </label>
        <label>
          Name
          <input name="name" required maxLength={200} autoComplete="off" />
        </label>
        <label>
          First password <span className="muted">(10 characters or more)</span>
          <input name="password" type="password" required minLength={10} maxLength={1024} autoComplete="new-password" />
        </label>
        <label>
          Role
          <select name="role" defaultValue="member">
            {grantable(me).map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorMessage error={create.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>
          Add user
        </button>
        <span role="status">{added && `${added} can now sign in.`}</span>
      </div>
    </form>
  );
}

function UserRow({ user, me, myId }: { user: User; me: Role; myId: string | undefined }) {
  const client = useQueryClient();
  const done = () => void client.invalidateQueries({ queryKey: ['users'] });
  const update = useMutation({ mutationFn: (role: Role) => api().users.update(user.id, { role }), onSuccess: done });
  const remove = useMutation({ mutationFn: () => api().users.delete(user.id), onSuccess: done });
  const manageable = canManage(me, user.role);
  const self = user.id === myId;
  return (
    <tr>
      <td>
        {user.name}
        {self && <span className="muted"> (you)</span>}
      </td>
      <td>{user.email}</td>
      <td>
        {manageable ? (
          <select
            aria-label={`Role of ${user.email}`}
            value={user.role}
            disabled={update.isPending}
            onChange={(event) => update.mutate(event.target.value as Role)}
          >
            {grantable(me).map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        ) : (
          user.role
        )}
        <ErrorMessage error={update.error ?? remove.error} />
      </td>
      <td>{formatDate(user.created_at)}</td>
      <td>
        {manageable && (
          <ConfirmButton
            label="Remove"
            danger
            question={`Remove ${user.email}? Their sessions end at once${self ? ', including yours' : ''}.`}
            onConfirm={() => remove.mutate()}
          />
        )}
      </td>
    </tr>
  );
}

export default function Users() {
  const me = useMe();
  const users = useQuery({ queryKey: ['users'], queryFn: () => api().users.list({ limit: 500 }).firstPage() });
  const role = me.data?.user?.role;
  return (
    <>
      <PageHeader title="Users" />
      <p className="muted">
        Owners: {ROLE_HELP.owner}. Admins: {ROLE_HELP.admin}. Members: {ROLE_HELP.member}.
      </p>
      {role === 'member' && <p className="card">You are a member: an owner or admin of the account adds users and changes roles.</p>}
      {role && role !== 'member' && <AddUser me={role} />}
      <ErrorMessage error={users.error ?? me.error} retry={() => void (users.error ? users.refetch() : me.refetch())} />
      {users.isPending || !role ? (
        <Loading />
      ) : users.data?.data.length === 0 ? (
        <Empty title="No users">
          <p>Add one above.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">The account’s users</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.data?.data.map((user) => (
                <UserRow key={user.id} user={user} me={role} myId={me.data?.user?.id} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
