/**
 * The operator's commands on the pool (the CLI and the admin API call these): list, add, drain,
 * activate, change, remove; the configuration's servers written at start; a GPU machine's own
 * registration with a lease. Every change is a row every instance follows within seconds, and
 * an operator's change writes its audit entry with it (the author is the CLI unless named); a
 * heartbeat that only renews a registration writes none.
 * @module
 */
import { auditEntry, CLI_AUTHOR, type AuditEntry, type ChangeAuthor } from '../../domain/audit.js';
import {
  isLapsed,
  nextBackendState,
  normalizeBackendUrl,
  type Backend,
  type BackendCredentials,
  type BackendLabels,
  type BackendSource,
} from '../../domain/backend.js';
import { CoreError } from '../../domain/errors.js';
import type { BackendPatch, BackendRegistry } from '../../ports/backend-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { RunRepository } from '../../ports/run-repository.js';

/** A backend with what it holds and what it did. */
export interface BackendView {
  readonly backend: Backend;
  /** runload prompts on it now (queued there or running), of every instance. */
  readonly held: number;
  readonly runsExecuted: number;
  readonly gpuSeconds: number;
  /** The app versions placed there last (their models are probably loaded). */
  readonly warmAppVersions: readonly string[];
  /** A registration past its lease: unreachable for the pool. */
  readonly lapsed: boolean;
}

export interface AddBackendCommand {
  readonly url: string;
  readonly labels?: BackendLabels;
  readonly depth?: number | null;
  readonly auth?: BackendCredentials | null;
}

export interface ChangeBackendCommand {
  readonly state?: 'active' | 'draining';
  readonly labels?: BackendLabels;
  readonly depth?: number | null;
}

export interface RegisterCommand {
  readonly url: string;
  readonly labels?: BackendLabels;
  /** The lease, 10 to 3600 seconds; 60 when absent. */
  readonly ttlSeconds?: number;
  readonly auth?: BackendCredentials | null;
}

export const DEFAULT_REGISTRATION_TTL_SECONDS = 60;
const MAX_DEPTH = 1000;

export class ManageBackends {
  constructor(
    private readonly registry: BackendRegistry,
    private readonly runs: RunRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async list(): Promise<BackendView[]> {
    const [backends, held, usage] = await Promise.all([this.registry.list(), this.runs.heldByBackend(), this.runs.backendUsage()]);
    const now = this.clock.nowMs();
    return backends.map((backend) => {
      const used = usage.get(backend.url);
      return {
        backend,
        held: held.get(backend.url) ?? 0,
        runsExecuted: used?.runsExecuted ?? 0,
        gpuSeconds: used?.gpuSeconds ?? 0,
        warmAppVersions: used?.lastAppVersionId ? [used.lastAppVersionId] : [],
        lapsed: isLapsed(backend, now),
      };
    });
  }

  /** @throws CoreError BACKEND_NOT_FOUND */
  async get(idOrUrl: string): Promise<BackendView> {
    const backend = await this.find(idOrUrl);
    const view = (await this.list()).find((v) => v.backend.id === backend.id);
    if (!view) throw notFound(idOrUrl);
    return view;
  }

  /** An operator's backend. @throws CoreError INVALID_REQUEST, BACKEND_EXISTS */
  async add(command: AddBackendCommand, author: ChangeAuthor = CLI_AUTHOR): Promise<BackendView> {
    const backend = this.newBackend(command.url, 'api', { labels: command.labels ?? {}, depth: checkDepth(command.depth ?? null), auth: command.auth ?? null });
    if (!(await this.registry.create(backend, [this.entry(author, 'backend.add', backend.id)]))) throw new CoreError('BACKEND_EXISTS', `${backend.url} is a backend of the pool already`);
    return this.get(backend.id);
  }

  /**
   * The servers of `RUNLOAD_COMFYUI_URLS` (and DNS), written when missing: one an operator
   * drained or relabelled keeps what the operator did. Credentials given here are refreshed.
   */
  async ensure(url: string, source: 'static' | 'dns', auth: BackendCredentials | null): Promise<Backend> {
    const normalized = normalizeBackendUrl(url);
    const existing = await this.registry.getByUrl(normalized);
    if (existing) {
      if (JSON.stringify(existing.auth) === JSON.stringify(auth) || (source === 'dns' && existing.source !== 'dns')) return existing;
      return (await this.registry.update(existing.id, { auth })) ?? existing;
    }
    const backend = this.newBackend(normalized, source, { auth });
    if (await this.registry.create(backend)) return backend;
    // Another instance wrote it at the same moment.
    return (await this.registry.getByUrl(normalized)) ?? backend;
  }

  /** @throws CoreError BACKEND_NOT_FOUND */
  async drain(idOrUrl: string, author: ChangeAuthor = CLI_AUTHOR): Promise<BackendView> {
    const backend = await this.find(idOrUrl);
    await this.registry.update(backend.id, { state: nextBackendState(backend.state, 'drain') }, undefined, [this.entry(author, 'backend.drain', backend.id)]);
    return this.get(backend.id);
  }

  /** Back in the pool; a retiring one stays. @throws CoreError BACKEND_NOT_FOUND */
  async activate(idOrUrl: string, author: ChangeAuthor = CLI_AUTHOR): Promise<BackendView> {
    const backend = await this.find(idOrUrl);
    await this.registry.update(backend.id, { state: nextBackendState(backend.state, 'activate'), retiring: false }, undefined, [this.entry(author, 'backend.activate', backend.id)]);
    return this.get(backend.id);
  }

  /**
   * The admin API's change: a new state is audited as `backend.drain` or `backend.activate`, new
   * labels or depth as `backend.update`. @throws CoreError BACKEND_NOT_FOUND, INVALID_REQUEST
   */
  async change(idOrUrl: string, command: ChangeBackendCommand, author: ChangeAuthor = CLI_AUTHOR): Promise<BackendView> {
    const backend = await this.find(idOrUrl);
    const patch: BackendPatch = {
      ...(command.labels !== undefined ? { labels: command.labels } : {}),
      ...(command.depth !== undefined ? { depth: checkDepth(command.depth) } : {}),
      ...(command.state !== undefined ? { state: nextBackendState(backend.state, command.state === 'active' ? 'activate' : 'drain') } : {}),
      ...(command.state === 'active' ? { retiring: false } : {}),
    };
    const audit: AuditEntry[] = [];
    if (command.state !== undefined) audit.push(this.entry(author, command.state === 'active' ? 'backend.activate' : 'backend.drain', backend.id));
    if (command.labels !== undefined || command.depth !== undefined) audit.push(this.entry(author, 'backend.update', backend.id));
    await this.registry.update(backend.id, patch, undefined, audit);
    return this.get(backend.id);
  }

  /**
   * Removes a backend that holds nothing. With `force`, removes it whatever it holds: each
   * instance then drops it, and what it held is lost there (runs that had started fail over).
   * @throws CoreError BACKEND_NOT_FOUND, BACKEND_BUSY
   */
  async remove(idOrUrl: string, options: { force?: boolean } = {}, author: ChangeAuthor = CLI_AUTHOR): Promise<BackendView> {
    const view = await this.get(idOrUrl);
    if (view.held > 0 && !options.force) {
      throw new CoreError('BACKEND_BUSY', `${view.backend.url} holds ${view.held} run${view.held === 1 ? '' : 's'}: drain it first, or remove it with force (runs that started there are then dispatched again)`);
    }
    await this.registry.delete(view.backend.id, [this.entry(author, 'backend.remove', view.backend.id)]);
    return view;
  }

  /**
   * A GPU machine registers itself, or renews its lease (the heartbeat): `created` is false on a
   * renewal. A machine that deregistered and registers again is active again. Only a registration
   * that creates the backend is audited: heartbeats come every few seconds from every machine.
   * @throws CoreError INVALID_REQUEST, BACKEND_EXISTS (the URL is a backend from another source)
   */
  async register(command: RegisterCommand, author: ChangeAuthor = CLI_AUTHOR): Promise<{ view: BackendView; created: boolean }> {
    const ttl = command.ttlSeconds ?? DEFAULT_REGISTRATION_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl < 10 || ttl > 3600) throw new CoreError('INVALID_REQUEST', 'ttl_seconds must be a whole number from 10 to 3600');
    const expiresAt = new Date(this.clock.nowMs() + ttl * 1000);
    const url = normalizeBackendUrl(command.url);
    const existing = await this.registry.getByUrl(url);
    if (existing) {
      if (existing.source !== 'registered') throw new CoreError('BACKEND_EXISTS', `${url} is a backend of the pool already (source ${existing.source}): it needs no registration`);
      await this.registry.update(existing.id, {
        expiresAt,
        retiring: false,
        state: existing.retiring ? 'active' : existing.state,
        ...(command.labels !== undefined ? { labels: command.labels } : {}),
        ...(command.auth !== undefined ? { auth: command.auth } : {}),
      });
      return { view: await this.get(existing.id), created: false };
    }
    const backend = { ...this.newBackend(url, 'registered', { labels: command.labels ?? {}, auth: command.auth ?? null }), expiresAt };
    if (!(await this.registry.create(backend, [this.entry(author, 'backend.register', backend.id)]))) return this.register(command, author);
    return { view: await this.get(backend.id), created: true };
  }

  /** The machine leaves: drained, then removed once it holds nothing. @throws CoreError BACKEND_NOT_FOUND */
  async deregister(url: string, author: ChangeAuthor = CLI_AUTHOR): Promise<BackendView> {
    const backend = await this.find(url);
    if (backend.source !== 'registered') throw notFound(url);
    await this.registry.update(backend.id, { state: nextBackendState(backend.state, 'drain'), retiring: true }, undefined, [this.entry(author, 'backend.deregister', backend.id)]);
    return this.get(backend.id);
  }

  private entry(author: ChangeAuthor, action: string, target: string): AuditEntry {
    return auditEntry(author, action, target, this.clock.now(), this.ids.uuid());
  }

  /** The backend by its id, or by its URL. @throws CoreError BACKEND_NOT_FOUND */
  private async find(idOrUrl: string): Promise<Backend> {
    let backend = /^https?:\/\//i.test(idOrUrl) ? null : await this.registry.get(idOrUrl);
    if (!backend && /^https?:\/\//i.test(idOrUrl)) backend = await this.registry.getByUrl(normalizeBackendUrl(idOrUrl));
    if (!backend) throw notFound(idOrUrl);
    return backend;
  }

  private newBackend(url: string, source: BackendSource, fields: Partial<Pick<Backend, 'labels' | 'depth' | 'auth'>>): Backend {
    return {
      id: this.ids.uuid(),
      url: normalizeBackendUrl(url),
      source,
      state: 'active',
      labels: fields.labels ?? {},
      depth: fields.depth ?? null,
      auth: fields.auth ?? null,
      retiring: false,
      createdAt: this.clock.now(),
      expiresAt: null,
      reachable: null,
      comfyuiVersion: null,
      capabilitiesHash: null,
      lastSeenAt: null,
    };
  }
}

function notFound(idOrUrl: string): CoreError {
  return new CoreError('BACKEND_NOT_FOUND', `No backend ${idOrUrl} in the pool`);
}

function checkDepth(depth: number | null): number | null {
  if (depth === null) return null;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) throw new CoreError('INVALID_REQUEST', `depth must be a whole number from 1 to ${MAX_DEPTH} (or null for the deployment's depth)`);
  return depth;
}
