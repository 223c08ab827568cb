/**
 * Every instance follows the pool's rows: on a timer it hands the executor the backends as the
 * registry holds them (a change made anywhere reaches its placement within one period), moves
 * draining backends that hold nothing to `drained`, removes retiring ones and lapsed
 * registrations once they hold nothing, and writes what it sees of each backend when that changes.
 * Each step is a guarded write that any number of instances may repeat.
 * @module
 */
import { isLapsed, nextBackendState, type Backend } from '../../domain/backend.js';
import type { BackendRegistry } from '../../ports/backend-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { BackendHealth, Executor, PoolMember } from '../../ports/executor.js';
import type { Logger } from '../../ports/logger.js';
import type { RunRepository } from '../../ports/run-repository.js';
import type { Timers } from '../../ports/timers.js';

export interface PoolFollowerDeps {
  readonly registry: BackendRegistry;
  readonly runs: RunRepository;
  readonly executor: Executor;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly log: Logger;
}

/** How often a backend that keeps answering has its `last_seen_at` written (changes are written at once). */
const SIGHTING_WRITE_MS = 30_000;

export class PoolFollower {
  private cancel: (() => void) | null = null;

  constructor(
    private readonly deps: PoolFollowerDeps,
    /** The period; the 5 s within which a change reaches every instance bounds it. */
    private readonly refreshMs = 2000,
  ) {}

  /** Follows the pool now (resolves once new backends were probed), then every period. */
  async start(): Promise<void> {
    await this.refresh();
    this.cancel = this.deps.timers.every(this.refreshMs, () => this.refresh());
  }

  stop(): void {
    this.cancel?.();
  }

  async refresh(): Promise<void> {
    try {
      const backends = await this.deps.registry.list();
      const now = this.deps.clock.nowMs();
      const live = backends.filter((b) => !isLapsed(b, now));
      await this.deps.executor.usePool?.(live.map(member));
      await this.retire(backends, now);
      await this.noteSightings(live, now);
    } catch (error) {
      this.deps.log('warn', 'could not follow the pool; the next period tries again', { error: (error as Error).message });
    }
  }

  private async retire(backends: readonly Backend[], now: number): Promise<void> {
    const leaving = backends.filter((b) => b.state === 'draining' || b.retiring || isLapsed(b, now));
    if (leaving.length === 0) return;
    const held = await this.deps.runs.heldByBackend();
    for (const b of leaving) {
      if ((held.get(b.url) ?? 0) > 0) continue;
      if (b.retiring || isLapsed(b, now)) {
        if (await this.deps.registry.delete(b.id)) this.deps.log('info', 'backend removed from the pool', { backend: b.url, source: b.source, reason: b.retiring ? 'retired' : 'registration lapsed' });
      } else if (await this.deps.registry.update(b.id, { state: nextBackendState(b.state, 'emptied') }, ['draining'])) {
        this.deps.log('info', 'backend drained', { backend: b.url });
      }
    }
  }

  private async noteSightings(live: readonly Backend[], now: number): Promise<void> {
    const seen = new Map((await this.deps.executor.health()).backends.map((h) => [h.url, h]));
    for (const b of live) {
      const h = seen.get(b.url);
      if (!h || h.detail === 'not probed yet') continue;
      const patch = sighting(b, h, now);
      if (patch) await this.deps.registry.update(b.id, patch);
    }
  }
}

function member(b: Backend): PoolMember {
  return { url: b.url, accepting: b.state === 'active', labels: b.labels, depth: b.depth, auth: b.auth };
}

/** What changed in what this instance sees of the backend, or null. */
function sighting(b: Backend, h: BackendHealth, now: number) {
  if (!h.healthy) return b.reachable === false ? null : { reachable: false };
  const version = h.comfyuiVersion ?? b.comfyuiVersion;
  const hash = h.capabilitiesHash ?? b.capabilitiesHash;
  const seenAt = h.lastSeenAtMs ?? now;
  const stale = !b.lastSeenAt || seenAt - b.lastSeenAt.getTime() >= SIGHTING_WRITE_MS;
  if (b.reachable === true && version === b.comfyuiVersion && hash === b.capabilitiesHash && !stale) return null;
  return { reachable: true, comfyuiVersion: version, capabilitiesHash: hash, lastSeenAt: new Date(seenAt) };
}
