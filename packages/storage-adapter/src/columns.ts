/** Conversions between database columns and domain values. */

/** Epoch ms from a bigint column (pg returns bigint as a string). */
export function toMs(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function toDate(value: unknown): Date {
  return new Date(toMs(value));
}

export function toDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

export function msOrNull(date: Date | null | undefined): number | null {
  return date ? date.getTime() : null;
}

export function json<T>(value: unknown): T {
  return JSON.parse(String(value)) as T;
}

export function jsonOrNull<T>(value: unknown): T | null {
  return value === null || value === undefined ? null : json<T>(value);
}

/** Rows of a `knex.raw` result, whatever the driver. */
export function rawRows(result: unknown): Record<string, unknown>[] {
  if (Array.isArray(result)) return result as Record<string, unknown>[];
  return ((result as { rows?: Record<string, unknown>[] }).rows ?? []) as Record<string, unknown>[];
}

/** `'a', 'b', …`: an `IN (…)` list of constants written into a statement (statuses, never input). */
export function sqlStrings(values: readonly string[]): string {
  return values.map((v) => `'${v}'`).join(', ');
}

/** `?, ?, …`: the bound parameters of an `IN (…)` list of `n` values. */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}
