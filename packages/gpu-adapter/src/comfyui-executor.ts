/**
 * The Executor port over a pool of ComfyUI servers. Each server is probed in the background
 * (`GET /system_stats`, then its `/queue` and, every few minutes or after a reconnect, its
 * `/object_info`); one that fails is unhealthy until it answers again. The backends, their
 * reachability, other clients' prompts and capabilities are the registry placement reads.
 * @module
 */
import { randomUUID } from 'node:crypto';
import {
  type BackendPlacement,
  CoreError,
  type FollowedRunEvent,
  type ExecutionJob,
  type ExecutionState,
  type Executor,
  type ExecutorHealth,
  type FetchedOutput,
  type OutputRef,
  type RunnableWork,
  type SubmitResult,
} from '@runload/core';
import { ComfyUiBackend, type Log } from './comfyui-backend.js';

export interface ComfyUiExecutorOptions {
  readonly urls: readonly string[];
  /** Our WebSocket client id; one per process. */
  readonly clientId?: string;
  /** Health probe period; default 2000 ms. */
  readonly probeIntervalMs?: number;
  /** How often followed runs are confirmed against `/queue` and `/history`; default 2000 ms. */
  readonly confirmIntervalMs?: number;
  readonly requestTimeoutMs?: number;
  readonly log?: Log;
}

export class ComfyUiExecutor implements Executor {
  private readonly backends: Map<string, ComfyUiBackend>;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: ComfyUiExecutorOptions) {
    const backendOptions = {
      clientId: options.clientId ?? `runload-${randomUUID()}`,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      confirmIntervalMs: options.confirmIntervalMs ?? 2000,
      log: options.log ?? (() => undefined),
    };
    this.backends = new Map(options.urls.map((url) => [url, new ComfyUiBackend(url, backendOptions)]));
    this.timer = setInterval(() => void this.probe(), options.probeIntervalMs ?? 2000);
    this.timer.unref();
  }

  /** Probes every backend once (call before serving so health is known from the start). */
  async probe(): Promise<void> {
    await Promise.all([...this.backends.values()].map((b) => b.probe()));
  }

  async health(): Promise<ExecutorHealth> {
    const backends = [...this.backends.values()].map((b) => ({ id: b.url, url: b.url, healthy: b.healthy, detail: b.detail }));
    return { available: backends.some((b) => b.healthy), backends };
  }

  placement(): readonly BackendPlacement[] {
    return [...this.backends.values()].filter((b) => b.healthy).map((b) => ({ id: b.url, foreignPrompts: b.foreignPrompts }));
  }

  lacks(backendId: string, work: RunnableWork): string | null {
    const backend = this.backends.get(backendId);
    if (!backend) return `backend ${backendId}`;
    return backend.capabilities?.lacks(work) ?? null;
  }

  missingEverywhere(work: RunnableWork): string | null {
    let missing: string | null = null;
    for (const backend of this.backends.values()) {
      // A backend not read yet may well have it.
      if (!backend.capabilities) return null;
      const lack = backend.capabilities.lacks(work);
      if (lack === null) return null;
      missing ??= lack;
    }
    return missing === null ? null : `no backend has ${missing}`;
  }

  async submit(backendId: string, job: ExecutionJob): Promise<SubmitResult> {
    return this.backend(backendId).submit(job);
  }

  async inspect(backendId: string, runId: string): Promise<ExecutionState> {
    return this.backend(backendId).inspect(runId);
  }

  follow(backendId: string, runId: string, listener: (event: FollowedRunEvent) => void): () => void {
    const backend = this.backends.get(backendId);
    if (!backend) {
      // A run recorded on a server that is no longer configured can never report again.
      queueMicrotask(() => listener({ type: 'lost' }));
      return () => undefined;
    }
    return backend.follow(runId, listener);
  }

  async fetchOutput(backendId: string, ref: OutputRef): Promise<FetchedOutput> {
    return this.backend(backendId).fetchOutput(ref);
  }

  async cancel(backendId: string, runId: string): Promise<void> {
    return this.backend(backendId).cancel(runId);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const b of this.backends.values()) b.close();
  }

  private backend(id: string): ComfyUiBackend {
    const backend = this.backends.get(id);
    // A run recorded on a server no longer configured cannot be reached.
    if (!backend) throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI backend ${id} is not configured`);
    return backend;
  }
}
