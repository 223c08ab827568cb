/**
 * What a process must stop or close before it exits, registered by whatever starts or opens it, at
 * that moment. A part is started after the parts it uses, so running the registrations backwards
 * stops each part before anything it depends on: the HTTP server before the dispatcher, the
 * dispatcher before the executor, the database last. Nothing here keeps a hand-made order.
 * @module
 */

/** One registration: a name for errors and logs, and how to stop or close the part. */
export interface Disposer {
  readonly name: string;
  dispose(): unknown;
}

export class Teardown {
  private readonly disposers: Disposer[] = [];
  private running: Promise<void> | null = null;

  /** Whether `run` has begun: nothing may be started any more. */
  get closed(): boolean {
    return this.running !== null;
  }

  /** The parts registered so far, in the order they were started. */
  names(): readonly string[] {
    return this.disposers.map((d) => d.name);
  }

  /**
   * Registers what stops a part just started. A part started once teardown has begun is stopped at
   * once and refused: it would outlive everything it uses.
   */
  add(name: string, dispose: () => unknown): void {
    if (this.running) {
      void Promise.resolve()
        .then(dispose)
        .catch(() => undefined);
      throw new Error(`${name} was started while the process was shutting down; it has been stopped again`);
    }
    this.disposers.push({ name, dispose });
  }

  /**
   * Stops every part in the reverse order of registration, each awaited before the next. A part
   * that fails to stop does not keep the parts after it open: every one is tried, then the failures
   * are thrown together. Later calls return the same promise.
   */
  run(): Promise<void> {
    this.running ??= this.disposeAll();
    return this.running;
  }

  private async disposeAll(): Promise<void> {
    const failures: Error[] = [];
    for (const disposer of [...this.disposers].reverse()) {
      try {
        await disposer.dispose();
      } catch (error) {
        failures.push(new Error(`stopping ${disposer.name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `stopping ${failures.length} parts failed`);
  }
}

export const TEARDOWN = Symbol.for('runload.core.Teardown');

/** What an activation handler of a dependency-injection container receives: a way to resolve a token. */
export interface ActivationContext {
  get(serviceIdentifier: symbol): unknown;
}

/**
 * An activation handler for a container binding (inversify's `onActivation`): registers, with the
 * `Teardown` bound to {@link TEARDOWN}, how the value just made is stopped. A module puts it on
 * each binding whose value must be closed, so the module owns its teardown.
 */
export function stopAtTeardown<T>(name: string, stop: (value: T) => unknown): (context: ActivationContext, value: T) => T {
  return (context, value) => {
    (context.get(TEARDOWN) as Teardown).add(name, () => stop(value));
    return value;
  };
}
