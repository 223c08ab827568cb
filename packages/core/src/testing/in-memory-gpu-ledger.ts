import type { GpuCharge, GpuLedger } from '../ports/gpu-ledger.js';

export class InMemoryGpuLedger implements GpuLedger {
  private readonly charges = new Map<string, GpuCharge>();

  async charge(charge: GpuCharge): Promise<void> {
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
