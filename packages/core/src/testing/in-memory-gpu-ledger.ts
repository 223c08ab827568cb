import { isTerminal, type Run } from '../domain/run.js';
import type { GpuCharge, GpuLedger } from '../ports/gpu-ledger.js';

export class InMemoryGpuLedger implements GpuLedger {
  private readonly charges = new Map<string, GpuCharge>();

  /**
   * @param runs the runs whose finishing writes charge this ledger, as the databases' trigger
   * does in the run's finishing write (none when omitted)
   */
  constructor(runs?: { onStatusChange(listener: (before: Run, after: Run) => void): void }) {
    runs?.onStatusChange((before, after) => {
      const seconds = after.metrics.gpuSeconds;
      if (isTerminal(before.status) || !isTerminal(after.status) || seconds === null || !(seconds > 0)) return;
      this.record({ accountId: after.accountId, runId: after.id, seconds, chargedAt: after.finishedAt ?? new Date() });
    });
  }

  async charge(charge: GpuCharge): Promise<void> {
    this.record(charge);
  }

  /** A run's first charge is kept. */
  private record(charge: GpuCharge): void {
    if (!this.charges.has(charge.runId)) this.charges.set(charge.runId, structuredClone(charge));
  }

  /** Every charge recorded (in-memory usage reads them). */
  all(): GpuCharge[] {
    return [...this.charges.values()].map((c) => structuredClone(c));
  }

  async usedSeconds(accountId: string, from: Date, to: Date): Promise<number> {
    let total = 0;
    for (const c of this.charges.values()) {
      const at = c.chargedAt.getTime();
      if (c.accountId === accountId && at >= from.getTime() && at < to.getTime()) total += c.seconds;
    }
    return total;
  }
}
