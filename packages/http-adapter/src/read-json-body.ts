import type { IncomingMessage } from 'node:http';
import { CoreError } from '@runload/core';
import { readBoundedBody } from './read-bounded-body.js';
import { readNodeBody } from './read-node-body.js';

/** CONTRACT 5: a JSON body over 1 MiB is PAYLOAD_TOO_LARGE. */
export const MAX_JSON_BYTES = 1024 * 1024;

/**
 * Reads and parses a JSON body, refusing it with PAYLOAD_TOO_LARGE as soon as more than
 * `maxBytes` arrive (the rest is never buffered).
 * @throws CoreError PAYLOAD_TOO_LARGE, INVALID_REQUEST
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BYTES, nodeRequest?: IncomingMessage): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  const tooLarge = Number.isFinite(declared) && declared > maxBytes;
  const bytes = nodeRequest && !tooLarge ? await readNodeBody(nodeRequest, maxBytes) : await readBoundedBody(request, maxBytes);
  if (bytes === null) throw new CoreError('PAYLOAD_TOO_LARGE', `The JSON body is larger than ${maxBytes} bytes`);
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw new CoreError('INVALID_REQUEST', 'The request body must be a JSON object with an "inputs" object');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CoreError('INVALID_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
