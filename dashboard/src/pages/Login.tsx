import { useEffect, useState, type FormEvent } from 'react';
import { login } from '../session.ts';
import { ErrorMessage, field } from '../ui.tsx';

export function Login({ onSignedIn }: { onSignedIn: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Sendline';
  }, []);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await login(field(form, 'email'), field(form, 'password'));
      onSignedIn();
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  return (
    <main id="main" className="login">
      <form onSubmit={(event) => void submit(event)} className="card stack" aria-labelledby="login-title">
        <h1 id="login-title">Sign in to Sendline</h1>
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required autoFocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <ErrorMessage error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
