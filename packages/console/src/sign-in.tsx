/**
 * Sign-in: one field for an API key or an admin token. The secret is checked with the server
 * before the console opens, so a mistyped one is said at once.
 * @module
 */
import { useState } from 'preact/hooks';
import { RunloadError } from '@runload/client';
import { describeError } from './api.js';
import { sessionFor, type Session } from './session.js';

export function SignIn(props: { onSignIn: (session: Session) => void; check: (session: Session) => Promise<void> }) {
  const [secret, setSecret] = useState('');
  const [state, setState] = useState<{ readonly busy: boolean; readonly error: string | null }>({ busy: false, error: null });

  const submit = async (event: Event) => {
    event.preventDefault();
    const session = sessionFor(secret.trim());
    setState({ busy: true, error: null });
    try {
      await props.check(session);
      props.onSignIn(session);
    } catch (error) {
      const refused = RunloadError.is(error) && error.status === 401;
      setState({ busy: false, error: refused ? `The server refused it: ${error.message}` : describeError(error) });
    }
  };

  return (
    <main class="container sign-in">
      <h1>runload console</h1>
      <form onSubmit={(e) => void submit(e)}>
        <label for="secret">API key or admin token</label>
        <input id="secret" type="password" autocomplete="off" required value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
        {state.error ? <p role="alert">{state.error}</p> : null}
        <button type="submit" aria-busy={state.busy} disabled={state.busy}>
          Sign in
        </button>
      </form>
      <p>
        <small>The key is kept in this tab only (session storage) and sent to this server alone.</small>
      </p>
    </main>
  );
}
