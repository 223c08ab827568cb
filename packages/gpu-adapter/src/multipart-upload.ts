/**
 * A `multipart/form-data` body streamed from a file as it is read: a large video input is sent to
 * ComfyUI without ever being held in memory (FormData with a Blob would hold all of it).
 * @module
 */
import { randomUUID } from 'node:crypto';

export interface MultipartFile {
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  readonly content: AsyncIterable<Uint8Array>;
}

/** Quotes a value for a Content-Disposition parameter; the names we send are ids and extensions. */
function quoted(value: string): string {
  return `"${value.replace(/[\r\n"\\]/g, '_')}"`;
}

export function streamingMultipart(fields: Record<string, string>, file: MultipartFile): { contentType: string; body: ReadableStream<Uint8Array> } {
  const boundary = `runload-${randomUUID()}`;
  const encode = (text: string) => new TextEncoder().encode(text);
  const head = encode(
    `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(file.field)}; filename=${quoted(file.filename)}\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = encode(
    `${Object.entries(fields)
      .map(([name, value]) => `\r\n--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}`)
      .join('')}\r\n--${boundary}--\r\n`,
  );
  async function* parts(): AsyncGenerator<Uint8Array> {
    yield head;
    yield* file.content;
    yield tail;
  }
  const iterator = parts();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await iterator.return(undefined);
    },
  });
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}
