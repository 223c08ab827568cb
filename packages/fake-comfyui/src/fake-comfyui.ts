/**
 * A fake ComfyUI server (HTTP and WebSocket on node:http + ws) that behaves as the recorded
 * v0.3.64 does, for tests, benchmarks and the demo. Fault hooks: pause, failNextWith, failRequests, crash,
 * restart, delays.
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AcceptedPrompt, FakeHost } from './fake-host.js';
import { FakeState } from './fake-state.js';
import { FakeWorker, type Failure, type WorkerSettings } from './fake-worker.js';
import { sendNotFound, sendServerError } from './http-util.js';
import { NodeRegistry } from './node-registry.js';
import { internalFiles, upload, view } from './routes/file-routes.js';
import { features, models, objectInfo, systemStats } from './routes/info-routes.js';
import { getJob, listJobs } from './routes/jobs-routes.js';
import { getHistory, getHistoryEntry, getPrompt, getQueue, postFree, postHistory, postInterrupt, postPrompt, postQueue } from './routes/queue-routes.js';
import { SocketHub } from './socket-hub.js';
import type { FakeVersion } from './version.js';

export interface FakeComfyUIOptions {
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Total execution time of one prompt, spread over the nodes that run (default 50). */
  readonly executionMs?: number;
  /** `progress` messages a sampler-like node emits (default 4). */
  readonly progressSteps?: number;
  /** `auto` (the default): samplers send a JPEG preview at each step; `none`: no previews, as ComfyUI's own default. */
  readonly previewMethod?: 'auto' | 'none';
  /** About how many bytes each preview has (default: the smallest JPEG, under 200 bytes). */
  readonly previewBytes?: number;
  /** Which ComfyUI to imitate (see `FakeVersion`); default '0.3.64'. */
  readonly version?: FakeVersion;
  /** Extra `/object_info` entries: served as given, accepted in prompts, run as no-ops. */
  readonly objectInfo?: Record<string, unknown>;
  /** What this fake's `models/checkpoints` holds (listed by `/object_info` and `/models`); default the one v1.5 checkpoint. */
  readonly checkpoints?: readonly string[];
  /** Called with each request's route (`GET /view`, …) as it arrives, before any delay: a process's tests see it on stdout. */
  readonly onRequest?: (route: string) => void;
}

export type { AcceptedPrompt };

export class FakeComfyUI {
  /** Every accepted prompt, as received. */
  readonly prompts: AcceptedPrompt[] = [];
  /** Requests received, by route (`POST /upload/image`, `GET /view`, …), for tests that act mid-request. */
  readonly requestCounts = new Map<string, number>();
  /** When each prompt's execution ended (epoch ms), for benchmarks of what a client adds after it. */
  readonly finishedAt = new Map<string, number>();
  port: number;
  private readonly state = new FakeState();
  private readonly settings: WorkerSettings;
  private readonly registry: NodeRegistry;
  private readonly hub: SocketHub;
  private readonly worker: FakeWorker;
  private readonly host: FakeHost;
  private readonly hostname: string;
  private server: Server | null = null;
  private generation = 0;
  private paused = false;
  private delays = { upload: 0, view: 0 };
  private viewDripMs = 0;
  private readonly onRequest: ((route: string) => void) | undefined;
  /** Requests per route (`POST /interrupt`) still to be answered 500. */
  private readonly failing = new Map<string, number>();

  constructor(options: FakeComfyUIOptions = {}) {
    this.onRequest = options.onRequest;
    this.hostname = options.host ?? '127.0.0.1';
    this.port = options.port ?? 0;
    this.settings = { executionMs: options.executionMs ?? 50, progressSteps: options.progressSteps ?? 4, version: options.version ?? '0.3.64', previewMethod: options.previewMethod ?? 'auto', previewBytes: options.previewBytes ?? 0 };
    this.registry = new NodeRegistry(options.objectInfo ?? {}, options.checkpoints);
    this.hub = new SocketHub(this.state, () => this.settings.version);
    this.worker = new FakeWorker(this.state, this.registry, {
      toClient: (sid, type, data) => sid !== undefined && this.hub.send(sid, type, data),
      toClientOrAll: (sid, type, data) => (sid !== undefined ? this.hub.send(sid, type, data) : this.hub.broadcast(type, data)),
      broadcastStatus: () => this.hub.broadcastStatus(),
      preview: (sid, phase, jpeg, metadata) => this.hub.preview(sid, phase, jpeg, metadata),
    }, this.settings, () => this.generation);
    const { state, registry, settings, hub, worker, prompts } = this;
    this.host = { state, registry, settings, hub, worker, prompts, pump: () => this.pump(), port: () => this.port };
  }

  get url(): string {
    return `http://${this.hostname}:${this.port}`;
  }

  /** How many times a prompt actually ran (0 when it never started). */
  executedCount(promptId: string): number {
    return this.worker.executions.get(promptId) ?? 0;
  }

  setExecutionMs(ms: number): void {
    this.settings.executionMs = ms;
  }

  /** Sampler steps (each with a preview) and the size of each preview, from now on. */
  setPreviews(options: { steps?: number; bytes?: number; method?: 'auto' | 'none' }): void {
    if (options.steps !== undefined) this.settings.progressSteps = options.steps;
    if (options.method !== undefined) this.settings.previewMethod = options.method;
    if (options.bytes !== undefined) this.settings.previewBytes = options.bytes;
  }

  /** Sends these bytes as one binary frame to every socket (a malformed preview, say). */
  sendBinaryFrame(frame: Buffer): void {
    this.hub.broadcastBinary(frame);
  }

  /** Holds the worker: accepted prompts stay pending until `resume()`. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  /** Holds `/upload/image` or `/view` answers this long (to stop a client mid-transfer). */
  setDelays(delays: { upload?: number; view?: number }): void {
    this.delays = { ...this.delays, ...delays };
  }

  /** Sends each whole `/view` answer one byte every `everyMs` after its headers (0, the default: at once). */
  setViewDrip(everyMs: number): void {
    this.viewDripMs = everyMs;
  }

  /** Answers the next `count` requests of `route` (as `POST /queue`, `POST /interrupt`) 500, doing nothing. */
  failRequests(route: string, count = 1): void {
    this.failing.set(route, count);
  }

  /** The next executed prompt raises at `nodeId` (default: its last node), as `execution_error`. */
  failNextWith(failure: Failure = {}): void {
    this.worker.failNext = failure;
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch(() => sendServerError(res));
    });
    server.on('upgrade', (req, socket, head) => this.hub.upgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.hostname, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** The process dies: sockets and listener close abruptly; queue, running prompt, history and cache are forgotten. */
  async crash(): Promise<void> {
    this.generation += 1;
    this.hub.terminateAll();
    const server = this.server;
    this.server = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    this.state.forget();
  }

  /** A restarted ComfyUI on the same port: empty queue and history, counter at 0; input and output files kept. */
  async restart(): Promise<void> {
    if (this.server) await this.crash();
    await this.listen();
  }

  async close(): Promise<void> {
    await this.crash();
  }

  private pump(): void {
    if (this.paused || this.state.running || !this.server) return;
    const item = this.state.next();
    if (!item) return;
    this.state.running = item;
    this.hub.broadcastStatus();
    const generation = this.generation;
    void this.worker.execute(item).finally(() => {
      this.finishedAt.set(item.promptId, performance.timeOrigin + performance.now());
      if (generation === this.generation) setImmediate(() => this.pump());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = url.pathname;
    // Every route also answers under /api; the 2026 jobs routes exist only as /api/jobs (and /api/api/jobs).
    const path = raw.startsWith('/api/') && !/^\/api\/jobs(\/|$)/.test(raw) ? raw.slice(4) : raw;
    const method = req.method ?? 'GET';
    const route = `${method} ${path}`;
    this.requestCounts.set(route, (this.requestCounts.get(route) ?? 0) + 1);
    this.onRequest?.(route);
    const failures = this.failing.get(route) ?? 0;
    if (failures > 0) {
      this.failing.set(route, failures - 1);
      req.resume();
      return sendServerError(res);
    }
    const hold = route === 'POST /upload/image' ? this.delays.upload : route === 'GET /view' ? this.delays.view : 0;
    if (hold > 0) await new Promise((r) => setTimeout(r, hold));
    const host = this.host;
    const tail = (prefix: string) => (path.startsWith(prefix) && path.length > prefix.length ? decodeURIComponent(path.slice(prefix.length)) : undefined);
    if (method === 'GET') {
      if (path === '/prompt') return getPrompt(host, res);
      if (path === '/queue') return getQueue(host, res);
      if (path === '/history') return getHistory(host, url, res);
      if (tail('/history/') !== undefined) return getHistoryEntry(host, tail('/history/') as string, res);
      if (path === '/view') return view(host, url, req, res, this.viewDripMs);
      if (path === '/system_stats') return systemStats(host, res);
      if (path === '/features') return features(host, res);
      if (path === '/object_info') return objectInfo(host, undefined, res);
      if (tail('/object_info/') !== undefined) return objectInfo(host, tail('/object_info/'), res);
      if (path === '/embeddings' || path === '/extensions') return sendJsonList(res);
      if (path === '/models') return models(host, undefined, res);
      if (tail('/models/') !== undefined) return models(host, tail('/models/'), res);
      if (raw.startsWith('/internal/files/')) return internalFiles(host, decodeURIComponent(raw.slice('/internal/files/'.length)), res);
      if (this.settings.version === '2026' && /^\/api(\/api)?\/jobs$/.test(raw)) return listJobs(host, url, res);
      const job = /^\/api(?:\/api)?\/jobs\/([^/]+)$/.exec(raw);
      if (this.settings.version === '2026' && job) return getJob(host, decodeURIComponent(job[1] as string), res);
    }
    if (method === 'POST') {
      if (path === '/prompt') return postPrompt(host, req, res);
      if (path === '/queue') return postQueue(host, req, res);
      if (path === '/interrupt') return postInterrupt(host, req, res);
      if (path === '/history') return postHistory(host, req, res);
      if (path === '/free') return postFree(req, res);
      if (path === '/upload/image' || path === '/upload/mask') return upload(host, req, res);
    }
    req.resume();
    sendNotFound(res);
  }
}

function sendJsonList(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': 2 });
  res.end('[]');
}

/** Starts a fake ComfyUI and resolves once it listens. */
export async function startFakeComfyUI(options: FakeComfyUIOptions = {}): Promise<FakeComfyUI> {
  const fake = new FakeComfyUI(options);
  await fake.listen();
  return fake;
}
