export { RedisRateLimiter, type RedisRateLimiterOptions } from './redis-rate-limiter.js';
export { FailoverRateLimiter, type FailoverOptions } from './failover-rate-limiter.js';
export { RedisWorkSignal } from './redis-work-signal.js';
export { createRedisClient } from './create-redis-client.js';
export type { Redis } from 'ioredis';
export { RedisPreviewStore } from './redis-preview-store.js';
