/**
 * Reads a Node request body into memory, never more than `maxBytes` of it. Reading the socket's
 * own stream skips the web-stream wrapper around it (a tenth of a run creation's time).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { ClientGoneError } from './client-gone.js';

/**
 * @returns the bytes, or null once more than `maxBytes` arrived: reading stops there, and Node
 *   discards the rest after the response.
 * @throws ClientGoneError when the client goes away before the body ends
 */
export function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(new ClientGoneError());
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}
