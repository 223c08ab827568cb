/**
 * The name this process writes on its claims, leases and maintenance lease: computed once when the
 * container is built and bound once (`INSTANCE_OWNER`), so the dispatcher, the webhook worker and
 * the retention sweep of one process are one instance to every other.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { RunloadConfig } from './config.js';

export function instanceOwner(config: Pick<RunloadConfig, 'instanceId' | 'databaseUrl' | 'dataDir'>): string {
  if (config.instanceId) return config.instanceId;
  // One SQLite file serves one instance: a stable name lets a restarted server reclaim its runs at once.
  return config.databaseUrl ? `instance-${randomUUID()}` : `local:${config.dataDir}`;
}
