/**
 * The part buffers of one store's multipart uploads, kept from one upload to the next. An upload
 * that allocated its own buffers left them to the garbage collector when it ended, and the next
 * upload allocated fresh ones while those still waited: two sets of part buffers at once. Here an
 * upload that succeeded gives its buffers back and the next one takes them; at most `keepIdle`
 * are kept between uploads, the rest are left to the collector.
 * @module
 */
export class PartBuffers {
  private readonly idle: Buffer[] = [];
  private made = 0;

  constructor(
    /** Size of every buffer: one multipart part. */
    readonly partBytes: number,
    private readonly keepIdle: number,
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
      if (this.idle.length >= this.keepIdle) return;
      this.idle.push(buffer);
    }
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
