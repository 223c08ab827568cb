/**
 * The pool of ComfyUI servers as rows shared by every instance (the database): what each
 * instance's executor follows, what the operator's commands change.
 * @module
 */
import type { AuditEntry } from '../domain/audit.js';
import type { Backend, BackendCredentials, BackendLabels, BackendState } from '../domain/backend.js';

/** Fields a change may set; `id`, `url`, `source` and `createdAt` never change. */
export type BackendPatch = Partial<{
  state: BackendState;
  labels: BackendLabels;
  depth: number | null;
  auth: BackendCredentials | null;
  retiring: boolean;
  expiresAt: Date | null;
  reachable: boolean | null;
  comfyuiVersion: string | null;
  capabilitiesHash: string | null;
  lastSeenAt: Date | null;
}>;

export interface BackendRegistry {
  /** Every backend, oldest first (then by URL). */
  list(): Promise<Backend[]>;
  /** The backend with this id, or null. */
  get(id: string): Promise<Backend | null>;
  /** The backend with this (normalised) URL, or null. */
  getByUrl(url: string): Promise<Backend | null>;
  /**
   * Stores a new backend; false (and nothing changed) when its URL is already a backend. The
   * `audit` entries are written with it, in the same transaction, only when it was stored.
   */
  create(backend: Backend, audit?: readonly AuditEntry[]): Promise<boolean>;
  /**
   * Applies the patch when the backend's state is one of `states` (any when absent); returns the
   * backend as it now is, or null when it does not exist or the guard failed. The `audit`
   * entries are written in the same transaction, only when the backend was found.
   */
  update(id: string, patch: BackendPatch, states?: readonly BackendState[], audit?: readonly AuditEntry[]): Promise<Backend | null>;
  /** Removes the backend; true when it existed. The `audit` entries are written with the removal only. */
  delete(id: string, audit?: readonly AuditEntry[]): Promise<boolean>;
}

export const BACKEND_REGISTRY = Symbol.for('runload.core.BackendRegistry');
