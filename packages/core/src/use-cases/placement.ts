/**
 * Where a claimed run goes among the backends with room: only a capable one; the one
 * that most recently took the run's app version (its models are loaded) when it has room; else the
 * one left unused longest, so the backends warm for other versions stay so.
 * @module
 */
import type { RunToPlace } from '../domain/run.js';
import type { FreeBackend } from '../ports/run-repository.js';

/** What a backend lacks to run the run, or null when it can (the executor's `lacks`). */
export type Lacks = (backendId: string, run: RunToPlace) => string | null;

export function placeRun(run: RunToPlace, free: readonly FreeBackend[], lacks: Lacks): string | null {
  const capable = free.filter((b) => lacks(b.id, run) === null);
  const warm = capable.filter((b) => b.lastAppVersionId === run.appVersionId);
  if (warm.length > 0) return mostRoom(warm).id;
  const cold = [...capable].sort((a, b) => (a.lastPlacedAtMs ?? -Infinity) - (b.lastPlacedAtMs ?? -Infinity) || b.room - a.room);
  return cold[0]?.id ?? null;
}

function mostRoom(backends: readonly FreeBackend[]): FreeBackend {
  return backends.reduce((best, b) => (b.room > best.room ? b : best));
}
