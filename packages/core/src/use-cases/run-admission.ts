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
  constructor(
    private readonly limiter: RateLimiter,
    private readonly ledger: GpuLedger,
    private readonly runs: RunRepository,
    private readonly clock: Clock,
    private readonly limits: LimitsConfig,
    private readonly locks: NamedLocks,
  ) {}

  /**
   * Admits one run and writes it (`write`): all of the run windows and the quota pass and are
   * consumed with the write, or nothing is. The quota is checked again, with the write, under
   * the account's admission lock (on every instance), so concurrent creates cannot all read the
   * same quota and all pass; only requests the windows let through take the lock. When `write`
   * fails, what was consumed is refunded and its error rethrown.
   * @throws CoreError GPU_QUOTA_EXCEEDED or RATE_LIMITED, as `admit`
   */
  async admitAndWrite<T>(account: Account, write: (admission: Admission) => Promise<T>): Promise<{ admission: Admission; written: T }> {
    const admitted = await this.admit(account);
    try {
      return await this.locks.withLock(`gpu-admission:${account.id}`, async () => {
        const quota = await this.quota(account);
        if (quota.used + quota.inFlight >= quota.limit) throw new QuotaSpentMeanwhile();
        const admission = { ...admitted, quota };
        return { admission, written: await write(admission) };
      });
    } catch (error) {
      // The run was not written, so it must cost nothing; the write error is what the caller sees.
      await this.refund(admitted).catch(() => undefined);
      throw error instanceof QuotaSpentMeanwhile ? await this.quotaExceeded(account) : error;
    }
  }

  /** The state of the run windows and quota, counting nothing. */
  async peek(account: Account): Promise<RunLimitsView> {
    const [decision, quota] = await Promise.all([this.limiter.peek(this.windows(account)), this.quota(account)]);
    return { windows: decision.windows, quota };
  }

  /**
   * Admits one run or refuses it with nothing consumed.
   * @throws CoreError GPU_QUOTA_EXCEEDED (retry after the month ends) or RATE_LIMITED
   */
  async admit(account: Account): Promise<Admission> {
    const quota = await this.quota(account);
    if (quota.used + quota.inFlight >= quota.limit) throw await this.quotaExceeded(account, quota);
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
    return { decision, windows: decision.windows, quota };
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

  /** Gives back what `admit` consumed (the run was not written). */
  async refund(admission: Admission): Promise<void> {
    await this.limiter.refund(admission.decision);
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

/** The quota was spent by another run admitted meanwhile (found under the admission lock). */
class QuotaSpentMeanwhile extends Error {}
