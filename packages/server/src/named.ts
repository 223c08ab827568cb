/**
 * Dependencies by name: an object whose every field names the token it is resolved from, rather
 * than a list matched to parameters by position.
 * @module
 */
import type { ResolutionContext } from 'inversify';

/** One token for each field of `T` (optional fields included). */
export type TokensOf<T> = { readonly [K in keyof T]-?: symbol };

/** Resolves each field's token, one after another in the order written (so the order parts start in is known). */
export async function resolveNamed<T>(context: ResolutionContext, tokens: TokensOf<T>): Promise<T> {
  const resolved: Record<string, unknown> = {};
  for (const [name, token] of Object.entries(tokens) as [string, symbol][]) resolved[name] = await context.getAsync(token);
  return resolved as T;
}
