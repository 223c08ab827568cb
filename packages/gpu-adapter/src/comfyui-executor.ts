/**
 * The Executor port over a pool of ComfyUI servers. Each server is probed in the background
 * (`GET /system_stats`, then its `/queue` and, every few minutes or after a reconnect, its
 * `/object_info`); one that fails is unhealthy until it answers again. The pool itself follows
 * the registry's rows (`usePool`): servers come, drain and go while runload runs.
 * @module
 */
import { randomUUID } from 'node:crypto';
import {
  type BackendCredentials,
  type BackendLabels,
  type BackendPlacement,
  CoreError,
  describeLabels,
  type FollowedRunEvent,
  type ExecutionJob,
  type ExecutionState,
  type Executor,
  type ExecutorHealth,
  type FetchedOutput,
  hasLabels,
  type OutputRef,
  type PoolMember,
  type RunnableWork,
  type SubmitResult,
} from '@runload/core';
import { authHeaderOf } from './backend-auth.js';
import { ComfyUiBackend, type BackendOptions, type Log } from './comfyui-backend.js';

export interface ComfyUiExecutorOptions {
  /** The servers to start with (until the registry's pool is given with `usePool`). */
  readonly urls?: readonly string[];
  /** Credentials for those servers. */
  readonly auth?: BackendCredentials | null;
  /** Our WebSocket client id; one per process. */
  readonly clientId?: string;
  /** Health probe period; default 2000 ms. */
  readonly probeIntervalMs?: number;
  /** How often followed runs are confirmed against `/queue` and `/history`; default 2000 ms. */
  readonly confirmIntervalMs?: number;
  readonly requestTimeoutMs?: number;
  readonly log?: Log;
}

/** One server of the pool and what the registry says of it. */
interface Member {
  readonly backend: ComfyUiBackend;
  accepting: boolean;
  labels: BackendLabels;
  depth: number | null;
  /** The credentials it was built with, to see them change. */
  readonly authKey: string;
}

export class ComfyUiExecutor implements Executor {
  private readonly members = new Map<string, Member>();
  /** Servers the pool dropped: runs recorded there are unknown to the pool now. */
  private readonly removed = new Set<string>();
  private readonly backendOptions: Omit<BackendOptions, 'auth'>;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: ComfyUiExecutorOptions = {}) {
    this.backendOptions = {
      clientId: options.clientId ?? `runload-${randomUUID()}`,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      confirmIntervalMs: options.confirmIntervalMs ?? 2000,
      log: options.log ?? (() => undefined),
    };
    for (const url of options.urls ?? []) this.add({ url, accepting: true, labels: {}, depth: null, auth: options.auth ?? null });
    this.timer = setInterval(() => void this.probe(), options.probeIntervalMs ?? 2000);
    this.timer.unref();
  }

  /** Probes every backend once (call before serving so health is known from the start). */
  async probe(): Promise<void> {
    await Promise.all([...this.members.values()].map((m) => m.backend.probe()));
  }

  async usePool(pool: readonly PoolMember[]): Promise<void> {
    const wanted = new Map(pool.map((m) => [m.url, m]));
    for (const [url, member] of this.members) {
      const next = wanted.get(url);
      if (next && authKey(next) === member.authKey) continue;
      // Gone from the pool (or reached with other credentials now: a new connection).
      member.backend.close();
      this.members.delete(url);
      if (!next) {
        this.removed.add(url);
        this.backendOptions.log('info', 'ComfyUI backend left the pool', { backend: url });
      }
    }
    const added: ComfyUiBackend[] = [];
    for (const next of pool) {
      const member = this.members.get(next.url);
      if (member) {
        member.accepting = next.accepting;
        member.labels = next.labels;
        member.depth = next.depth;
      } else {
        this.removed.delete(next.url);
        added.push(this.add(next).backend);
      }
    }
    await Promise.all(added.map((b) => b.probe()));
  }

  async health(): Promise<ExecutorHealth> {
    const backends = [...this.members.values()].map(({ backend: b }) => ({
      id: b.url,
      url: b.url,
      healthy: b.healthy,
      detail: b.detail,
      comfyuiVersion: b.version,
      capabilitiesHash: b.capabilitiesHash,
      lastSeenAtMs: b.lastSeenAtMs,
    }));
    // A reachable backend that drains still counts: runs created meanwhile wait for capacity.
    return { available: [...this.members.values()].some((m) => m.backend.healthy), backends };
  }

  placement(): readonly BackendPlacement[] {
    return [...this.members.values()]
      .filter((m) => m.backend.healthy && m.accepting)
      .map((m) => ({ id: m.backend.url, foreignPrompts: m.backend.foreignPrompts, ...(m.depth !== null ? { depth: m.depth } : {}) }));
  }

  lacks(backendId: string, work: RunnableWork): string | null {
    const member = this.members.get(backendId);
    if (!member) return `backend ${backendId}`;
    if (work.requireLabels && !hasLabels(member.labels, work.requireLabels)) return `labels ${describeLabels(work.requireLabels)}`;
    return member.backend.capabilities?.lacks(work) ?? null;
  }

  missingEverywhere(work: RunnableWork): string | null {
    const accepting = [...this.members.values()].filter((m) => m.accepting);
    const labelled = work.requireLabels ? accepting.filter((m) => hasLabels(m.labels, work.requireLabels ?? {})) : accepting;
    if (accepting.length > 0 && labelled.length === 0) return `no backend has labels ${describeLabels(work.requireLabels ?? {})}`;
    let missing: string | null = null;
    for (const { backend } of labelled) {
      // A backend not read yet may well have it.
      if (!backend.capabilities) return null;
      const lack = backend.capabilities.lacks(work);
      if (lack === null) return null;
      missing ??= lack;
    }
    return missing === null ? null : `no backend${work.requireLabels && Object.keys(work.requireLabels).length > 0 ? ` with labels ${describeLabels(work.requireLabels)}` : ''} has ${missing}`;
  }

  async submit(backendId: string, job: ExecutionJob): Promise<SubmitResult> {
    return this.backend(backendId).submit(job);
  }

  async inspect(backendId: string, runId: string): Promise<ExecutionState> {
    // A server the pool dropped holds nothing of runload's any more: its runs are lost.
    if (this.removed.has(backendId)) return { state: 'unknown' };
    return this.backend(backendId).inspect(runId);
  }

  follow(backendId: string, runId: string, listener: (event: FollowedRunEvent) => void): () => void {
    const member = this.members.get(backendId);
    if (!member) {
      // A run recorded on a server that is no longer configured can never report again.
      queueMicrotask(() => listener({ type: 'lost' }));
      return () => undefined;
    }
    return member.backend.follow(runId, listener);
  }

  async fetchOutput(backendId: string, ref: OutputRef, options: { readonly signal?: AbortSignal } = {}): Promise<FetchedOutput> {
    return this.backend(backendId).fetchOutput(ref, options.signal);
  }

  async cancel(backendId: string, runId: string): Promise<void> {
    // Nothing to remove from a server the pool dropped.
    if (this.removed.has(backendId)) return;
    return this.backend(backendId).cancel(runId);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const m of this.members.values()) m.backend.close();
  }

  private add(next: PoolMember): Member {
    const backend = new ComfyUiBackend(next.url, { ...this.backendOptions, auth: authHeaderOf(next.auth) });
    const member: Member = { backend, accepting: next.accepting, labels: next.labels, depth: next.depth, authKey: authKey(next) };
    this.members.set(next.url, member);
    return member;
  }

  private backend(id: string): ComfyUiBackend {
    const member = this.members.get(id);
    // A run recorded on a server no longer configured cannot be reached.
    if (!member) throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI backend ${id} is not configured`);
    return member.backend;
  }
}

/** Compared, never shown. */
function authKey(member: PoolMember): string {
  return JSON.stringify(member.auth ?? null);
}
