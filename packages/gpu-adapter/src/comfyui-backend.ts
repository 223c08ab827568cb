/**
 * One ComfyUI server: health probe (and its version), what placement needs (other clients'
 * prompts, capabilities), load, submissions, cancel, downloads.
 * Where a run stands is read by the RunLocator; followed runs are kept by RunFollowers.
 * @module
 */
import { CLAIM_LOST, CoreError, type ExecutionJob, type FollowedRunEvent, type ExecutionState, type FetchedOutput, type MediaFile, type OutputRef, type SubmitResult, type Logger } from '@runload/core';
import { createHash } from 'node:crypto';
import { applyInputs } from './apply-inputs.js';
import type { AuthHeader } from './backend-auth.js';
import { BackendCapabilities } from './backend-capabilities.js';
import { ComfyUiHttp, StreamedBody, type StreamedResponse } from './comfyui-http.js';
import { ComfyUiSocket, type SocketMessage } from './comfyui-socket.js';
import { supportsTargetedInterrupt, tellsOutcomeOnSocket } from './comfyui-version.js';
import { afterProbe, NOT_PROBED, probeDetail, type ProbeOutcome, type ProbeState } from './probe-state.js';
import { streamingMultipart } from './multipart-upload.js';
import { outputContentType } from './output-content-type.js';
import { OutputPrefetch, viewPath } from './output-prefetch.js';
import { partialRefusal, promptRefusal, type TakenBack } from './prompt-refusal.js';
import { RunFollowers } from './run-followers.js';
import { RunLocator } from './run-locator.js';
import { ExecutingPrompt } from './executing-prompt.js';
import { PreviewFrames } from './preview-frames.js';

export type Log = Logger;

export interface BackendOptions {
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  /** How often followed runs are re-checked against `/queue` and `/history`. */
  readonly confirmIntervalMs: number;
  readonly log: Log;
  /** Credentials sent on every request (a server behind an authenticating proxy). */
  readonly auth?: AuthHeader | null;
}

/** Uploads go to their own input subfolder, named by asset id (so the same asset dedupes). */
const MEDIA_SUBFOLDER = 'runload';
const TRANSFER_TIMEOUT_MS = 10 * 60_000;
/** A transfer in which nothing moves for this long has stalled (a server saving a large upload answers well within it). */
const TRANSFER_IDLE_MS = 30_000;
const PROBE_TIMEOUT_MS = 2000;
/** How often a server's node classes and model lists are read again (besides after a reconnect). */
const CAPABILITIES_REFRESH_MS = 3 * 60_000;
/** Media files remembered as uploaded, per server (the oldest forgotten first). */
const UPLOADS_REMEMBERED = 10_000;

export class ComfyUiBackend {
  /** What its health probes found; read through `healthy`, `detail`, `version` and `lastSeenAtMs`. */
  private probed: ProbeState = NOT_PROBED;
  private readonly http: ComfyUiHttp;
  private readonly socket: ComfyUiSocket;
  private readonly locator: RunLocator;
  private readonly followers: RunFollowers;
  /** What the server can run, from its `/object_info`; null until read. */
  capabilities: BackendCapabilities | null = null;
  /** A hash of its last `/object_info` (servers that differ show different hashes); null until read. */
  capabilitiesHash: string | null = null;
  /** Prompts other clients hold on the server (read from its `/queue` at each probe). */
  foreignPrompts = 0;
  private capabilitiesReadAtMs = 0;
  /** Prompts being sent now: not yet in the server's own count. */
  private submitting = 0;
  /**
   * The widget value of each media file already on the server, by its upload name. An asset's
   * bytes never change, and ComfyUI keeps its input files across restarts and answers the same name
   * for the same bytes, so a run using an asset sent before skips the upload. Forgotten when the
   * server may have been replaced (a reconnect, a failed probe) and when a prompt using it is refused.
   */
  private readonly uploaded = new Map<string, string>();
  /** Output files downloading since the socket announced them, until the outcome asks for them. */
  private readonly outputsAhead = new OutputPrefetch((path, signal) => this.http.stream(path, TRANSFER_TIMEOUT_MS, TRANSFER_IDLE_MS, signal));

  constructor(
    readonly url: string,
    private readonly options: BackendOptions,
  ) {
    this.http = new ComfyUiHttp(url, options.requestTimeoutMs, options.auth ?? null);
    this.locator = new RunLocator(this.http);
    this.followers = new RunFollowers(
      {
        inspect: (id, hint) => this.locator.inspect(id, hint),
        runIdOf: (pid) => this.locator.runIdOf(pid),
        socketConnected: () => this.socket.connected,
        tellsOutcomeOnSocket: () => tellsOutcomeOnSocket(this.version),
        log: options.log,
      },
      options.confirmIntervalMs,
    );
    const executing = new ExecutingPrompt();
    const previews = new PreviewFrames(executing, (promptId, preview) => this.followers.onPreview(promptId, preview), (reason) =>
      options.log('warn', 'malformed binary frame from ComfyUI ignored (later ones on this connection are not logged)', { backend: url, reason }),
    );
    const onMessage = (m: SocketMessage) => {
      executing.onMessage(m);
      this.followers.onMessage(m);
      // Only prompts of this process's own client id are told their nodes' outputs.
      if (m.type === 'executed') this.outputsAhead.onExecuted(m.data);
    };
    this.socket = new ComfyUiSocket(url, options.clientId, onMessage, () => {
      executing.reset();
      previews.reconnected();
      this.followers.reconnected();
      // A reconnect may be a restart with other models (or another server): read them again.
      this.capabilitiesReadAtMs = 0;
      this.uploaded.clear();
    }, { onBinary: (frame) => previews.onFrame(frame), auth: options.auth ?? null });
  }

  get healthy(): boolean {
    return this.probed.state === 'reachable';
  }

  /** `ok`, the last probe's error, or that none has finished yet. */
  get detail(): string {
    return probeDetail(this.probed);
  }

  /** `system.comfyui_version` from the last successful probe. */
  get version(): string | null {
    return this.probed.state === 'not-probed' ? null : this.probed.version;
  }

  /** When it last answered a probe (epoch ms); null until it has. */
  get lastSeenAtMs(): number | null {
    return this.probed.state === 'not-probed' ? null : this.probed.lastSeenAtMs;
  }

  async probe(): Promise<void> {
    try {
      const stats = await this.http.getJson<{ system?: { comfyui_version?: unknown } }>('/system_stats', Math.min(this.options.requestTimeoutMs, PROBE_TIMEOUT_MS));
      const version = typeof stats.system?.comfyui_version === 'string' ? stats.system.comfyui_version : null;
      this.record({ answered: true, version, atMs: Date.now() });
      this.socket.connect();
      await this.readQueueAndCapabilities();
    } catch (error) {
      this.uploaded.clear();
      this.record({ answered: false, error: (error as Error).message });
    }
  }

  private record(outcome: ProbeOutcome): void {
    const step = afterProbe(this.probed, outcome);
    this.probed = step.state;
    // Names what answered (its version), so an operator sees which server a start found; a start
    // without its backend says so too.
    if (step.announce === 'reachable') this.options.log('info', 'ComfyUI backend reachable', { backend: this.url, version: this.version });
    if (step.announce === 'unreachable') this.options.log('warn', 'ComfyUI backend unreachable', { backend: this.url, error: this.detail });
  }

  /** Placement's view of the server: other clients' prompts always, its capabilities when stale. */
  private async readQueueAndCapabilities(): Promise<void> {
    const queue = await this.locator.queue();
    this.foreignPrompts = [...queue.queue_running, ...queue.queue_pending].filter((t) => typeof t[3]?.['runload_run_id'] !== 'string').length;
    const now = Date.now();
    if (this.capabilities && now - this.capabilitiesReadAtMs < CAPABILITIES_REFRESH_MS) return;
    try {
      const info = await this.http.getJson<Record<string, never>>('/object_info', this.options.requestTimeoutMs);
      this.capabilities = new BackendCapabilities(info);
      this.capabilitiesHash = createHash('sha256').update(JSON.stringify(info)).digest('hex').slice(0, 16);
      this.capabilitiesReadAtMs = now;
    } catch (error) {
      // The last capabilities known stay in use; the next probe tries again.
      this.options.log('warn', 'could not read the capabilities of a ComfyUI backend', { backend: this.url, error: (error as Error).message });
    }
  }

  /** Prompts running and pending on the server now, plus those this process is sending. */
  async load(): Promise<number> {
    const body = await this.http.getJson<{ exec_info?: { queue_remaining?: unknown } }>('/prompt', PROBE_TIMEOUT_MS);
    const remaining = Number(body.exec_info?.queue_remaining ?? 0);
    return (Number.isFinite(remaining) ? remaining : 0) + this.submitting;
  }

  async submit(job: ExecutionJob): Promise<SubmitResult> {
    this.submitting += 1;
    try {
      return await this.send(job);
    } finally {
      this.submitting -= 1;
    }
  }

  private async send(job: ExecutionJob, reuseUploads = true): Promise<SubmitResult> {
    const media: Record<string, string> = {};
    const reused: string[] = [];
    for (const [key, file] of Object.entries(job.media)) {
      const name = uploadName(file);
      const known = reuseUploads ? this.uploaded.get(name) : undefined;
      if (known !== undefined) reused.push(name);
      const uploaded = known ?? (await this.upload(file, name));
      if (typeof uploaded !== 'string') return { accepted: false, error: uploaded };
      media[key] = uploaded;
    }
    const prompt = applyInputs(job.workflow, job.inputs, media);
    if (job.stillClaimed && !(await job.stillClaimed())) throw new CoreError('INVALID_TRANSITION', CLAIM_LOST);
    const body = { prompt, client_id: this.options.clientId, prompt_id: job.runId, extra_data: { runload_run_id: job.runId } };
    // Planned before it is sent: the server may speak of the prompt before its answer comes.
    this.followers.plan(job.runId, Object.keys(prompt));
    let result;
    try {
      result = await this.http.request('POST', '/prompt', body, { allowServerErrors: true });
    } catch (error) {
      // The request may have reached the server before the connection failed: ask before saying it never started.
      if (await this.wasQueued(job.runId)) return { accepted: true };
      this.followers.unplan(job.runId);
      throw error;
    }
    if (result.status === 200) {
      const answer = result.body as { prompt_id?: unknown; node_errors?: Record<string, unknown> };
      if (typeof answer.prompt_id === 'string') this.locator.remember(job.runId, answer.prompt_id);
      if (answer.node_errors && Object.keys(answer.node_errors).length > 0) {
        // Part of the workflow was refused: the run fails as a whole, so what was queued is taken back first.
        await this.cancel(job.runId).catch((error: unknown) =>
          this.options.log('warn', 'could not take back a partly refused prompt', { runId: job.runId, error: (error as Error).message }),
        );
        this.followers.unplan(job.runId);
        return { accepted: false, error: partialRefusal(answer.node_errors, job.workflow, await this.takenBack(job.runId)) };
      }
      return { accepted: true };
    }
    this.followers.unplan(job.runId);
    if (reused.length > 0) {
      // Perhaps a file it no longer has (its input folder emptied): sent again before the refusal stands.
      for (const name of reused) this.uploaded.delete(name);
      return this.send(job, false);
    }
    // 400 is a validation refusal; a 500 is ComfyUI failing on this prompt: neither queued it.
    return { accepted: false, error: promptRefusal(result.status, result.body, job.workflow) };
  }

  /** Where a prompt runload asked to take back ended: never run, run to its end, or interrupted. */
  private async takenBack(runId: string): Promise<TakenBack> {
    const state = await this.locator.inspect(runId).then(
      (found) => found.state,
      () => null,
    );
    if (state === 'unknown') return 'before-it-ran';
    if (state === 'succeeded' || state === 'failed') return 'after-it-ran';
    if (state === 'interrupted') return 'while-it-ran';
    return 'unknown';
  }

  private async wasQueued(runId: string): Promise<boolean> {
    try {
      return (await this.locator.inspect(runId)).state !== 'unknown';
    } catch {
      // Still unreachable: nothing says it was queued.
      return false;
    }
  }

  /** The widget value of an uploaded file, or the refusal when the server will never take it. */
  private async upload(file: MediaFile, name: string) {
    const multipart = streamingMultipart(
      { type: 'input', subfolder: MEDIA_SUBFOLDER },
      { field: 'image', filename: name, contentType: file.contentType, content: await file.open() },
    );
    const body = new StreamedBody(multipart.body, multipart.contentType);
    const result = await this.http.request('POST', '/upload/image', body, { timeoutMs: TRANSFER_TIMEOUT_MS, idleMs: TRANSFER_IDLE_MS });
    const uploaded = (result.body ?? {}) as { name?: unknown; subfolder?: unknown };
    if (result.status === 200 && typeof uploaded.name === 'string') {
      const value = typeof uploaded.subfolder === 'string' && uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
      if (this.uploaded.size >= UPLOADS_REMEMBERED) this.uploaded.delete(this.uploaded.keys().next().value ?? '');
      this.uploaded.set(name, value);
      return value;
    }
    if (result.status >= 400 && result.status < 500) {
      return { code: 'VALIDATION_ERROR' as const, message: `ComfyUI refused the upload of ${file.filename} (${result.status})`, nodeId: null, nodeType: null, details: { status: result.status } };
    }
    throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.url} answered ${result.status} to the upload of ${name}`);
  }

  async inspect(runId: string): Promise<ExecutionState> {
    return this.locator.inspect(runId);
  }

  follow(runId: string, listener: (event: FollowedRunEvent) => void): () => void {
    return this.followers.follow(runId, listener);
  }

  /** `signal` aborts the download wherever it is (its headers awaited or its bytes read). */
  async fetchOutput(ref: OutputRef, signal?: AbortSignal): Promise<FetchedOutput> {
    const path = viewPath(ref);
    // Opened now, so a file the server lost fails here rather than mid-store; later opens fetch
    // again. A download started when the socket announced the file is taken (asked again if it failed).
    const ahead = this.outputsAhead.take(path, signal);
    let first: StreamedResponse | null = (ahead ? await ahead.catch(() => null) : null) ?? (await this.http.stream(path, TRANSFER_TIMEOUT_MS, TRANSFER_IDLE_MS, signal));
    const contentType = outputContentType(ref.filename, first.contentType);
    return {
      filename: ref.filename,
      contentType,
      open: async () => {
        const res = first ?? (await this.http.stream(path, TRANSFER_TIMEOUT_MS, TRANSFER_IDLE_MS, signal));
        first = null;
        return res.body;
      },
    };
  }

  async cancel(runId: string): Promise<void> {
    const id = this.locator.promptIdOf(runId);
    // Delete first, then interrupt: the other order misses a prompt that starts in between.
    await this.http.request('POST', '/queue', { delete: [id] });
    if (supportsTargetedInterrupt(this.version)) {
      await this.http.request('POST', '/interrupt', { prompt_id: id });
      return;
    }
    // An older server interrupts whatever runs: only when that is this run.
    if (!this.locator.isRunning(await this.locator.queue(), runId)) return;
    await this.http.request('POST', '/interrupt');
  }

  close(): void {
    this.socket.close();
    this.followers.close();
    this.outputsAhead.close();
    this.http.close();
  }
}

/** The name a media file is uploaded under: its asset id (so the same asset dedupes) and extension. */
function uploadName(file: MediaFile): string {
  const dot = file.filename.lastIndexOf('.');
  const extension = dot > 0 ? file.filename.slice(dot).toLowerCase().replace(/[^a-z0-9.]/g, '') : '';
  return `${file.assetId}${extension}`;
}
