/**
 * One ComfyUI server: health probe, socket, submissions, and where each run stands there.
 * Every outcome is confirmed from `/queue` and `/history`, never from the socket alone.
 * @module
 */
import { Readable } from 'node:stream';
import { CLAIM_LOST, CoreError, type ExecutionEvent, type ExecutionJob, type ExecutionState, type FetchedOutput, type OutputRef, type SubmitResult } from '@runload/core';
import { applyInputs } from './apply-inputs.js';
import { ComfyUiHttp } from './comfyui-http.js';
import { ComfyUiSocket, type SocketMessage } from './comfyui-socket.js';
import { outcomeOf, type HistoryEntry } from './history-outcome.js';

export interface BackendOptions {
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  /** How often followed runs are re-checked against `/queue` and `/history`. */
  readonly confirmIntervalMs: number;
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

type QueueTuple = [number, string, unknown, Record<string, unknown> | undefined, unknown];

interface Follower {
  readonly runId: string;
  readonly listener: (event: ExecutionEvent) => void;
  started: boolean;
  done: boolean;
}

const MEDIA_SUBFOLDER = 'runload';

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', mkv: 'video/x-matroska',
  wav: 'audio/wav', flac: 'audio/flac', mp3: 'audio/mpeg', ogg: 'audio/ogg', opus: 'audio/opus',
};

/** ComfyUI names outputs by extension; so does runload (core video comes under `images`). */
function contentTypeOf(filename: string): string {
  return CONTENT_TYPES[filename.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

export class ComfyUiBackend {
  healthy = false;
  detail = 'not probed yet';
  private readonly http: ComfyUiHttp;
  private readonly socket: ComfyUiSocket;
  /** Server prompt id by run id, where the server chose its own id (older ComfyUI). */
  private readonly promptIds = new Map<string, string>();
  private readonly followers = new Map<string, Follower>();
  private confirmTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly url: string,
    private readonly options: BackendOptions,
  ) {
    this.http = new ComfyUiHttp(url, options.requestTimeoutMs);
    this.socket = new ComfyUiSocket(url, options.clientId, (m) => this.onMessage(m), () => this.confirmAll());
  }

  async probe(): Promise<void> {
    try {
      await this.http.getJson('/system_stats', Math.min(this.options.requestTimeoutMs, 2000));
      if (!this.healthy) this.options.log('info', 'ComfyUI backend reachable', { backend: this.url });
      this.healthy = true;
      this.detail = 'ok';
      this.socket.connect();
    } catch (error) {
      if (this.healthy) this.options.log('warn', 'ComfyUI backend unreachable', { backend: this.url, error: (error as Error).message });
      this.healthy = false;
      this.detail = (error as Error).message;
    }
  }

  async submit(job: ExecutionJob): Promise<SubmitResult> {
    const media: Record<string, string> = {};
    for (const [key, file] of Object.entries(job.media)) media[key] = await this.upload(file.assetId, file.filename, await file.open());
    const prompt = applyInputs(job.workflow, job.inputs, media);
    if (job.stillClaimed && !(await job.stillClaimed())) throw new CoreError('INVALID_TRANSITION', CLAIM_LOST);
    const result = await this.http.request('POST', '/prompt', {
      prompt,
      client_id: this.options.clientId,
      prompt_id: job.runId,
      extra_data: { runload_run_id: job.runId },
    });
    const body = (result.body ?? {}) as { prompt_id?: string; error?: { message?: string; type?: string }; node_errors?: Record<string, { class_type?: string }> };
    if (result.status === 200) {
      if (body.prompt_id && body.prompt_id !== job.runId) this.promptIds.set(job.runId, body.prompt_id);
      if (body.node_errors && Object.keys(body.node_errors).length > 0) {
        this.options.log('warn', 'ComfyUI dropped some outputs that failed validation', { runId: job.runId, nodeErrors: body.node_errors });
      }
      return { accepted: true };
    }
    const [nodeId, nodeError] = Object.entries(body.node_errors ?? {})[0] ?? [null, null];
    return {
      accepted: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: body.error?.message ?? `ComfyUI refused the prompt (${result.status})`,
        nodeId,
        nodeType: nodeError?.class_type ?? null,
        details: { type: body.error?.type ?? null, node_errors: body.node_errors ?? {} },
      },
    };
  }

  private async upload(assetId: string, filename: string, body: AsyncIterable<Uint8Array>): Promise<string> {
    const chunks: Uint8Array[] = [];
    for await (const c of body) chunks.push(c);
    const dot = filename.lastIndexOf('.');
    const name = `${assetId}${dot > 0 ? filename.slice(dot).toLowerCase() : ''}`;
    const form = new FormData();
    form.append('image', new Blob(chunks), name);
    form.append('type', 'input');
    form.append('subfolder', MEDIA_SUBFOLDER);
    const result = await this.http.request('POST', '/upload/image', form, 10 * 60_000);
    const uploaded = result.body as { name?: string; subfolder?: string };
    if (result.status !== 200 || !uploaded.name) throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.url} refused the upload of ${name} (${result.status})`);
    return uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
  }

  private promptIdOf(runId: string): string {
    return this.promptIds.get(runId) ?? runId;
  }

  async inspect(runId: string): Promise<ExecutionState> {
    const matches = (t: QueueTuple) => t[1] === this.promptIdOf(runId) || t[3]?.['runload_run_id'] === runId;
    // Queue first, then history: a prompt is always in exactly one of them (protocol §12).
    const queue = await this.http.getJson<{ queue_running: QueueTuple[]; queue_pending: QueueTuple[] }>('/queue');
    if (queue.queue_running.some(matches)) return { state: 'running' };
    const pending = [...queue.queue_pending].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
    const at = pending.findIndex(matches);
    if (at >= 0) {
      this.promptIds.set(runId, pending[at]?.[1] as string);
      return { state: 'queued', position: at };
    }
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const entry = await this.historyEntry(runId);
      if (entry) return outcomeOf(entry);
    }
    return { state: 'unknown' };
  }

  private async historyEntry(runId: string): Promise<HistoryEntry | null> {
    const id = this.promptIdOf(runId);
    const direct = await this.http.getJson<Record<string, HistoryEntry>>(`/history/${encodeURIComponent(id)}`);
    if (direct[id]) return direct[id] ?? null;
    if (this.promptIds.has(runId)) return null;
    // An older ComfyUI chose its own id and this process does not know it: find the run by our mark.
    const recent = await this.http.getJson<Record<string, HistoryEntry>>('/history?max_items=1000');
    for (const [promptId, entry] of Object.entries(recent)) {
      const extra = entry.prompt?.[3] as Record<string, unknown> | undefined;
      if (extra?.['runload_run_id'] === runId) {
        this.promptIds.set(runId, promptId);
        return entry;
      }
    }
    return null;
  }

  follow(runId: string, listener: (event: ExecutionEvent) => void): () => void {
    const follower: Follower = { runId, listener, started: false, done: false };
    this.followers.set(runId, follower);
    this.ensureConfirmTimer();
    // A run may have finished before anyone listened (instant jobs): check at once.
    void this.confirm(follower);
    return () => {
      follower.done = true;
      if (this.followers.get(runId) === follower) this.followers.delete(runId);
    };
  }

  async fetchOutput(ref: OutputRef): Promise<FetchedOutput> {
    const query = new URLSearchParams({ filename: ref.filename, subfolder: ref.subfolder, type: ref.type });
    const path = `/view?${query.toString()}`;
    return {
      filename: ref.filename,
      contentType: contentTypeOf(ref.filename),
      open: async () => Readable.fromWeb((await this.http.stream(path)).body as import('node:stream/web').ReadableStream<Uint8Array>),
    };
  }

  async cancel(runId: string): Promise<void> {
    const id = this.promptIdOf(runId);
    // Delete first, then interrupt: the other order misses a prompt that starts in between.
    await this.http.request('POST', '/queue', { delete: [id] });
    await this.http.request('POST', '/interrupt', { prompt_id: id });
  }

  close(): void {
    this.socket.close();
    if (this.confirmTimer) clearInterval(this.confirmTimer);
    this.followers.clear();
  }

  private ensureConfirmTimer(): void {
    if (this.confirmTimer) return;
    this.confirmTimer = setInterval(() => this.confirmAll(), this.options.confirmIntervalMs);
    this.confirmTimer.unref();
  }

  private confirmAll(): void {
    for (const f of [...this.followers.values()]) void this.confirm(f);
  }

  /** Settles a follower from the server's own records. */
  private async confirm(f: Follower): Promise<void> {
    if (f.done) return;
    let state: ExecutionState;
    try {
      state = await this.inspect(f.runId);
    } catch {
      return; // unreachable: the dispatcher's own reconciliation decides when the run is lost
    }
    if (f.done) return;
    if (state.state === 'running' && !f.started) {
      f.started = true;
      f.listener({ type: 'started', atMs: Date.now() });
    } else if (state.state === 'unknown') {
      f.done = true;
      this.followers.delete(f.runId);
      f.listener({ type: 'lost' });
    } else if (state.state !== 'queued' && state.state !== 'running') {
      f.done = true;
      this.followers.delete(f.runId);
      f.listener({ type: 'finished', result: state });
    }
  }

  private followerOf(promptId: unknown): Follower | undefined {
    if (typeof promptId !== 'string') return undefined;
    const direct = this.followers.get(promptId);
    if (direct) return direct;
    for (const [runId, pid] of this.promptIds) if (pid === promptId) return this.followers.get(runId);
    return undefined;
  }

  private onMessage({ type, data }: SocketMessage): void {
    const f = this.followerOf(data['prompt_id']);
    if (!f || f.done) return;
    if (type === 'execution_start') {
      if (!f.started) {
        f.started = true;
        f.listener({ type: 'started', atMs: typeof data['timestamp'] === 'number' ? data['timestamp'] : Date.now() });
      }
    } else if (type === 'progress') {
      f.listener({ type: 'progress', value: Number(data['value'] ?? 0), max: Number(data['max'] ?? 0), nodeId: typeof data['node'] === 'string' ? data['node'] : null });
    } else if (type === 'executing' && data['node'] === null) {
      // History is written before this message: read the outcome from it.
      void this.confirm(f);
    } else if (type === 'executing' && !f.started) {
      f.started = true;
      f.listener({ type: 'started', atMs: Date.now() });
    }
  }
}
