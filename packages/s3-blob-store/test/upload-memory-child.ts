/**
 * Run by upload-memory.spec.ts in a process of its own: stages `argv[3]` MiB through the S3 blob
 * store at the S3 URL `argv[2]` (the server's variables in the environment), after a small upload
 * that loads everything, and prints what the upload added to the process's peak memory (VmHWM),
 * in MiB, as JSON. The bytes come in fresh 64 KiB pieces, as a request body's do.
 */
import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { s3BlobStoreFromEnv } from '@runload/s3-blob-store';

const [url, mib] = process.argv.slice(2);
const PIECE = 64 * 1024;

function peakMiB(): number {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

async function* pieces(total: number): AsyncIterable<Uint8Array> {
  for (let sent = 0; sent < total; sent += PIECE) yield randomFillSync(Buffer.allocUnsafe(Math.min(PIECE, total - sent)));
}

const { store, close } = s3BlobStoreFromEnv(url as string, process.env);
const warm = await store.stage(pieces(6 * 1024 * 1024), { maxBytes: 1 << 30 });
await warm.discard();
const before = peakMiB();
const bytes = Number(mib) * 1024 * 1024;
const staged = await store.stage(pieces(bytes), { maxBytes: bytes });
await staged.discard();
const after = peakMiB();
close();
process.stdout.write(`${JSON.stringify({ size: staged.size, growthMiB: after - before, beforeMiB: before, afterMiB: after })}\n`);
