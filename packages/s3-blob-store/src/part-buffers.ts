/**
 * The part buffers of one store's multipart uploads, kept from one upload to the next. An upload
 * that allocated its own buffers left them to the garbage collector when it ended, and the next
 * upload allocated fresh ones while those still waited: two sets of part buffers at once. Here an
 * upload that succeeded gives its buffers back and the next one takes them; at most `keepIdle`
 * are kept between uploads, the rest are left to the collector, and the kept ones too once no
 * upload has given any back for `idleMs` (a store that stopped uploading does not hold them).
 * @module
 */

/** How long kept buffers wait for the next upload before they are dropped. */
export const PART_BUFFERS_IDLE_MS = 60_000;

export class PartBuffers {
  private readonly idle: Buffer[] = [];
  private made = 0;
  private dropTimer: NodeJS.Timeout | null = null;

  constructor(
    /** Size of every buffer: one multipart part. */
    readonly partBytes: number,
    private readonly keepIdle: number,
    private readonly idleMs = PART_BUFFERS_IDLE_MS,
  ) {}

  take(): Buffer {
    const kept = this.idle.pop();
    if (kept) return kept;
    this.made += 1;
    return Buffer.allocUnsafeSlow(this.partBytes);
  }

  /**
   * Only buffers no request reads any more: after a failure a part's request may still hold its
   * buffer, so a failed upload gives nothing back. Only the filled length of a buffer is ever sent,
   * so what an earlier upload left in it never leaves the process.
   */
  give(buffers: Iterable<Buffer>): void {
    for (const buffer of buffers) {
      if (this.idle.length >= this.keepIdle) break;
      this.idle.push(buffer);
    }
    if (this.idle.length > 0) this.dropLater();
  }

  /** Drops the kept buffers `idleMs` after the last give; the timer never keeps the process up. */
  private dropLater(): void {
    if (this.dropTimer) clearTimeout(this.dropTimer);
    this.dropTimer = setTimeout(() => {
      this.dropTimer = null;
      this.idle.length = 0;
    }, this.idleMs);
    this.dropTimer.unref();
  }

  /** Buffers kept for the next upload. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Buffers allocated so far (the rest of the takes were served from the kept ones). */
  get madeCount(): number {
    return this.made;
  }
}
