/** The header a backend's credentials become on every HTTP and WebSocket request to it. */
import type { BackendCredentials } from '@runload/core';

export interface AuthHeader {
  readonly name: string;
  readonly value: string;
}

export function authHeaderOf(auth: BackendCredentials | null | undefined): AuthHeader | null {
  if (!auth) return null;
  if (auth.kind === 'header') return { name: auth.name, value: auth.value };
  return { name: 'Authorization', value: `Basic ${Buffer.from(`${auth.user}:${auth.password}`, 'utf8').toString('base64')}` };
}

export function authHeaders(header: AuthHeader | null): Record<string, string> {
  return header ? { [header.name]: header.value } : {};
}
