/**
 * Request shapes checked against the API's schemas (`@runload/api-schema`), answered with the
 * documented INVALID_REQUEST messages. Input values against an app version's inputs are the core's.
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import { AppRunBody, checkRequest, MAX_PAGE_SIZE, RunBody, type RequestProblem } from '@runload/api-schema';
import { CoreError } from '@runload/core';

/** The message for a problem at each path, the first listed winning (the order the body is read in). */
const RUN_BODY_MESSAGES: ReadonlyArray<readonly [string, (p: RequestProblem) => string]> = [
  ['', () => 'The request body must be a JSON object'],
  ['/inputs', (p) => (/required/i.test(p.message) ? 'The request body needs an "inputs" object' : '"inputs" must be an object keyed <nodeId>:<widgetName>')],
  ['/app_version_id', () => 'The request body needs "app_version_id" as a string'],
];

/**
 * Checks a parsed run body. Problems with fields the run endpoints only pass on (`webhook`,
 * `webhook_events`) are left to the core, which answers them with their own errors.
 * @throws CoreError INVALID_REQUEST
 */
export function checkRunBody(body: unknown, needsAppVersionId: boolean): void {
  const problems = checkRequest(needsAppVersionId ? RunBody : AppRunBody, body);
  for (const [path, message] of RUN_BODY_MESSAGES) {
    const problem = problems.find((p) => p.path === path);
    if (problem) throw new CoreError('INVALID_REQUEST', message(problem));
  }
}

/** A query string read against its schema: each parameter once, as a string. @throws CoreError INVALID_REQUEST */
export function readQuery<T extends Record<string, string | undefined>>(schema: TSchema, searchParams: URLSearchParams): T {
  const query: Record<string, string> = {};
  // The first of a repeated parameter counts, as URLSearchParams.get reads it.
  for (const [name, value] of searchParams) query[name] ??= value;
  const problem = checkRequest(schema, query)[0];
  if (problem) {
    const name = problem.path.slice(1);
    throw new CoreError(
      'INVALID_REQUEST',
      name === 'limit' ? `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}` : `${name || 'the query'} is not valid: ${problem.message}`,
    );
  }
  return query as T;
}

/** `limit` as a number, or undefined to take the default. */
export function pageLimit(limit: string | undefined): number | undefined {
  return limit === undefined ? undefined : Number(limit);
}
