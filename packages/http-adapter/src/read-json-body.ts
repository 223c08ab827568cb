import { CoreError } from '@runload/core';

export const MAX_JSON_BYTES = 1024 * 1024;

/**
 * Reads and parses a JSON body, refusing it with PAYLOAD_TOO_LARGE as soon as more than
 * `maxBytes` arrive (the rest is never buffered).
 * @throws CoreError PAYLOAD_TOO_LARGE, INVALID_REQUEST
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BYTES): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new CoreError('INVALID_REQUEST', 'The request body must be a JSON object with an "inputs" object');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CoreError('INVALID_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

function tooLarge(maxBytes: number): CoreError {
  return new CoreError('PAYLOAD_TOO_LARGE', `The JSON body is larger than ${maxBytes} bytes`);
}
