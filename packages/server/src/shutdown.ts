import type { Container } from 'inversify';
import { EXECUTOR, RATE_LIMITER, WORK_SIGNAL } from '@runload/core';
import { HTTP_SERVER } from '@runload/http-adapter/module';
import { REDIS_LIMITS_CLIENT, REDIS_PUBLISHER, REDIS_SUBSCRIBER } from '@runload/redis-limiter/module';
import { DATABASE } from '@runload/storage-adapter/module';
import { DISPATCHER, INTEGRATIONS, POOL_FOLLOWER, RETENTION_SWEEP, RUNTIME } from './tokens.js';

/**
 * Deactivates in the order that loses nothing: stop taking requests, stop dispatching, close the
 * backends, the limiter and Redis, and the database last. Only what was resolved is closed.
 */
export async function shutdown(container: Container): Promise<void> {
  const order = [HTTP_SERVER, INTEGRATIONS, RETENTION_SWEEP, DISPATCHER, POOL_FOLLOWER, EXECUTOR, RATE_LIMITER, WORK_SIGNAL, REDIS_LIMITS_CLIENT, REDIS_PUBLISHER, REDIS_SUBSCRIBER, RUNTIME, DATABASE];
  for (const token of order) {
    if (container.isBound(token)) await container.unbindAsync(token);
  }
  await container.unbindAllAsync();
}
