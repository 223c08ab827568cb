/**
 * The one WebSocket runload keeps to a ComfyUI server, under its own client id. Reconnects with
 * backoff; after each (re)connect it tells its owner, who then re-checks every followed run,
 * since messages sent while it was away are lost for good. ComfyUI sends no heartbeat, so the
 * socket pings and drops a connection that stops answering. Its first message asks for previews
 * with metadata (servers before 2025-07 ignore it and send plain previews); binary frames go to
 * `onBinary` as they come.
 * @module
 */
import WebSocket from 'ws';
import { authHeaders, type AuthHeader } from './backend-auth.js';

export interface SocketMessage {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

export interface SocketOptions {
  readonly pingIntervalMs?: number;
  /** Each binary frame (previews), untouched. */
  readonly onBinary?: (frame: Buffer) => void;
  /** Credentials the server's proxy wants, sent with the upgrade request. */
  readonly auth?: AuthHeader | null;
}

/** What runload tells the server it understands: previews that name their prompt and node. */
const FEATURE_FLAGS = JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } });

function asBuffer(raw: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  return Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
}

export class ComfyUiSocket {
  private ws: WebSocket | null = null;
  private closed = false;
  private backoffMs = 250;
  private timer: NodeJS.Timeout | null = null;
  private pinger: NodeJS.Timeout | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly clientId: string,
    private readonly onMessage: (message: SocketMessage) => void,
    private readonly onConnected: () => void,
    private readonly options: SocketOptions = {},
  ) {}

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  connect(): void {
    if (this.closed || this.ws) return;
    const url = `${this.baseUrl.replace(/^http/, 'ws')}/ws?clientId=${encodeURIComponent(this.clientId)}`;
    const ws = new WebSocket(url, { handshakeTimeout: 3000, headers: authHeaders(this.options.auth ?? null) });
    this.ws = ws;
    let alive = true;
    ws.on('pong', () => (alive = true));
    ws.on('open', () => {
      this.backoffMs = 250;
      ws.send(FEATURE_FLAGS);
      if (this.pinger) clearInterval(this.pinger);
      this.pinger = setInterval(() => {
        if (!alive) return ws.terminate();
        alive = false;
        ws.ping();
      }, this.options.pingIntervalMs ?? 15_000);
      this.pinger.unref();
      this.onConnected();
    });
    ws.on('message', (raw, binary) => {
      if (binary) {
        this.options.onBinary?.(asBuffer(raw));
        return;
      }
      let parsed: Partial<SocketMessage> | null;
      try {
        parsed = JSON.parse(String(raw)) as Partial<SocketMessage> | null;
      } catch {
        // A text frame that is not JSON carries nothing runload follows: skip it.
        return;
      }
      if (parsed && typeof parsed.type === 'string') this.onMessage({ type: parsed.type, data: parsed.data ?? {} });
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.pinger) clearInterval(this.pinger);
      this.pinger = null;
      this.scheduleReconnect();
    });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.pinger) clearInterval(this.pinger);
    this.ws?.terminate();
    this.ws = null;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, this.backoffMs);
    this.timer.unref();
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
  }
}
