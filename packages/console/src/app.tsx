/** The console: sign-in, then the account's console for an API key or the operator's for an admin token. */
import { useState } from 'preact/hooks';
import { AccountConsole } from './account/account-console.js';
import { accountClient } from './api.js';
import { OperatorConsole, checkAdminToken } from './operator/operator-console.js';
import { forgetSession, storeSession, storedSession, type Session } from './session.js';
import { SignIn } from './sign-in.js';

async function check(session: Session): Promise<void> {
  if (session.kind === 'operator') return checkAdminToken(session.secret);
  // Reading the account proves the key.
  await accountClient(session.secret).getAccount();
}

export function App() {
  const [session, setSession] = useState<Session | null>(storedSession);
  const signIn = (next: Session) => {
    storeSession(next);
    // A link to a page (a run, say) opened before signing in lands there; otherwise the first section.
    if (location.hash.length <= 2) location.hash = next.kind === 'operator' ? '/pool' : '/apps';
    setSession(next);
  };
  const signOut = () => {
    forgetSession();
    location.hash = '';
    setSession(null);
  };
  if (!session) return <SignIn onSignIn={signIn} check={check} />;
  return session.kind === 'operator' ? <OperatorConsole secret={session.secret} onSignOut={signOut} /> : <AccountConsole secret={session.secret} onSignOut={signOut} />;
}
