/** Reads a Server-Sent Events response as the events it carries. */
export interface SseEvent {
  readonly id: string | null;
  readonly event: string | null;
  readonly data: string;
}

export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  /** Comment lines seen (heartbeats). */
  comments = 0;
  ended = false;

  constructor(response: Response) {
    if (!response.body) throw new Error('no body');
    this.reader = response.body.getReader();
  }

  /** The next event, or null once the stream has ended. */
  async next(): Promise<SseEvent | null> {
    for (;;) {
      const cut = this.buffer.indexOf('\n\n');
      if (cut >= 0) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut + 2);
        const lines = block.split('\n');
        if (lines.every((l) => l.startsWith(':'))) {
          this.comments += 1;
          continue;
        }
        const field = (name: string) => lines.filter((l) => l.startsWith(`${name}: `)).map((l) => l.slice(name.length + 2));
        return { id: field('id')[0] ?? null, event: field('event')[0] ?? null, data: field('data').join('\n') };
      }
      const { done, value } = await this.reader.read();
      if (done) {
        this.ended = true;
        return null;
      }
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}
