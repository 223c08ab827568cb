/** The rate-limit and GPU quota headers of every response, from window states. */
import type { GpuQuotaState, WindowState } from '@runload/core';

/** The minute window with the fewest remaining, and the hour windows likewise. */
export function rateLimitHeaders(windows: readonly WindowState[], quota: GpuQuotaState | null): Record<string, string> {
  const headers: Record<string, string> = {};
  const pick = (period: 'minute' | 'hour') =>
    windows.filter((w) => w.period === period).reduce<WindowState | null>((best, w) => (!best || w.remaining < best.remaining ? w : best), null);
  const minute = pick('minute');
  if (minute) {
    headers['X-RateLimit-Minute-Limit'] = String(minute.limit);
    headers['X-RateLimit-Minute-Remaining'] = String(minute.remaining);
    headers['X-RateLimit-Minute-Reset'] = String(minute.resetAt);
  }
  const hour = pick('hour');
  if (hour) {
    headers['X-RateLimit-Hour-Limit'] = String(hour.limit);
    headers['X-RateLimit-Hour-Remaining'] = String(hour.remaining);
    headers['X-RateLimit-Hour-Reset'] = String(hour.resetAt);
  }
  if (quota) {
    // Whole seconds in headers; what is left is rounded down, so a client never counts on more than there is.
    headers['X-GPU-Quota-Limit'] = String(Math.floor(quota.limit));
    headers['X-GPU-Quota-Remaining'] = String(Math.max(0, Math.floor(quota.remaining + 1e-9)));
    headers['X-GPU-Quota-Reset'] = String(quota.resetAt);
  }
  return headers;
}
