/** The GPU-seconds ledger: the source of truth for quota use, kept in the database. */
export interface GpuCharge {
  readonly accountId: string;
  readonly runId: string;
  readonly seconds: number;
  readonly chargedAt: Date;
}

/**
 * A run's charge is recorded by the run repository of the same storage, in the write that
 * finishes the run (`RunRepository.update`); `charge` records one directly.
 */
export interface GpuLedger {
  /** Records a run's charge. Idempotent per run: a second charge for the same run changes nothing. */
  charge(charge: GpuCharge): Promise<void>;
  /** Total seconds charged to the account with `from <= chargedAt < to`. */
  usedSeconds(accountId: string, from: Date, to: Date): Promise<number>;
}

export const GPU_LEDGER = Symbol.for('runload.core.GpuLedger');
