/** A test WebSocket client that records the messages a ComfyUI sends it. */
import WebSocket from 'ws';

export interface Recorder {
  readonly messages: { type: string; data: Record<string, unknown> }[];
  readonly sid: string;
  /** Resolves once a message matches. */
  until(match: (m: { type: string; data: Record<string, unknown> }) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
  /** Calls back when the server drops the connection. */
  onClose(listener: () => void): void;
}

export async function connect(baseUrl: string, clientId: string): Promise<Recorder> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?clientId=${clientId}`);
  const messages: { type: string; data: Record<string, unknown> }[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (raw, binary) => {
    if (binary) return;
    messages.push(JSON.parse(String(raw)) as { type: string; data: Record<string, unknown> });
    for (const w of [...waiters]) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const recorder: Recorder = {
    messages,
    sid: clientId,
    until: (match, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (messages.some(match)) {
            waiters.splice(waiters.indexOf(check), 1);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => reject(new Error(`timed out; got ${messages.map((m) => m.type).join(',')}`)), timeoutMs);
        waiters.push(check);
        check();
      }),
    close: () => ws.close(),
    onClose: (listener) => {
      ws.once('close', () => listener());
    },
  };
  await recorder.until((m) => m.type === 'status');
  return recorder;
}
