import type { IncomingMessage } from 'node:http';
import { CoreError } from '@runload/core';
import { readBoundedBody } from './read-bounded-body.js';
import { readNodeBody } from './read-node-body.js';

/** A JSON body over 1 MiB is PAYLOAD_TOO_LARGE. */
export const MAX_JSON_BYTES = 1024 * 1024;

/** Arrays and objects nested in a JSON body at most (a run's body needs three). */
export const MAX_JSON_DEPTH = 64;

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
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new CoreError('INVALID_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
  // No request needs more; and code that walks a body (the idempotency fingerprint, validation)
  // would otherwise run out of stack on a few kilobytes of brackets.
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new CoreError('INVALID_REQUEST', `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
  return value;
}

/** Whether `value` nests arrays and objects more than `limit` levels deep, walked without recursion. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [object, number][] = value !== null && typeof value === 'object' ? [[value, 1]] : [];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, depth] = next;
    if (depth > limit) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child as object, depth + 1]);
  }
  return false;
}
