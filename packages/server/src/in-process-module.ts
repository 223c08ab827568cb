/** Limits, work notifications and previews in this process: one instance, no Redis. Nothing to close. */
import { ContainerModule } from 'inversify';
import { CLOCK, PREVIEW_STORE, RATE_LIMITER, RUN_REPOSITORY, runWindowHistory, WORK_SIGNAL, type Clock, type RunRepository } from '@runload/core';
import { InMemoryPreviewStore, InMemoryRateLimiter, InMemoryWorkSignal } from '@runload/core/in-process';

export function inProcessModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    // A restarted server starts its run windows from the runs written in them.
    bind(RATE_LIMITER)
      .toResolvedValue((clock: Clock, runs: RunRepository) => new InMemoryRateLimiter(clock, runWindowHistory(runs)), [CLOCK, RUN_REPOSITORY])
      .inSingletonScope();
    bind(WORK_SIGNAL).toConstantValue(new InMemoryWorkSignal());
    bind(PREVIEW_STORE)
      .toResolvedValue((clock: Clock) => new InMemoryPreviewStore(clock), [CLOCK])
      .inSingletonScope();
  });
}
