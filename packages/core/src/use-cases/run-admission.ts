/**
 * The second atomic step of the limits, after the general window: the tier's run-minute and
 * run-hour windows and the GPU quota admission, together. All pass and all are consumed, or none is.
 * @module
 */
import type { Account } from '../domain/account.js';
import { CoreError } from '../domain/errors.js';
import { monthBounds, tierLimitsOf, WINDOW, type LimitsConfig } from '../domain/limits.js';
import type { Clock } from '../ports/clock.js';
import type { GpuLedger } from '../ports/gpu-ledger.js';
import type { NamedLocks } from '../ports/named-locks.js';
import type { WindowState } from '../domain/limit-window.js';
import type { LimitDecision, RateLimiter, WindowHistory, WindowSpec } from '../ports/rate-limiter.js';
import type { RunRepository } from '../ports/run-repository.js';
import { AdmissionBatches, admitInOrder } from './admission-batches.js';
import { QuotaHeadroomSeen } from './quota-headroom-seen.js';

export interface GpuQuotaState {
  /** GPU-seconds per calendar month (UTC) for the account's tier. */
  readonly limit: number;
  /** GPU-seconds charged this month. */
  readonly used: number;
  /** Estimated GPU-seconds of the account's runs in flight. */
  readonly inFlight: number;
  /** limit − used, never below 0. */
  readonly remaining: number;
  /** Unix seconds at which the month (and the quota) resets. */
  readonly resetAt: number;
}

export interface RunLimitsView {
  readonly windows: readonly WindowState[];
  readonly quota: GpuQuotaState;
}

export interface Admission extends RunLimitsView {
  readonly decision: LimitDecision;
}

/**
 * The run windows count the runs written, so a limiter made mid-window (a restarted
 * server) reads what they counted back from the runs; other windows it cannot know.
 */
export function runWindowHistory(runs: RunRepository): WindowHistory {
  return (spec, fromMs, toMs) =>
    spec.name === WINDOW.runMinute || spec.name === WINDOW.runHour ? runs.countCreated(spec.subject, new Date(fromMs), new Date(toMs)) : null;
}

export class RunAdmission {
  /** This instance's creates waiting for their account's admission lock. */
  private readonly batches = new AdmissionBatches<Waiting>();
  /** Accounts whose last quota read under the lock found room: their next creates skip the read before the windows. */
  private readonly headroom = new QuotaHeadroomSeen();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly ledger: GpuLedger,
    private readonly runs: RunRepository,
    private readonly clock: Clock,
    private readonly limits: LimitsConfig,
    private readonly locks: NamedLocks,
  ) {}

  /**
   * Admits one run of `appVersionId` and writes it (`write`): all of the run windows and the quota
   * pass and are consumed with the write, or nothing is. The quota is checked again, with the
   * write, under the account's admission lock (on every instance), so concurrent creates cannot
   * all read the same quota and all pass; only requests the windows let through take part. The
   * creates of one account on this instance share the lock's holds (see {@link AdmissionBatches}):
   * each is decided as a hold of its own would decide it, and the writes of one hold go side by
   * side. When `write` fails, what was consumed is refunded and its error rethrown.
   * @throws CoreError GPU_QUOTA_EXCEEDED or RATE_LIMITED, as `admit`
   */
  async admitAndWrite<T>(account: Account, appVersionId: string, write: (admission: Admission) => Promise<T>): Promise<{ admission: Admission; written: T }> {
    // A spent quota is refused before the windows count the request. The read is skipped when one
    // under the lock found room within the last second: the read under the lock decides anyway.
    if (!this.headroom.recently(account.id, this.clock.nowMs())) await this.refuseSpentQuota(account);
    const decision = await this.consumeWindows(account);
    const outcome = await new Promise<Outcome>((settle) => {
      const opened = this.batches.join(account.id, { appVersionId, decision, write, settle });
      if (opened) void this.holdFor(account);
    });
    if (outcome.kind === 'written') return { admission: outcome.admission, written: outcome.written as T };
    // The run was not written, so it must cost nothing; the write error is what the caller sees.
    await this.limiter.refund(decision).catch(() => undefined);
    throw outcome.kind === 'refused' ? await this.quotaExceeded(account, outcome.quota) : outcome.error;
  }

  /** Takes the account's admission lock for the batch waiting now, and admits it under that hold. */
  private async holdFor(account: Account): Promise<void> {
    let began = false;
    try {
      await this.locks.withLock(`gpu-admission:${account.id}`, () => {
        began = true;
        return this.admitBatch(account, this.batches.take(account.id));
      });
    } catch (error) {
      // The lock could not be had: the batch still waits (nobody else asks for it), and fails with that.
      if (!began) for (const member of this.batches.take(account.id)) member.settle({ kind: 'failed', error });
    }
  }

  /** Under the lock: one quota read decides every member in arrival order; the admitted ones are written side by side. */
  private async admitBatch(account: Account, batch: readonly Waiting[]): Promise<void> {
    let quota: GpuQuotaState;
    let inFlightBefore: (number | null)[];
    try {
      // The last member's estimate decides nothing (nobody is decided after it): a lone create reads none.
      const [read, estimates] = await Promise.all([
        this.quota(account),
        batch.length > 1 ? this.runs.estimateGpuSeconds(batch.map((m) => m.appVersionId)) : [0],
      ]);
      quota = read;
      inFlightBefore = admitInOrder(quota, estimates);
      this.headroom.note(account.id, inFlightBefore.at(-1) !== null, this.clock.nowMs());
    } catch (error) {
      for (const member of batch) member.settle({ kind: 'failed', error });
      return;
    }
    await Promise.all(
      batch.map(async (member, i) => {
        const inFlight = inFlightBefore[i];
        if (inFlight === null || inFlight === undefined) return member.settle({ kind: 'refused', quota });
        // What a hold of its own would have read: the runs admitted before it are in flight by then.
        const admission: Admission = { decision: member.decision, windows: member.decision.windows, quota: { ...quota, inFlight } };
        try {
          member.settle({ kind: 'written', admission, written: await member.write(admission) });
        } catch (error) {
          // Its own failure only; the members decided after it still counted its estimate (never too many pass).
          member.settle({ kind: 'failed', error });
        }
      }),
    );
  }

  /** The state of the run windows and quota, counting nothing. */
  async peek(account: Account): Promise<RunLimitsView> {
    const [decision, quota] = await Promise.all([this.limiter.peek(this.windows(account)), this.quota(account)]);
    return { windows: decision.windows, quota };
  }

  /**
   * Refuses a spent quota, with nothing consumed.
   * @throws CoreError GPU_QUOTA_EXCEEDED (retry after the month ends)
   */
  private async refuseSpentQuota(account: Account): Promise<void> {
    const quota = await this.quota(account);
    if (quota.used + quota.inFlight >= quota.limit) throw await this.quotaExceeded(account, quota);
  }

  /**
   * Counts the request in the run windows, or refuses it with nothing consumed.
   * @throws CoreError RATE_LIMITED
   */
  private async consumeWindows(account: Account): Promise<LimitDecision> {
    const decision = await this.limiter.consume(this.windows(account));
    if (!decision.allowed) {
      const hourly = decision.windows.find((w) => w.exhausted && w.period === 'hour');
      const tier = tierLimitsOf(this.limits, account.tier);
      const what = hourly ? `${tier.runs_per_hour} runs per hour` : `${tier.runs_per_minute} runs per minute`;
      throw new CoreError('RATE_LIMITED', `Rate limit exceeded: ${what} for the ${account.tier} tier`, {
        retryAfterSeconds: decision.retryAfterSeconds,
        windows: decision.windows,
      });
    }
    return decision;
  }

  /** The refusal of a spent quota, with the windows as they stand (nothing consumed). */
  private async quotaExceeded(account: Account, known?: GpuQuotaState): Promise<CoreError> {
    const quota = known ?? (await this.quota(account));
    const retryAfterSeconds = Math.max(1, quota.resetAt - Math.floor(this.clock.nowMs() / 1000));
    return new CoreError('GPU_QUOTA_EXCEEDED', `GPU quota exceeded: ${quota.limit} GPU-seconds per month for the ${account.tier} tier`, {
      retryAfterSeconds,
      windows: (await this.limiter.peek(this.windows(account))).windows,
    });
  }

  async quota(account: Account): Promise<GpuQuotaState> {
    const { start, end } = monthBounds(this.clock.now());
    const limit = tierLimitsOf(this.limits, account.tier).gpu_seconds_per_month;
    const [used, inFlight] = await Promise.all([
      this.ledger.usedSeconds(account.id, start, end),
      this.runs.estimateInFlightGpuSeconds(account.id),
    ]);
    return { limit, used, inFlight, remaining: Math.max(0, limit - used), resetAt: Math.floor(end.getTime() / 1000) };
  }

  private windows(account: Account): WindowSpec[] {
    const tier = tierLimitsOf(this.limits, account.tier);
    return [
      { name: WINDOW.runMinute, subject: account.id, period: 'minute', limit: tier.runs_per_minute },
      { name: WINDOW.runHour, subject: account.id, period: 'hour', limit: tier.runs_per_hour },
    ];
  }
}

/** A create waiting in an admission batch: its windows already consumed (`decision`). */
interface Waiting {
  readonly appVersionId: string;
  readonly decision: LimitDecision;
  readonly write: (admission: Admission) => Promise<unknown>;
  readonly settle: (outcome: Outcome) => void;
}

/** How a create's turn in its batch ended. */
type Outcome =
  | { readonly kind: 'written'; readonly admission: Admission; readonly written: unknown }
  /** The quota (as the hold read it) was spent by runs admitted before it. */
  | { readonly kind: 'refused'; readonly quota: GpuQuotaState }
  | { readonly kind: 'failed'; readonly error: unknown };
