/**
 * The latest preview of each run in Redis, one hash per run (`seq`, `node`, `type`, `image`) with
 * a TTL: every instance reads what any instance's dispatcher wrote. A put is one script, so the
 * sequence number and the image it names never disagree.
 * @module
 */
import type { Redis } from 'ioredis';
import type { Preview, PreviewContentType, PreviewInfo, PreviewStore, StoredPreview } from '@runload/core';

/** KEYS: the run's hash. ARGV: node (JSON), content type, image, keep ms. Returns the new seq. */
const PUT = `
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'type', ARGV[2], 'image', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return seq
`;

type Scripted = Redis & {
  runloadPutPreview(key: string, node: string, type: string, image: Buffer, keepMs: number): Promise<number>;
};

export class RedisPreviewStore implements PreviewStore {
  private readonly redis: Scripted;

  constructor(
    redis: Redis,
    private readonly prefix = 'runload:preview:',
  ) {
    redis.defineCommand('runloadPutPreview', { lua: PUT, numberOfKeys: 1 });
    this.redis = redis as Scripted;
  }

  async put(runId: string, preview: Preview, keepMs: number): Promise<number> {
    const image = Buffer.from(preview.bytes.buffer, preview.bytes.byteOffset, preview.bytes.byteLength);
    return Number(await this.redis.runloadPutPreview(this.key(runId), JSON.stringify(preview.nodeId), preview.contentType, image, Math.max(1, Math.round(keepMs))));
  }

  async latest(runId: string): Promise<StoredPreview | null> {
    const [seq, node, type, image] = await this.redis.hmgetBuffer(this.key(runId), 'seq', 'node', 'type', 'image');
    if (!seq || !node || !type || !image) return null;
    return { ...infoOf(runId, seq.toString(), node.toString(), type.toString()), bytes: new Uint8Array(image) };
  }

  async info(runIds: readonly string[]): Promise<ReadonlyMap<string, PreviewInfo>> {
    const found = new Map<string, PreviewInfo>();
    if (runIds.length === 0) return found;
    const pipeline = this.redis.pipeline();
    for (const runId of runIds) pipeline.hmget(this.key(runId), 'seq', 'node', 'type');
    const replies = (await pipeline.exec()) ?? [];
    runIds.forEach((runId, i) => {
      const [error, values] = replies[i] ?? [null, null];
      if (error) throw error;
      const [seq, node, type] = (values ?? []) as (string | null)[];
      if (seq && node && type) found.set(runId, infoOf(runId, seq, node, type));
    });
    return found;
  }

  async finish(runId: string, keepMs: number): Promise<void> {
    await this.redis.pexpire(this.key(runId), Math.max(1, Math.round(keepMs)));
  }

  private key(runId: string): string {
    return `${this.prefix}${runId}`;
  }
}

function infoOf(runId: string, seq: string, node: string, type: string): PreviewInfo {
  return { runId, seq: Number(seq), nodeId: JSON.parse(node) as string | null, contentType: type as PreviewContentType };
}
