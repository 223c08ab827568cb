/**
 * A single-flight loop: a pass at a time, and a request that comes while a pass runs asks for
 * one more pass after it (however many such requests came, one more pass serves them all). No
 * I/O and no time of its own: the pass does the work.
 * @module
 */
export class Pump {
  private flight: Promise<void> | null = null;
  private pending = false;

  /**
   * @param pass one pass of the work; a failure ends the flight and rejects it
   * @param halted once true, no further pass starts (a component that is stopping)
   */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly halted: () => boolean = () => false,
  ) {}

  /**
   * Starts a pass, or asks the one running for one more after it. Resolves when the flight that
   * serves this request ends.
   */
  request(): Promise<void> {
    if (this.flight) {
      this.pending = true;
      return this.flight;
    }
    // Set before the first pass starts, so a request made from inside it asks for one more.
    let done!: () => void;
    let failed!: (error: unknown) => void;
    this.flight = new Promise<void>((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    const flight = this.flight;
    this.fly().then(done, failed);
    return flight;
  }

  /** A pass is running (or about to run). */
  busy(): boolean {
    return this.flight !== null;
  }

  /** A request came since the current pass began (or since {@link take}): the pass may look, to wake from a wait. */
  requested(): boolean {
    return this.pending;
  }

  /** Says whether a request came, and counts it as served by the pass that calls this. */
  take(): boolean {
    const was = this.pending;
    this.pending = false;
    return was;
  }

  private async fly(): Promise<void> {
    try {
      do {
        this.pending = false;
        await this.pass();
      } while (this.pending && !this.halted());
    } finally {
      this.flight = null;
    }
  }
}
