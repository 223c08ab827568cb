/**
 * Polls `probe` until it returns something other than false, null or undefined; fails naming
 * what it waited for once the deadline passes. The fake depends on nothing, so it keeps this copy
 * of core's testing `waitFor` rather than importing it.
 */
export async function waitFor<T>(
  probe: () => T | false | null | undefined | Promise<T | false | null | undefined>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== false && value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10));
  }
}
