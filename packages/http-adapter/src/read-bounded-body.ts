/**
 * Reads a web request body into memory, but never more than `maxBytes` of it: past the bound the
 * stream is cancelled and nothing more is read or kept.
 * @returns the bytes, or null when the body is (or declares itself) larger than `maxBytes`
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // The client is told at once; the rest of its body is not our concern any more.
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
