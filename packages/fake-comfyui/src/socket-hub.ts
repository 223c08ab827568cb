/**
 * The fake's WebSocket side (`/ws`, `/api/ws`): the `status` handshake carrying `sid`, the replay
 * of `executing` to a reconnecting owner of the running prompt, the `feature_flags` answer to a
 * first message, and addressed versus broadcast messages. Messages to an unknown sid are dropped.
 * Preview images go as binary frames: with metadata (type 4) to a socket whose first message
 * asked for it, as a plain image (type 1) to any other.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FakeState } from './fake-state.js';
import type { FakeVersion } from './version.js';

export const SERVER_FEATURES = { supports_preview_metadata: true, max_upload_size: 104857600 };

export class SocketHub {
  private readonly sockets = new Map<string, WebSocket>();
  /** The sids whose socket asked for previews with metadata. */
  private readonly withMetadata = new Set<string>();
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(
    private readonly state: FakeState,
    private readonly version: () => FakeVersion,
  ) {}

  /** Takes an HTTP upgrade; anything but `/ws` or `/api/ws` is refused. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/ws' && url.pathname !== '/api/ws') {
      socket.destroy();
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, url.searchParams.get('clientId')));
  }

  send(sid: string, type: string, data: Record<string, unknown>): void {
    const ws = this.sockets.get(sid);
    if (ws && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type, data }));
  }

  broadcast(type: string, data: Record<string, unknown>): void {
    for (const sid of this.sockets.keys()) this.send(sid, type, data);
  }

  /**
   * A preview of the prompt running for `sid` (every socket when it has none), sent as ComfyUI
   * does at each sampler step: `phase` 'metadata' goes with the step's `progress_state` (type 4,
   * to a socket that asked for it), 'plain' after its `progress` (type 1, to the others).
   */
  preview(sid: string | undefined, phase: 'metadata' | 'plain', jpeg: Buffer, metadata: Record<string, unknown>): void {
    const targets = sid !== undefined ? [sid] : [...this.sockets.keys()];
    for (const target of targets) {
      // A prompt without a client id has no socket to ask about: ComfyUI sends every socket the plain form.
      const wantsMetadata = sid !== undefined && this.withMetadata.has(target);
      if ((phase === 'metadata') !== wantsMetadata) continue;
      this.sendBinary(target, phase === 'metadata' ? withMetadataFrame(jpeg, metadata) : plainFrame(jpeg));
    }
  }

  /** Any bytes as one binary frame to every socket (tests send malformed frames this way). */
  broadcastBinary(frame: Buffer): void {
    for (const sid of this.sockets.keys()) this.sendBinary(sid, frame);
  }

  private sendBinary(sid: string, frame: Buffer): void {
    const ws = this.sockets.get(sid);
    if (ws && ws.readyState === ws.OPEN) ws.send(frame, { binary: true });
  }

  broadcastStatus(): void {
    this.broadcast('status', { status: { exec_info: { queue_remaining: this.state.queueRemaining() } } });
  }

  /** Drops every connection without a closing handshake, as a dying process does. */
  terminateAll(): void {
    for (const ws of this.wss.clients) ws.terminate();
    this.sockets.clear();
  }

  private accept(ws: WebSocket, clientId: string | null): void {
    const sid = clientId || randomUUID().replace(/-/g, '');
    const modern = this.version() !== 'legacy';
    this.sockets.set(sid, ws);
    this.withMetadata.delete(sid);
    ws.on('close', () => {
      if (this.sockets.get(sid) !== ws) return;
      this.sockets.delete(sid);
      this.withMetadata.delete(sid);
    });
    ws.on('error', () => ws.terminate());
    let first = true;
    ws.on('message', (raw, binary) => {
      const wasFirst = first;
      first = false;
      if (!wasFirst || binary || !modern) return;
      let message: { type?: unknown } | null = null;
      try {
        message = JSON.parse(String(raw)) as { type?: unknown };
      } catch {
        return; // ComfyUI logs and ignores client messages it cannot parse
      }
      if (message?.type !== 'feature_flags') return;
      const flags = (message as { data?: { supports_preview_metadata?: unknown } }).data;
      if (flags?.supports_preview_metadata === true && this.sockets.get(sid) === ws) this.withMetadata.add(sid);
      ws.send(JSON.stringify({ type: 'feature_flags', data: SERVER_FEATURES }));
    });
    const status: Record<string, unknown> = { status: { exec_info: { queue_remaining: this.state.queueRemaining() } } };
    if (modern) status['sid'] = sid;
    ws.send(JSON.stringify({ type: 'status', data: status }));
    const running = this.state.running;
    if (running && running.extraData['client_id'] === sid && this.state.runningNode !== null) {
      ws.send(JSON.stringify({ type: 'executing', data: { node: this.state.runningNode } }));
    }
  }
}

/** Type 1: the event type, the image format (1 = JPEG), the image. */
function plainFrame(jpeg: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(1, 0);
  head.writeUInt32BE(1, 4);
  return Buffer.concat([head, jpeg]);
}

/** Type 4: the event type, the metadata's length, the metadata as JSON, the image. */
function withMetadataFrame(jpeg: Buffer, metadata: Record<string, unknown>): Buffer {
  const json = Buffer.from(JSON.stringify({ ...metadata, image_type: 'image/jpeg' }));
  const head = Buffer.alloc(8);
  head.writeUInt32BE(4, 0);
  head.writeUInt32BE(json.length, 4);
  return Buffer.concat([head, json, jpeg]);
}
