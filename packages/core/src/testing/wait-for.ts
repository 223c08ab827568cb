/**
 * Waits for a condition a test cannot be told about by an event: asks `probe` again (every
 * `intervalMs`, growing by half each time up to `maxIntervalMs` when it is given: a probe that
 * spends a rate limit backs off) until it returns something other than false, null or undefined, and fails
 * naming what it waited for once `timeoutMs` has passed. Never a fixed sleep: it returns as soon
 * as the condition holds.
 */
export async function waitFor<T>(
  probe: () => T | false | null | undefined | Promise<T | false | null | undefined>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number; maxIntervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  let intervalMs = options.intervalMs ?? 10;
  const maxIntervalMs = options.maxIntervalMs ?? intervalMs;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== false && value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    intervalMs = Math.min(maxIntervalMs, intervalMs * 1.5);
  }
}
