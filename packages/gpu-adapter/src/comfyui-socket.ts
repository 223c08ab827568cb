/**
 * The one WebSocket runload keeps to a ComfyUI server, under its own client id. Reconnects with
 * backoff; after each (re)connect it tells its owner, who then re-checks every followed run,
 * since messages sent while it was away are lost for good.
 * @module
 */
import WebSocket from 'ws';

export interface SocketMessage {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

export class ComfyUiSocket {
  private ws: WebSocket | null = null;
  private closed = false;
  private backoffMs = 250;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly clientId: string,
    private readonly onMessage: (message: SocketMessage) => void,
    private readonly onConnected: () => void,
  ) {}

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  connect(): void {
    if (this.closed || this.ws) return;
    const url = `${this.baseUrl.replace(/^http/, 'ws')}/ws?clientId=${encodeURIComponent(this.clientId)}`;
    const ws = new WebSocket(url, { handshakeTimeout: 3000 });
    this.ws = ws;
    ws.on('open', () => {
      this.backoffMs = 250;
      this.onConnected();
    });
    ws.on('message', (raw, binary) => {
      if (binary) return; // previews: runload does not use them
      try {
        const parsed = JSON.parse(String(raw)) as SocketMessage;
        if (parsed && typeof parsed.type === 'string') this.onMessage({ type: parsed.type, data: parsed.data ?? {} });
      } catch {
        // A frame that is not JSON carries nothing runload follows.
      }
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      if (this.ws === ws) this.ws = null;
      this.scheduleReconnect();
    });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
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
