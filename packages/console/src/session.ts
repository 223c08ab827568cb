/**
 * The signed-in secret. It lives in `sessionStorage` only (gone with the tab, never in
 * `localStorage` or a cookie) and is sent as a Bearer token by the clients built from it.
 * @module
 */
const STORAGE_KEY = 'runload.console.secret';

/** What the secret opens: an account's console (an API key) or the operator's (an admin token). */
export type Session = { readonly kind: 'account'; readonly secret: string } | { readonly kind: 'operator'; readonly secret: string };

/** Admin tokens carry their own prefix, so the console knows which one it was given without a request. */
export function sessionFor(secret: string): Session {
  return secret.startsWith('rladm_') ? { kind: 'operator', secret } : { kind: 'account', secret };
}

export function storedSession(): Session | null {
  const secret = sessionStorage.getItem(STORAGE_KEY);
  return secret ? sessionFor(secret) : null;
}

export function storeSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, session.secret);
}

export function forgetSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
