/**
 * A fake ComfyUI server (HTTP and WebSocket) that behaves as the recorded v0.3.64 does, for
 * tests, benchmarks and the demo. Fault hooks: pause, failNextWith, crash, restart.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { FakeState, fileKey, asTuple, type QueueItem } from './fake-state.js';
import { FakeWorker, type Failure, type WorkerSettings } from './fake-worker.js';
import { NODES, objectInfo } from './node-library.js';
import { validatePrompt } from './validation.js';
import type { FakeVersion } from './version.js';

export interface FakeComfyUIOptions {
  readonly host?: string;
  readonly port?: number;
  readonly executionMs?: number;
  readonly progressSteps?: number;
  readonly version?: FakeVersion;
}

export interface AcceptedPrompt {
  readonly prompt_id: string;
  readonly number: number;
  readonly prompt: unknown;
  readonly client_id: string | undefined;
  readonly extra_data: Record<string, unknown>;
}

const MIME: Record<string, string> = { png: 'image/png', mp4: 'video/mp4', flac: 'audio/flac', wav: 'audio/wav', jpg: 'image/jpeg', webp: 'image/webp' };

export class FakeComfyUI {
  readonly prompts: AcceptedPrompt[] = [];
  private readonly state = new FakeState();
  private readonly sockets = new Map<string, WebSocket>();
  private readonly worker: FakeWorker;
  private readonly settings: WorkerSettings;
  private server: Server | null = null;
  private wss: WebSocketServer | null = null;
  private generation = 0;
  private delays = { upload: 0, view: 0 };
  /** Requests received, by route (`POST /upload/image`, `GET /view`, …), for tests that act mid-request. */
  readonly requestCounts = new Map<string, number>();
  private paused = false;
  private host: string;
  port: number;

  constructor(options: FakeComfyUIOptions = {}) {
    this.host = options.host ?? '127.0.0.1';
    this.port = options.port ?? 0;
    this.settings = { executionMs: options.executionMs ?? 50, progressSteps: options.progressSteps ?? 4, version: options.version ?? '0.3.64' };
    this.worker = new FakeWorker(this.state, {
      toClient: (sid, type, data) => sid && this.send(sid, type, data),
      toClientOrAll: (sid, type, data) => (sid ? this.send(sid, type, data) : this.broadcast(type, data)),
      broadcastStatus: () => this.broadcast('status', { status: { exec_info: { queue_remaining: this.queueRemaining() } } }),
    }, this.settings, () => this.generation);
  }

  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  executedCount(promptId: string): number {
    return this.worker.executions.get(promptId) ?? 0;
  }

  setExecutionMs(ms: number): void {
    this.settings.executionMs = ms;
  }

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

  failNextWith(failure: Failure): void {
    this.worker.failNext = failure;
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('500 Internal Server Error\n\nServer got itself in trouble');
      });
    });
    const wss = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname !== '/ws' && url.pathname !== '/api/ws') return socket.destroy();
      wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, url.searchParams.get('clientId')));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    this.wss = wss;
  }

  /** The process dies: sockets and listener close abruptly; queue, running prompt and history are forgotten. */
  async crash(): Promise<void> {
    this.generation += 1;
    for (const ws of this.sockets.values()) ws.terminate();
    this.sockets.clear();
    this.wss?.clients.forEach((ws) => ws.terminate());
    const server = this.server;
    this.server = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    this.state.forget();
  }

  /** A restarted ComfyUI on the same port: empty queue and history. */
  async restart(): Promise<void> {
    if (this.server) await this.crash();
    await this.listen();
  }

  async close(): Promise<void> {
    await this.crash();
  }

  private accept(ws: WebSocket, clientId: string | null): void {
    const sid = clientId ?? randomUUID().replace(/-/g, '');
    this.sockets.set(sid, ws);
    ws.on('close', () => {
      if (this.sockets.get(sid) === ws) this.sockets.delete(sid);
    });
    ws.on('error', () => ws.terminate());
    ws.on('message', (raw) => {
      try {
        const msg = JSON.parse(String(raw)) as { type?: string };
        if (msg.type === 'feature_flags') ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true, max_upload_size: 104857600 } }));
      } catch {
        // ComfyUI ignores client messages it cannot read.
      }
    });
    const status: Record<string, unknown> = { status: { exec_info: { queue_remaining: this.queueRemaining() } } };
    if (this.settings.version !== 'legacy') status['sid'] = sid;
    ws.send(JSON.stringify({ type: 'status', data: status }));
  }

  private send(sid: string, type: string, data: Record<string, unknown>): void {
    const ws = this.sockets.get(sid);
    if (ws && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type, data }));
  }

  private broadcast(type: string, data: Record<string, unknown>): void {
    for (const sid of this.sockets.keys()) this.send(sid, type, data);
  }

  private queueRemaining(): number {
    return this.state.pending.length + (this.state.running ? 1 : 0);
  }

  private pump(): void {
    if (this.paused || this.state.running || !this.server) return;
    const item = this.state.next();
    if (!item) return;
    this.state.running = item;
    this.broadcast('status', { status: { exec_info: { queue_remaining: this.queueRemaining() } } });
    void this.worker.execute(item).finally(() => setImmediate(() => this.pump()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.startsWith('/api/') && !url.pathname.startsWith('/api/jobs') ? url.pathname.slice(4) : url.pathname;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    const empty = () => {
      res.writeHead(200);
      res.end();
    };
    const route = `${req.method} ${path}`;
    this.requestCounts.set(route, (this.requestCounts.get(route) ?? 0) + 1);
    const hold = route === 'POST /upload/image' ? this.delays.upload : route === 'GET /view' ? this.delays.view : 0;
    if (hold > 0) await new Promise((r) => setTimeout(r, hold));
    if (route === 'GET /system_stats') {
      return json(200, {
        system: { os: this.settings.version === '2026' ? 'linux' : 'posix', ram_total: 25e9, ram_free: 24e9, comfyui_version: this.settings.version === '2026' ? '0.9.0' : '0.3.64', python_version: '3.11.2', pytorch_version: '2.0', embedded_python: false, argv: ['main.py', '--cpu'] },
        devices: [{ name: 'cpu', type: 'cpu', index: null, vram_total: 0, vram_free: 0, torch_vram_total: 0, torch_vram_free: 0 }],
      });
    }
    if (route === 'GET /features') {
      if (this.settings.version === 'legacy') return json(404, { error: 'not found' });
      return json(200, { supports_preview_metadata: true, max_upload_size: 104857600.0 });
    }
    if (route === 'GET /object_info') return json(200, Object.fromEntries(Object.entries(NODES).map(([k, v]) => [k, objectInfo(k, v)])));
    if (req.method === 'GET' && path.startsWith('/object_info/')) {
      const name = decodeURIComponent(path.slice('/object_info/'.length));
      const node = NODES[name];
      return json(200, node ? { [name]: objectInfo(name, node) } : {});
    }
    if (route === 'GET /prompt') return json(200, { exec_info: { queue_remaining: this.queueRemaining() } });
    if (route === 'POST /prompt') return this.submit(await readBody(req), json);
    if (route === 'GET /queue') {
      return json(200, { queue_running: this.state.running ? [asTuple(this.state.running)] : [], queue_pending: this.state.pending.map(asTuple) });
    }
    if (route === 'POST /queue') {
      const body = parseJson(await readBody(req)) as { clear?: boolean; delete?: string[] } | null;
      if (body?.clear) this.state.pending = [];
      if (Array.isArray(body?.delete)) this.state.pending = this.state.pending.filter((i) => !body.delete?.includes(i.promptId));
      this.broadcast('status', { status: { exec_info: { queue_remaining: this.queueRemaining() } } });
      return empty();
    }
    if (route === 'POST /interrupt') {
      const body = parseJson(await readBody(req)) as { prompt_id?: string } | null;
      const target = this.settings.version === 'legacy' ? undefined : body?.prompt_id;
      if (this.state.running && (target === undefined || target === this.state.running.promptId)) this.worker.interruptRequested = true;
      return empty();
    }
    if (route === 'GET /history') {
      const entries = [...this.state.history.entries()];
      const max = url.searchParams.get('max_items');
      return json(200, Object.fromEntries(max ? entries.slice(-Number(max)) : entries));
    }
    if (req.method === 'GET' && path.startsWith('/history/')) {
      const id = decodeURIComponent(path.slice('/history/'.length));
      const entry = this.state.history.get(id);
      return json(200, entry ? { [id]: entry } : {});
    }
    if (route === 'POST /history') {
      const body = parseJson(await readBody(req)) as { clear?: boolean; delete?: string[] } | null;
      if (body?.clear) this.state.history.clear();
      for (const id of body?.delete ?? []) this.state.history.delete(id);
      return empty();
    }
    if (route === 'GET /view') return this.view(url, res);
    if (route === 'POST /upload/image') return this.upload(req, json);
    if (this.settings.version === '2026' && req.method === 'GET' && path.startsWith('/api/jobs/')) {
      const id = decodeURIComponent(path.slice('/api/jobs/'.length));
      if (this.state.running?.promptId === id) return json(200, { id, status: 'in_progress', outputs_count: 0 });
      if (this.state.pending.some((i) => i.promptId === id)) return json(200, { id, status: 'pending', outputs_count: 0 });
      const entry = this.state.history.get(id);
      if (!entry) return json(404, { error: 'Job not found' });
      return json(200, { id, status: entry.status.status_str === 'success' ? 'completed' : 'failed', outputs: entry.outputs, execution_status: entry.status });
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('404: Not Found');
  }

  private submit(raw: string, json: (status: number, body: unknown) => void): void {
    const body = JSON.parse(raw) as Record<string, unknown>; // malformed JSON → plain-text 500, as recorded
    const prompt = body['prompt'];
    if (prompt === undefined) return json(400, { error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} }, node_errors: {} });
    if (prompt === null || typeof prompt !== 'object' || Array.isArray(prompt)) throw new TypeError('prompt is not an object');
    const result = validatePrompt(prompt as Record<string, never>, this.state.inputNames(), this.settings.version);
    if (!result.ok) return json(400, result.body);
    const clientPromptId = this.settings.version !== 'legacy' && body['prompt_id'] !== undefined ? String(body['prompt_id']) : undefined;
    const promptId = clientPromptId ?? randomUUID();
    const number = this.state.counter;
    this.state.counter += 1;
    const extraData: Record<string, unknown> = { ...((body['extra_data'] as Record<string, unknown> | undefined) ?? {}) };
    if (typeof body['client_id'] === 'string') extraData['client_id'] = body['client_id'];
    if (this.settings.version === '2026') extraData['create_time'] = Date.now();
    const item: QueueItem = { number, promptId, prompt: prompt as QueueItem['prompt'], extraData, outputs: result.outputs };
    this.state.pending.push(item);
    this.prompts.push({ prompt_id: promptId, number, prompt, client_id: extraData['client_id'] as string | undefined, extra_data: extraData });
    this.broadcast('status', { status: { exec_info: { queue_remaining: this.queueRemaining() } } });
    json(200, { prompt_id: promptId, number, node_errors: result.nodeErrors });
    setImmediate(() => this.pump());
  }

  private view(url: URL, res: ServerResponse): void {
    const filename = url.searchParams.get('filename');
    const type = url.searchParams.get('type') ?? 'output';
    const subfolder = url.searchParams.get('subfolder') ?? '';
    if (!filename) {
      res.writeHead(404);
      return void res.end();
    }
    if (filename.startsWith('/') || filename.includes('..') || !['output', 'input', 'temp'].includes(type)) {
      res.writeHead(400);
      return void res.end();
    }
    const name = filename.split('/').pop() as string;
    const bytes = this.state.files.get(fileKey(type, subfolder, name));
    if (!bytes) {
      res.writeHead(404);
      return void res.end();
    }
    const ext = name.split('.').pop() ?? '';
    res.writeHead(200, { 'content-type': MIME[ext] ?? 'application/octet-stream', 'content-length': bytes.length, 'content-disposition': `filename="${name}"` });
    res.end(bytes);
  }

  private async upload(req: IncomingMessage, json: (status: number, body: unknown) => void): Promise<void> {
    const request = new Request('http://fake/upload', {
      method: 'POST',
      headers: req.headers as Record<string, string>,
      body: Readable.toWeb(req) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const form = await request.formData();
    const file = form.get('image');
    if (!file || typeof file === 'string' || !file.name) return json(400, { error: 'no image' });
    const type = String(form.get('type') ?? 'input');
    const subfolder = String(form.get('subfolder') ?? '');
    const overwrite = ['true', '1'].includes(String(form.get('overwrite') ?? ''));
    const bytes = Buffer.from(await file.arrayBuffer());
    const dot = file.name.lastIndexOf('.');
    const stem = dot > 0 ? file.name.slice(0, dot) : file.name;
    const ext = dot > 0 ? file.name.slice(dot) : '';
    let name = file.name;
    for (let n = 1; !overwrite; n += 1) {
      const existing = this.state.files.get(fileKey(type, subfolder, name));
      if (!existing || existing.equals(bytes)) break;
      name = `${stem} (${n})${ext}`;
    }
    this.state.files.set(fileKey(type, subfolder, name), bytes);
    json(200, { name, subfolder, type });
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null; // /interrupt and /queue treat an unreadable body as no body
  }
}

export async function startFakeComfyUI(options: FakeComfyUIOptions = {}): Promise<FakeComfyUI> {
  const fake = new FakeComfyUI(options);
  await fake.listen();
  return fake;
}
