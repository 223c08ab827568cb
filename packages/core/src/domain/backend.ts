/**
 * A ComfyUI server of the pool, as data shared by every instance: where it is, where it came
 * from, whether it takes new work (its drain state), the labels placement matches, its depth and
 * the credentials it is reached with (never shown).
 * @module
 */
import { CoreError } from './errors.js';

export const BACKEND_SOURCES = ['static', 'api', 'registered', 'dns'] as const;
/** Where a backend came from: the configuration, an operator, the machine itself (a lease), a DNS name. */
export type BackendSource = (typeof BACKEND_SOURCES)[number];

export const BACKEND_STATES = ['active', 'draining', 'drained'] as const;
/** `active` takes new prompts; `draining` finishes what it holds and takes nothing new; `drained` holds nothing. */
export type BackendState = (typeof BACKEND_STATES)[number];

/** Credentials sent on every request to a backend behind an authenticating proxy. */
export type BackendCredentials =
  | { readonly kind: 'header'; readonly name: string; readonly value: string }
  | { readonly kind: 'basic'; readonly user: string; readonly password: string };

export type BackendLabels = Readonly<Record<string, string>>;

export interface Backend {
  readonly id: string;
  /** Normalised: no trailing slash, lower-case scheme and host. Unique. Runs name their backend by it. */
  readonly url: string;
  readonly source: BackendSource;
  readonly state: BackendState;
  readonly labels: BackendLabels;
  /** Prompts it may hold at once; null keeps the deployment's depth. */
  readonly depth: number | null;
  readonly auth: BackendCredentials | null;
  /** Drain, then remove once it holds nothing (deregistered, vanished from DNS, lease lapsed). */
  readonly retiring: boolean;
  readonly createdAt: Date;
  /** The end of a registration's lease; null for every other source. */
  readonly expiresAt: Date | null;
  /** What the instances last saw of it (written when it changes): null until one probed it. */
  readonly reachable: boolean | null;
  readonly comfyuiVersion: string | null;
  /** A hash of its `/object_info`: backends that differ show different hashes. */
  readonly capabilitiesHash: string | null;
  /** When an instance last saw it answer. */
  readonly lastSeenAt: Date | null;
}

export type BackendEvent = 'drain' | 'activate' | 'emptied';

/** The one transition function of a backend's drain state. */
export function nextBackendState(state: BackendState, event: BackendEvent): BackendState {
  switch (event) {
    case 'drain':
      return state === 'active' ? 'draining' : state;
    case 'activate':
      return 'active';
    case 'emptied':
      return state === 'draining' ? 'drained' : state;
  }
}

/** A registration past its lease is treated as unreachable: its runs are lost, it takes nothing. */
export function isLapsed(backend: Pick<Backend, 'expiresAt'>, nowMs: number): boolean {
  return backend.expiresAt !== null && backend.expiresAt.getTime() <= nowMs;
}

/**
 * The URL as the pool keys it. A backend's URL is its name in answers, logs and metrics, so it
 * may carry no credentials (they have their own options) and is only the server's base.
 * @throws CoreError INVALID_REQUEST
 */
export function normalizeBackendUrl(raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    throw new CoreError('INVALID_REQUEST', `"${raw}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CoreError('INVALID_REQUEST', `"${raw}" is not an http(s) URL`);
  if (parsed.username || parsed.password) {
    throw new CoreError('INVALID_REQUEST', 'A backend URL may not carry credentials (they would be shown wherever the URL is); give them with --auth-header or --basic-auth (auth in the admin API) instead');
  }
  if (parsed.search || parsed.hash || raw.includes('?') || raw.includes('#')) throw new CoreError('INVALID_REQUEST', `"${raw}" must be the server's base URL, without a query or fragment`);
  // URL lower-cases the scheme and host and drops a default port; the path keeps its case.
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`.replace(/\/+$/, '');
}

const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;

/**
 * Labels from `k=v` items (`gpu=a100`), each key once.
 * @throws CoreError INVALID_REQUEST naming the bad item
 */
export function parseLabels(items: readonly string[]): BackendLabels {
  const labels: Record<string, string> = {};
  for (const item of items.flatMap((i) => i.split(',')).map((i) => i.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq) : '';
    const value = eq > 0 ? item.slice(eq + 1) : '';
    if (!LABEL_KEY.test(key) || value.length === 0 || value.length > 255) throw new CoreError('INVALID_REQUEST', `A label is key=value (a key of letters, digits, ".", "_", "/" or "-"), got "${item}"`);
    labels[key] = value;
  }
  return labels;
}

/** Checks labels given as an object (the admin API). @throws CoreError INVALID_REQUEST */
export function checkLabels(labels: unknown): BackendLabels {
  if (labels === undefined || labels === null) return {};
  if (typeof labels !== 'object' || Array.isArray(labels)) throw new CoreError('INVALID_REQUEST', 'labels must be an object of strings');
  return parseLabels(Object.entries(labels).map(([k, v]) => (typeof v === 'string' ? `${k}=${v}` : `${k}=`)));
}

/** Whether `labels` include every required `k=v`. */
export function hasLabels(labels: BackendLabels, required: BackendLabels): boolean {
  return Object.entries(required).every(([k, v]) => labels[k] === v);
}

export function describeLabels(labels: BackendLabels): string {
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',');
}

/**
 * Credentials from the CLI's forms: a header line `Name: value`, or `user:password` for basic.
 * @throws CoreError INVALID_REQUEST (without echoing the secret)
 */
export function parseCredentials(form: { header?: string | undefined; basic?: string | undefined }): BackendCredentials | null {
  if (form.header !== undefined && form.basic !== undefined) throw new CoreError('INVALID_REQUEST', 'Give either a header or basic credentials, not both');
  if (form.header !== undefined) {
    const colon = form.header.indexOf(':');
    const name = colon > 0 ? form.header.slice(0, colon).trim() : '';
    const value = colon > 0 ? form.header.slice(colon + 1).trim() : '';
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || value.length === 0) throw new CoreError('INVALID_REQUEST', 'An auth header is "Name: value", e.g. "Authorization: Bearer …"');
    return { kind: 'header', name, value };
  }
  if (form.basic !== undefined) {
    const colon = form.basic.indexOf(':');
    if (colon <= 0) throw new CoreError('INVALID_REQUEST', 'Basic credentials are "user:password"');
    return { kind: 'basic', user: form.basic.slice(0, colon), password: form.basic.slice(colon + 1) };
  }
  return null;
}
